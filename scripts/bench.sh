#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Side by side, in one run: build the vanilla base and the patched tree
# at HZ, boot each, run every bench/*.fio scenario (or those named in
# SCENARIOS), and write results/ (bench.json, bench.md, one PNG per
# scenario). HZ=1000 writes results/; any other HZ writes results/hzN/.
#
#   bench.sh [HZ]
set -u
. "$(dirname "$0")/lib.sh"

HZ=${1:-${HZ:-1000}}
RESULTS=$TOP/results
[ "$HZ" = 1000 ] || RESULTS=$TOP/results/hz$HZ
SCENARIOS=${SCENARIOS:-$(cd "$TOP/bench" && ls *.fio | sed 's/\.fio$//')}
jobs=$(for s in $SCENARIOS; do echo "$TOP/bench/$s.fio"; done)
# then again, the scenarios that ask for more rounds (see guest-bench.sh)
runs="$jobs $(for r in 2 3 4 5; do
	for j in $jobs; do
		n=$(sed -n 's/^; rounds: //p' "$j")
		[ "${n:-1}" -lt "$r" ] || echo "$j"
	done
done)"
export BENCH_RUNTIME=${BENCH_RUNTIME:-20}

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# Build both first: a build failure stops us before any timing is done.
declare -A image
for v in vanilla patched; do
	image[$v]=$("$TOP/scripts/build-kernel.sh" "$v" "$HZ") || exit 1
done

for v in vanilla patched; do
	out=$BUILD/out/bench-$v-hz$HZ
	rm -rf "$out"
	mkdir -p "$out"
	"$TOP/scripts/boot.sh" "${image[$v]}" "$out" \
		env BENCH_RUNTIME="$BENCH_RUNTIME" \
		"$TOP/scripts/guest-bench.sh" "$out" $runs ||
		die "benchmark on $v failed (logs in $out)"
done

mkdir -p "$RESULTS"
readme=
[ "$HZ" = 1000 ] && readme=--readme=$TOP/README.md
python3 "$TOP/scripts/analyze.py" --hz "$HZ" --out "$RESULTS" $readme \
	--base-version "$(cat "$DL/version")" \
	--accel "$(cat "$BUILD/out/bench-patched-hz$HZ/accel")" \
	--runtime "$BENCH_RUNTIME" --date "$started" \
	vanilla="$BUILD/out/bench-vanilla-hz$HZ" \
	patched="$BUILD/out/bench-patched-hz$HZ" $jobs
