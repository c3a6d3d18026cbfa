#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tick-rate matrix: the tests that depend on HZ (tail_latency.sh:
# pacing at riops=100, 37 and 333; regressions.sh: the blktests throtl
# scenarios) on vanilla, the core and the whole series (VARIANTS) at
# HZ=100, 250 and 1000, one after the other on this machine. A failing
# vanilla test is a finding, not an error: every cell is recorded, in
# results/hz-matrix.md (every run so far), with each run's KTAP summary
# in results/hz-matrix/.
#
# With CLOCK=virtual (see test.sh) the guests run on QEMU's virtual
# clock, which shows the kernels' own pacing without the emulator's
# noise, and only tail_latency.sh runs, whose times fio measures inside
# the guest (regressions.sh times dd and sync from their start, which
# the virtual clock distorts): results/hz-matrix-virtual.md and
# results/hz-matrix-virtual/.
#
#   hz-matrix.sh [HZ...]    (default: 100 250 1000)
set -u
. "$(dirname "$0")/../pipeline/lib.sh"

HZS=${*:-100 250 1000}
sfx= tests="tail_latency.sh regressions.sh"
[ "${CLOCK:-host}" = virtual ] && sfx=-virtual tests=tail_latency.sh
export TESTS=${TESTS:-$tests}
RESULTS=$TOP/results/hz-matrix$sfx
mkdir -p "$RESULTS"

for hz in $HZS; do
	for v in ${VARIANTS:-vanilla core patched}; do
		out=$BUILD/out/test-$v-hz$hz$sfx
		"$TOP/scripts/pipeline/test.sh" "$v" "$hz"
		echo "$?" >"$out/rc"
		cp "$out/summary.txt" "$RESULTS/$v-hz$hz.txt"
	done
done

python3 "$TOP/scripts/analysis/hz-matrix.py" "$RESULTS" | tee "$TOP/results/hz-matrix$sfx.md"
