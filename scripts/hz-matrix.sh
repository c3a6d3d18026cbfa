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

# One line per test case: ok or not, for each kernel run so far
python3 - "$RESULTS" <<'PY' | tee "$RESULTS/../hz-matrix.md"
import os, re, sys
res = sys.argv[1]
hzs = sorted({re.sub(r"\D", "", f.split("-")[1]) for f in os.listdir(res)
              if f.endswith(".txt")}, key=int)
cells, names = {}, []
for hz in hzs:
    for v in ("vanilla", "patched"):
        path = os.path.join(res, "%s-hz%s.txt" % (v, hz))
        if not os.path.exists(path):
            continue
        for line in open(path):
            m = re.match(r"\s+\[(PASSED|FAILED|SKIPPED)\] (.*)", line)
            if not m or m.group(2).startswith(("blk-throttle", "selftests")):
                continue
            # the case's name, without the figures it printed
            name = re.split(r":? [0-9(]", m.group(2), 1)[0]
            if name not in names:
                names.append(name)
            cells[(name, v, hz)] = m.group(1).lower()
cols = ["%s %s" % (v, hz) for hz in hzs for v in ("vanilla", "patched")]
print("# HZ matrix: vanilla and patched at each tick rate\n")
print("Regenerate with `make hz-matrix`; each run's figures are in "
      "`results/hz-matrix/`.\n")
print("| case | " + " | ".join("HZ=%s vanilla | HZ=%s patched" % (h, h)
                                for h in hzs) + " |")
print("|---|" + "---|" * len(cols))
for n in names:
    print("| %s | " % n + " | ".join(
        cells.get((n, v, h), "-") for h in hzs for v in ("vanilla", "patched")) + " |")
PY
