#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Side by side, in one run: build the vanilla base and the patched tree
# at HZ, boot each, run the headline scenarios of bench/ (HEADLINE below;
# BENCH_FULL=1: every bench/*.fio; SCENARIOS: those named), and write
# results/ (bench.json, bench.md, one PNG per scenario). HZ=1000 writes
# results/ and the README's table; any other HZ writes results/hzN/.
# A guest's time limit follows from what it runs: per run, its runtime
# and two minutes for its set-up, and ten minutes to boot.
#
#   bench.sh [HZ]
#
# KERNELS: the kernels compared, vanilla first (default "vanilla
# patched"; "vanilla core patched" adds the series up to its pacing core,
# so that each follow-up's figures stand beside the core's). Each guest
# prints a line as each scenario ends: its headline figure, and the time
# left at the pace so far.
#
# ROUNDS=N runs each scenario at least N times, in turn with the others;
# RESULTS=DIR writes there instead (and leaves the README alone).
# BENCH_DISK=virtio runs them on a virtio-blk disk, not null_blk: a bio's
# issue then only queues it, and QEMU's own threads read the data
# (boot.sh's BOOT_DISK, a sparse 1 GiB file), where null_blk completes a
# bio in its submitter's context, memory-backed copying the data there.
# A scenario's null_blk attributes (seed000's 4 MB/s cap) do not apply;
# results/virtio-blk-hzHZ/ unless RESULTS says otherwise.
set -u
. "$(dirname "$0")/lib.sh"

HZ=${1:-${HZ:-1000}}
check_disk BENCH_DISK
# the command that reruns this run, for bench.md
rerun="make bench"
[ "$HZ" = 1000 ] || rerun="$rerun HZ=$HZ"
KERNELS=${KERNELS:-vanilla patched}
case " $KERNELS " in
" vanilla "*) ;;
*) die "KERNELS must start with vanilla" ;;
esac
case " $KERNELS " in
*" patched "*) ;;
*) die "KERNELS must name patched" ;;
esac
for v in RESULTS SCENARIOS ROUNDS BENCH_RUNTIME BENCH_DISK BENCH_FULL GUEST_CPUS BOOT_APPEND; do
	[ -z "${!v:-}" ] || rerun="$rerun $v=\"${!v}\""
done
[ "$KERNELS" = "vanilla patched" ] || rerun="$rerun KERNELS=\"$KERNELS\""
readme=
if [ -n "${RESULTS:-}" ]; then
	RESULTS=$(realpath -m "$RESULTS")
elif [ -n "${BENCH_DISK:-}" ]; then
	RESULTS=$TOP/results/$BENCH_DISK-blk-hz$HZ
elif [ "$HZ" = 1000 ]; then
	RESULTS=$TOP/results
	readme=--readme=$TOP/README.md
else
	RESULTS=$TOP/results/hz$HZ
fi
if [ "${BENCH_FULL:-0}" = 1 ]; then
	SCENARIOS=${SCENARIOS:-$(cd "$TOP/bench" && ls *.fio | sed 's/\.fio$//')}
fi
SCENARIOS=${SCENARIOS:-$BENCH_HEADLINE}
jobs=$(for s in $SCENARIOS; do echo "$TOP/bench/$s.fio"; done)

# how many times to run each job: its "; rounds:" or ROUNDS, the more
declare -A rounds
most=1
for j in $jobs; do
	n=$(sed -n 's/^; rounds: //p' "$j")
	rounds[$j]=$(( ${n:-1} > ${ROUNDS:-1} ? ${n:-1} : ${ROUNDS:-1} ))
	[ "${rounds[$j]}" -le "$most" ] || most=${rounds[$j]}
done
# every scenario once, then again those that ask for more rounds
runs="$jobs $(for r in $(seq 2 "$most"); do
	for j in $jobs; do
		[ "${rounds[$j]}" -lt "$r" ] || echo "$j"
	done
done)"
export BENCH_RUNTIME=${BENCH_RUNTIME:-20}

started=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# Build them all first: a build failure stops us before any timing.
declare -A image
for v in $KERNELS; do
	image[$v]=$("$TOP/scripts/pipeline/build.sh" "$v" "$HZ") || exit 1
done

nruns=$(echo $runs | wc -w)
total=$(( nruns * $(echo $KERNELS | wc -w) ))
done_runs=0
for v in $KERNELS; do
	out=$BUILD/out/bench-$v-hz$HZ
	rm -rf "$out"
	mkdir -p "$out"
	# the list goes in a file: on the kernel's command line, which
	# carries the guest's command, it would not fit
	printf '%s\n' $runs >"$out/runs"
	use_disk "${BENCH_DISK:-}" "$out"
	BOOT_TIMEOUT=$(( $(wc -w <"$out/runs") * (BENCH_RUNTIME + 120) + 600 )) \
		"$TOP/scripts/pipeline/boot.sh" "${image[$v]}" "$out" \
		env BENCH_RUNTIME="$BENCH_RUNTIME" "${DISK_ENV[@]}" \
		BENCH_PROGRESS="$v $done_runs $total" \
		"$TOP/scripts/pipeline/bench-guest.sh" "$out" ||
		die "benchmark on $v failed (logs in $out)"
	rm -f "$out/disk.img"
	done_runs=$((done_runs + nruns))
done
device=()
[ -z "${BENCH_DISK:-}" ] || device=(--device "a $BENCH_DISK-blk disk")

mkdir -p "$RESULTS"
python3 "$TOP/scripts/analysis/analyze.py" --hz "$HZ" --out "$RESULTS" $readme \
	--base-version "$(cat "$DL/version")" \
	--accel "$(cat "$BUILD/out/bench-patched-hz$HZ/accel")" \
	--runtime "$BENCH_RUNTIME" --date "$started" --rerun "$rerun" \
	--patched-tree "$(kernel_tree patched)" \
	"${device[@]}" \
	$(for v in $KERNELS; do echo "$v=$BUILD/out/bench-$v-hz$HZ"; done) $jobs
