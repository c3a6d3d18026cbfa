#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest instructions per IO, counted, not timed: TCG has no PMU, so a
# QEMU plugin (insn-count.c) counts every instruction the guest executes,
# per kernel translation block. Builds each variant (build.sh,
# incremental), boots it with one vCPU, runs insn-guest.sh's fio runs
# between markers (insn-mark.c), and prints insn-report.py's table: instructions
# per IO in all, in the kernel, in block/blk-throttle.c, and the
# functions whose cost per IO differs most between the variants.
#
#   insn-count.sh [N]      N IOs per short run (default 30000), 2N per long
#
# ROUNDS (default 2) pairs of runs per workload, their spread shown.
# INSN_PARTS (default "direct groups buffered") picks which of
# insn-guest.sh's workloads to run.
# VARIANTS (default "vanilla patched", see tree.sh) and
# HZ (default 1000) pick the kernels. Results: build/out/insn-count/VARIANT/
# (or INSN_OUT/VARIANT), the table also in INSN_OUT/report.md.
# NO_BUILD=1 counts on the images already in build/images, as they are
# (each variant's commit is copied beside its counts): for a machine
# whose one build slot is taken; the counts do not depend on its load.
# INSN_DISK=virtio counts on a virtio-blk disk (boot.sh's BOOT_DISK, a
# sparse 1 GiB file, as bench.sh's BENCH_DISK), not on null_blk: a read
# then costs the guest its virtio path and its interrupt. INSN_RA_KB=K
# reads ahead K KiB in the buffered runs (7.3 reads ahead 8 MiB on the
# virtio-blk disk: some 15 windows in 30,000 reads of 4 KiB).
#
# Functions are named from the image's System.map and the blk-throttle.o
# it was built from, which build.sh keeps next to bzImage.
#
# The guest runs with -icount shift=0,sleep=off: its clock advances one
# ns per instruction and jumps over idle time, so timers fire after so
# many instructions, not after so much host time (and throttled waits
# cost no host time); TCG then runs single-threaded. And with nohz=off
# (INSN_APPEND overrides it): with the tick stopped in idle, whether it
# stops depends on RCU callbacks pending, and the throttled runs' counts
# moved by 2-3% from one run to the next; with a periodic tick, <1%.
set -eu
. "$(dirname "$0")/../pipeline/lib.sh"

N=${1:-30000}
ROUNDS=${ROUNDS:-2}
HZ=${HZ:-1000}
VARIANTS=${VARIANTS:-vanilla patched}
INSN_OUT=${INSN_OUT:-$BUILD/out/insn-count}
check_disk INSN_DISK

# No glib: the plugin declares the API it uses and keeps its own table.
say "building the plugin and the marker"
gcc -shared -fPIC -O2 -Wall -fvisibility=hidden -o "$BUILD/insn-count.so" \
	"$TOP/scripts/instruments/insn-count.c"
# static: no dynamic loader work between the marker and fio
gcc -O2 -static -o "$BUILD/insn-mark" "$TOP/scripts/instruments/insn-mark.c"

mkdir -p "$INSN_OUT"
dirs=()
for v in $VARIANTS; do
	bz=$(kernel_image "$v" "$HZ") || exit 1
	img=$(dirname "$bz")
	out=$INSN_OUT/$v
	rm -rf "$out"
	mkdir -p "$out"
	cp "$img/commit" "$out/"
	# a copy of the symbols, so that a later build cannot change them
	cp "$img/System.map" "$img/blk-throttle.o" "$out/"
	use_disk "${INSN_DISK:-}" "$out"
	ACCEL=tcg GUEST_CPUS=1 GUEST_MEM=1G BOOT_APPEND=${INSN_APPEND-nohz=off} \
	BOOT_QEMU_OPTS="$ICOUNT_OPTS -plugin $BUILD/insn-count.so,out=$out/counts" \
		"$TOP/scripts/pipeline/boot.sh" "$img/bzImage" "$out" env "${DISK_ENV[@]}" \
		${INSN_RA_KB:+"INSN_RA_KB=$INSN_RA_KB"} \
		"$TOP/scripts/instruments/insn-guest.sh" "$out" "$N" "$ROUNDS" "$BUILD/insn-mark" \
		"${INSN_PARTS:-direct groups buffered}" ||
		die "counting on $v failed (logs in $out)"
	rm -f "$out/disk.img"
	dirs+=("$v=$out")
done

disk=()
[ -z "${INSN_DISK:-}" ] || disk=(--disk="a $INSN_DISK-blk disk")
python3 "$TOP/scripts/analysis/insn-report.py" "${disk[@]}" "${dirs[@]}" |
	tee "$INSN_OUT/report.md"
