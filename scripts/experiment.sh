#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An experiment beside the series: bench/ scenarios on several kernels of
# one tree, one guest each, in turn, and their figures side by side
# (experiment-table.py). A kernel is vanilla, patched, patch-N or the
# series with bench/NAME.patch on top (see prepare-tree.sh).
#
#   experiment.sh OUTDIR KERNEL... -- SCENARIO...
#
# A SCENARIO is the name of one of bench/*.fio, or the path of a .fio
# file written as they are (a variant kept beside its results).
#
# Each kernel's raw files go to OUTDIR/KERNEL/ (as make bench writes
# them), the table to OUTDIR/table.md and stdout. CLOCK=virtual runs the
# guests on QEMU's virtual clock (lib.sh); READS=1 prints the readers'
# columns in place of the buffered writers'; NO_BUILD=1 boots the images
# already built; HZ and BENCH_RUNTIME as for bench.sh.
set -u
. "$(dirname "$0")/lib.sh"

OUTDIR=${1:?usage: experiment.sh OUTDIR KERNEL... -- SCENARIO...}
shift
kernels=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	kernels+=("$1")
	shift
done
[ $# -gt 1 ] && [ ${#kernels[@]} -gt 0 ] ||
	die "usage: experiment.sh OUTDIR KERNEL... -- SCENARIO..."
shift
HZ=${HZ:-1000}
jobs=$(for s in "$@"; do
	case $s in
	*.fio) realpath "$s" ;;
	*) echo "$TOP/bench/$s.fio" ;;
	esac
done)
names=$(for j in $jobs; do basename "$j" .fio; done)
use_clock

# Build them all first: a build failure stops us before any timing.
declare -A image
for k in "${kernels[@]}"; do
	image[$k]=$(kernel_image "$k" "$HZ") || exit 1
done

args=()
for k in "${kernels[@]}"; do
	out=$OUTDIR/$k
	rm -rf "$out"
	mkdir -p "$out"
	say "experiment: $k (${CLOCK:-host} clock)"
	"$TOP/scripts/boot.sh" "${image[$k]}" "$out" \
		env BENCH_RUNTIME="${BENCH_RUNTIME:-20}" \
		"$TOP/scripts/guest-bench.sh" "$out" $jobs >"$out/host.log" 2>&1 ||
		die "$k failed (logs in $out)"
	head -1 "$(dirname "${image[$k]}")/commit" >"$out/commit"
	args+=("$k=$out")
done
python3 "$TOP/scripts/experiment-table.py" ${READS:+--reads} "${args[@]}" \
	-- $names | tee "$OUTDIR/table.md"
