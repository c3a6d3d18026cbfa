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

python3 "$TOP/scripts/analysis/rounds.py" repeat "$R" "$N" "$HZ" "$mins" \
	>"$TOP/results/repeat-hz$HZ.md"
cat "$TOP/results/repeat-hz$HZ.md"
