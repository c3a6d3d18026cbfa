#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Is make test's verdict on timing repeatable? Runs control.sh N times
# on the kernels as built (one build, N rounds of guests), and writes
# how often each check passed and how many different figures it gave:
# results/repeat-hzHZ.md.
#
#   repeat.sh [N [HZ]]    (default: 10 1000)
set -u
. "$(dirname "$0")/../pipeline/lib.sh"

N=${1:-10}
HZ=${2:-${HZ:-1000}}
R=$BUILD/out/repeat
rm -rf "$R"
mkdir -p "$R"

# build both kernels, then install the kselftests from the patched tree
VIMAGE=$("$TOP/scripts/pipeline/build.sh" vanilla "$HZ") || exit 1
PIMAGE=$("$TOP/scripts/pipeline/build.sh" patched "$HZ") || exit 1
install_kselftests "$R/ksft"
export PIMAGE VIMAGE KSFT_DIR=$R/ksft

start=$(date +%s)
for i in $(seq "$N"); do
	say "round $i of $N"
	RUN=rep$i "$TOP/scripts/pipeline/control.sh" "$HZ" >"$R/control-$i.log" 2>&1
	echo "$?" >"$R/control-$i.rc"
	cp "$BUILD/out/control-hz$HZ-rep$i.md" "$R/control-$i.md"
	say "round $i: control.sh exited $(cat "$R/control-$i.rc")"
done
mins=$((($(date +%s) - start + 59) / 60))

python3 - "$R" "$N" "$HZ" "$mins" >"$TOP/results/repeat-hz$HZ.md" <<'PY'
import collections, sys
r, n, hz, mins = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
seen = collections.OrderedDict()
rcs = []
for i in range(1, n + 1):
    rcs.append(open("%s/control-%d.rc" % (r, i)).read().strip())
    for line in open("%s/control-%d.md" % (r, i)).read().splitlines()[2:]:
        test, check, p, v, ctl = [c.strip() for c in line.strip("|").split("|")]
        s = seen.setdefault((test, check), {"p": [], "v": []})
        s["p"].append(p)
        s["v"].append(v)

def verdicts(cells):
    c = collections.Counter(x.split()[0] for x in cells)
    return ", ".join("%s %d/%d" % (k, v, len(cells)) for k, v in c.items())

print("# make test's timing verdicts, %d rounds (HZ=%s, virtual clock)\n" % (n, hz))
print("`scripts/instruments/repeat.sh %d %s`: each round boots the patched and the vanilla"
      " kernel on QEMU's virtual clock and judges them with `control.py`, as"
      " `make test` does; %s minutes for all rounds. control.sh's exit status"
      " per round: %s.\n" % (n, hz, mins, " ".join(rcs)))
print("\"figures\": how many different figures the check printed over the"
      " rounds (1: the same to the last digit every time).\n")
print("| test | check | patched | figures | vanilla | figures |")
print("|---|---|---|---|---|---|")
for (test, check), s in seen.items():
    print("| %s | %s | %s | %d | %s | %d |" % (
        test, check, verdicts(s["p"]), len(set(s["p"])),
        verdicts(s["v"]), len(set(s["v"]))))
PY
cat "$TOP/results/repeat-hz$HZ.md"
