#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tick-rate matrix: the tests that depend on HZ (tail_latency.sh:
# pacing at riops=100, 37 and 333; regressions.sh: the blktests throtl
# scenarios) on the vanilla and the patched kernel at HZ=100, 250 and
# 1000, one after the other on this machine. A failing vanilla test is
# a finding, not an error: every cell is recorded, in
# results/hz-matrix.md (every run so far), with each run's KTAP summary
# in results/hz-matrix/.
#
#   hz-matrix.sh [HZ...]    (default: 100 250 1000)
set -u
. "$(dirname "$0")/lib.sh"

HZS=${*:-100 250 1000}
export TESTS=${TESTS:-tail_latency.sh regressions.sh}
RESULTS=$TOP/results/hz-matrix
mkdir -p "$RESULTS"

for hz in $HZS; do
	for v in vanilla patched; do
		"$TOP/scripts/run-tests.sh" "$v" "$hz"
		echo "$?" >"$BUILD/out/test-$v-hz$hz/rc"
		cp "$BUILD/out/test-$v-hz$hz/summary.txt" "$RESULTS/$v-hz$hz.txt"
	done
done

python3 "$TOP/scripts/hz-matrix.py" "$RESULTS" | tee "$TOP/results/hz-matrix.md"
