#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Side by side, in one run: build the vanilla base and the patched tree
# at HZ, boot each, run every bench/*.fio scenario (or those named in
# SCENARIOS), and write results/ (bench.json, bench.md, one PNG per
# scenario). HZ=1000 writes results/ and the README's table; any other
# HZ writes results/hzN/.
#
#   bench.sh [HZ]
#
# ROUNDS=N runs each scenario at least N times, in turn with the others;
# RESULTS=DIR writes there instead (and leaves the README alone).
set -u
. "$(dirname "$0")/lib.sh"

HZ=${1:-${HZ:-1000}}
readme= rerun=
if [ -n "${RESULTS:-}" ]; then
	rerun="make bench HZ=$HZ RESULTS=${RESULTS%/}"
	for v in SCENARIOS ROUNDS BENCH_RUNTIME; do
		[ -z "${!v:-}" ] || rerun="$rerun $v=\"${!v}\""
	done
	RESULTS=$(realpath -m "$RESULTS")
elif [ "$HZ" = 1000 ]; then
	RESULTS=$TOP/results
	readme=--readme=$TOP/README.md
else
	RESULTS=$TOP/results/hz$HZ
fi
SCENARIOS=${SCENARIOS:-$(cd "$TOP/bench" && ls *.fio | sed 's/\.fio$//')}
jobs=$(for s in $SCENARIOS; do echo "$TOP/bench/$s.fio"; done)

# rounds JOB - how many times to run JOB: its "; rounds:" or ROUNDS
rounds() {
	local n

	n=$(sed -n 's/^; rounds: //p' "$1")
	n=${n:-1}
	echo $((n > ${ROUNDS:-1} ? n : ${ROUNDS:-1}))
}
# every scenario once, then again those that ask for more rounds
most=1
for j in $jobs; do
	[ "$(rounds "$j")" -le "$most" ] || most=$(rounds "$j")
done
runs="$jobs $(for r in $(seq 2 "$most"); do
	for j in $jobs; do
		[ "$(rounds "$j")" -lt "$r" ] || echo "$j"
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
python3 "$TOP/scripts/analyze.py" --hz "$HZ" --out "$RESULTS" $readme \
	--base-version "$(cat "$DL/version")" \
	--accel "$(cat "$BUILD/out/bench-patched-hz$HZ/accel")" \
	--runtime "$BENCH_RUNTIME" --date "$started" ${rerun:+--rerun "$rerun"} \
	vanilla="$BUILD/out/bench-vanilla-hz$HZ" \
	patched="$BUILD/out/bench-patched-hz$HZ" $jobs
