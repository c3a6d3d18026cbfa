#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A buffered writer held at its limit must not hold up other groups. Its
# pages are written back in its name (cgroup writeback), and whoever needs
# one of them written waits for all that the flusher queued before it: a
# journal commit, and so any fsync on the filesystem, waits for as much of
# the writer's limit as the flusher has queued at it.
#
# On ext4, and on XFS if mkfs.xfs is there, on the test device: a group
# writes buffered, 64 KiB at a time, as fast as it may, under
# wbps=1MiB/s and memory.max=256M; once its writeback has begun, a group
# with no limit beside it makes small writes and metadata durable
# (fsync_loop.py) for BT_RUNTIME seconds. Then with no memory.max, on
# ext4 and on XFS, where the writer's dirty pages are bounded only by
# the machine's dirty limits; and on ext4 on a dm-linear device over the
# test device, with the limit set on the dm device, as systemd and
# container runtimes set it on LVM.
# - The unlimited group's slowest fsync of a 4 KiB write, and its slowest
#   mkdir, create and rename made durable, at most 1 s (tight: 500 ms).
#   A flusher that queues seconds of the writer's limit makes them wait
#   seconds.
# - At most 1 MiB of the writer's pages under writeback at once (sampled
#   each second of the middle half of the run): the flusher has not queued
#   more than about a second of the limit. A flusher that queues all it
#   may leaves tens of MiB there, whether or not an fsync ran into them
#   (vanilla 7.3 on XFS without memory.max: the whole 640 MiB written,
#   charged in one second after 40 s of nothing).
# - Under memory.max, the writer is not killed by the OOM killer: the
#   pages it has under writeback cannot be reclaimed, and when they fill
#   its memory.max, its cgroup runs out of memory (vanilla 7.3's writer
#   is, in some runs).
# - The writer is charged its limit, within 10% (tight: 4%), in every
#   5 s window of the middle half of the run (sampled each second): the
#   flusher still keeps enough queued, and never so much that the
#   writer's charge comes in bursts. A bio is charged whole when it goes,
#   and a window's edge falls before or after one: a second's charge
#   swung by up to 188 KiB in one run, 3.6% of five seconds at 1 MiB/s
#   (its windows: at most 2.4% off over the runs).
#
# Then sixteen such writers, each in a group of its own under
# memory.max=64M, on ext4 on the test device, and a group with no limit
# that writes 128 MiB to ext4 on a second null_blk device and fsyncs.
# That device writes 100 MiB/s (null_blk's mbps), so that the write
# waits for its disk, as on real hardware, and not for the guest's CPU:
# - beside the sixteen, the write takes at most 1.2x (wide: 1.5x) the
#   time it took alone a moment before, while the unlimited group fsyncs
#   on the test device, and again later, the fsyncs done: a flusher held
#   for a limited group holds no worker, and no share of the machine's
#   dirty limits, that another disk's writeback needs. 0.87x to 0.88x
#   measured (vanilla 7.3: 0.86x to 1.04x; the core alone: 0.88x to
#   1.04x): alone, the write's writeback begins at its fsync, 1,500 ms
#   against the disk's 1,280; beside the sixteen the machine is past its
#   background dirty threshold, and it begins at once. (On a
#   null_blk as fast as the CPU, the write is CPU-bound and measures the
#   share of the one vCPU the sixteen leave it: 1.08x to 1.24x.)
# - the unlimited group's slowest fsync and metadata operation on the
#   first device at most 1 s (wide: 2 s) (176 to 539 ms measured;
#   vanilla 7.3: 2.9 to 11.8 s). What it waits for is the journal: ext4
#   reserves journal credits for each extent it writes back, some 26 on
#   this filesystem, until the extent's IO has completed, and jbd2 lets
#   at most half a transaction be reserved. The sixteen's extents in
#   flight, three or so each while their bios wait for their limits,
#   fill that half of the 32 MiB journal mkfs gives a 1 GiB device, and
#   the fsync's own writeback waits in jbd2 for one of them to complete.
#   Vanilla's flushers queue seconds of their limits, so its fsync waits
#   seconds.
# Then the sixteen and the fsyncs again (no second device), on a 128 MiB
# journal, as mkfs gives a 16 to 32 GiB filesystem, where the sixteen's
# extents reserve less than that half:
# - the slowest fsync or metadata operation at most 100 ms (wide:
#   250 ms): 3 to 7 ms measured. Vanilla's and the core's flushers queue
#   seconds of the limits, in extents of megabytes, and fill the half or
#   not by the run: 7.3's fsync waited 10 ms in one run and 10.8 s in
#   another, the core alone's 3 ms and 7.9 s.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

UNDO_MEMORY=
wb_cleanup() {
	bt_cleanup
	[ -n "$UNDO_MEMORY" ] &&
		echo -memory >"$BT_CGROOT/cgroup.subtree_control" 2>/dev/null
}
trap wb_cleanup EXIT

ktap_print_header
bt_require
bt_require_nullb "writeback.sh makes filesystems"
BT_MEMORY_BACKED=1
bt_setup_dev
ktap_set_plan 27
if ! grep -qw memory "$BT_CGROOT/cgroup.subtree_control"; then
	echo +memory >"$BT_CGROOT/cgroup.subtree_control" ||
		ktap_exit_fail_msg "cannot enable the memory controller"
	UNDO_MEMORY=1
fi
mkdir -p "$BT_MNT"
half=$(awk -v t="$BT_RUNTIME" 'BEGIN { print t / 2 }')
quarter=$(awk -v t="$BT_RUNTIME" 'BEGIN { print t / 4 }')
NULLB_DEV=$BT_DEV
NULLB_MAJMIN=$BT_MAJMIN
OTHER_MBPS=100	# the second device's rate, MiB/s

# skip_all LABEL WHY MEMORY_MAX - beside's test points, skipped (the OOM
# killer's unless MEMORY_MAX is max)
skip_all() {
	ktap_test_skip "$1: the writer's pages under writeback ($2)"
	ktap_test_skip "$1: slowest fsync of 4 KiB beside a writer ($2)"
	ktap_test_skip "$1: slowest mkdir, create, rename beside the writer ($2)"
	[ "$3" = max ] ||
		ktap_test_skip "$1: the writer killed by the OOM killer ($2)"
	ktap_test_skip "$1: the writer's rate ($2)"
}

# beside FS MEMORY_MAX DEV MAJMIN [LABEL] - the writer and the unlimited
# group on a new FS on DEV, the limit on MAJMIN, the writer's memory.max
# MEMORY_MAX, the checks named LABEL (default FS); five test points,
# four with MEMORY_MAX=max (no OOM check)
beside() {
	local fs=$1 mem=$2 label=${5:-$1} w o out=$BT_OUTDIR/$BT_NAME-writer.json
	local looppid t b ts bs secs q queued oom events
	local n_fsync fsync_ms n_meta meta_ms rate

	if ! command -v "mkfs.$fs" >/dev/null; then
		skip_all "$label" "no mkfs.$fs" "$mem"
		return
	fi
	BT_DEV=$3 BT_MAJMIN=$4

	case $fs in
	ext4) mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 -F "$BT_DEV" ;;
	xfs) mkfs.xfs -q -f "$BT_DEV" ;;
	esac >/dev/null || ktap_exit_fail_msg "cannot make $fs on $BT_DEV"
	mount "$BT_DEV" "$BT_MNT" || ktap_exit_fail_msg "cannot mount $fs"
	mkdir "$BT_MNT/o"
	w=$(bt_cgroup "${label// /-}-writer")
	o=$(bt_cgroup "${label// /-}-others")
	echo "$mem" >"$w/memory.max"
	echo "$BT_MAJMIN wbps=1048576" >"$w/io.max"
	# the writer runs until it is stopped; the others start once its
	# writeback has (the dirty background threshold reached: some
	# seconds on a slow machine). It writes and nothing else: fio's
	# default invalidation, posix_fadvise(POSIX_FADV_DONTNEED) each time
	# it starts the file again, would have the writer's own task write
	# back every dirty page of the file at once, not the flusher.
	"${BT_IN_CGROUP[@]}" "$w" fio --name=writer --filename="$BT_MNT/w" \
		--rw=write --bs=64k --size=640M --ioengine=psync --thread \
		--fallocate=none --invalidate=0 --time_based --runtime=3600 \
		--output="$out" >/dev/null 2>&1 &
	BT_PIDS=$!
	# (a kernel that holds the writer's first bio for longer, if it
	# is as large as many seconds of the limit, fails the checks below)
	bt_wait_started "$w" $((BT_RUNTIME * 2)) ||
		ktap_print_msg "$label: the writer charged nothing in $((BT_RUNTIME * 2)) s"
	"${BT_IN_CGROUP[@]}" "$o" python3 "$DIR/fsync_loop.py" "$BT_MNT/o" \
		"$BT_RUNTIME" >"$BT_OUTDIR/$BT_NAME-loop" &
	looppid=$!
	bt_sleep "$quarter"
	read -r t _ b < <(bt_charged "$w")
	ts=("$t") bs=("$b") queued=0
	for _ in $(seq "${half%.*}"); do
		bt_sleep 1
		read -r t _ b < <(bt_charged "$w")
		ts+=("$t") bs+=("$b")
		q=$(awk '$1 == "file_writeback" { print $2 }' "$w/memory.stat")
		[ "${q:-0}" -le "$queued" ] || queued=$q
	done
	wait "$looppid" || ktap_exit_fail_msg "fsync_loop.py failed on $label"
	bt_stop_tasks
	oom=$(awk '$1 == "oom_kill" { print $2 }' "$w/memory.events")
	events=$(awk '{ printf " %s %s", $1, $2 }' "$w/memory.events")
	read -r n_fsync fsync_ms n_meta meta_ms <"$BT_OUTDIR/$BT_NAME-loop"
	rm -f "$BT_OUTDIR/$BT_NAME-loop"
	# the rate of the 5 s window farthest from the limit (the whole
	# span if it is shorter), and the KiB charged in each second
	read -r rate secs < <(awk -v t="${ts[*]}" -v b="${bs[*]}" -v lim=1048576 'BEGIN {
		n = split(t, ts); split(b, bs); k = n > 5 ? 5 : n - 1
		for (i = 2; i <= n; i++)
			secs = secs " " int((bs[i] - bs[i - 1]) / 1024)
		if (k < 1) { print 0, secs; exit }
		for (i = k + 1; i <= n; i++) {
			r = (bs[i] - bs[i - k]) / (ts[i] - ts[i - k])
			d = r > lim ? r - lim : lim - r
			if (i == k + 1 || d > worst) { worst = d; rate = r }
		}
		printf "%.0f%s\n", rate, secs }')
	# the writer's dirty pages go at once when it is let go
	echo "$BT_MAJMIN wbps=max" >"$w/io.max"
	umount "$BT_MNT" || ktap_exit_fail_msg "cannot unmount $label"

	ktap_print_msg "$label: $n_fsync fsyncs, slowest ${fsync_ms} ms; $n_meta" \
		"metadata operations, slowest ${meta_ms} ms; writer charged" \
		"$rate B/s in its farthest 5 s (KiB a second: $secs), at" \
		"most $((queued / 1024)) KiB under writeback; its" \
		"memory.events:$events"
	bt_at_most "$label: the writer's pages under writeback, at most" \
		"$((queued / 1024))" 1024 KiB
	bt_at_most "$label: slowest fsync of 4 KiB beside a writer at wbps=1MiB/s" \
		"${fsync_ms%.*}" "$(bt_bound 500 1000)" ms
	bt_at_most "$label: slowest mkdir, create, rename beside the writer" \
		"${meta_ms%.*}" "$(bt_bound 500 1000)" ms
	[ "$mem" = max ] ||
		bt_equal "$label: the writer killed by the OOM killer under memory.max" \
			"${oom:-0}" 0 times
	bt_within "$label: the writer's rate in every 5 s of the middle half" \
		"$rate" 1048576 "$(bt_bound 4 10)" B/s
}

# usage_ms CGROUP... - the CPU time the cgroups' tasks have used, in ms
usage_ms() {
	local cg

	for cg in "$@"; do
		cat "$cg/cpu.stat"
	done | awk '$1 == "usage_usec" { u += $2 } END { printf "%.0f\n", u / 1000 }'
}

# write_other CGROUP NAME - in CGROUP, write 128 MiB to NAME on the
# second device and fsync it; WROTE_MS is the time it took
write_other() {
	"${BT_IN_CGROUP[@]}" "$1" dd if=/dev/zero of="$BT_MNT-2/$2" bs=1M \
		count=128 conv=fsync 2>"$BT_OUTDIR/$BT_NAME-dd" ||
		ktap_exit_fail_msg "dd failed: $(cat "$BT_OUTDIR/$BT_NAME-dd")"
	read -r _ WROTE_MS < <(bt_dd_time "$BT_OUTDIR/$BT_NAME-dd")
	[ "${WROTE_MS:-0}" -gt 0 ] ||
		ktap_exit_fail_msg "no time in dd's output: $(cat "$BT_OUTDIR/$BT_NAME-dd")"
}

# scale TAG LABEL JOURNAL_MIB TIGHT_MS WIDE_MS [OTHER] - sixteen limited
# writers (cgroups TAG-1 to TAG-16) on the test device, its ext4 with a
# journal of JOURNAL_MIB (mkfs's default if empty), beside them an
# unlimited group that fsyncs, its slowest at most TIGHT_MS (wide:
# WIDE_MS); test points named LABEL. With OTHER, an unlimited writer on
# a second device (OTHER_MBPS) too: how long it takes to write 128 MiB
# and fsync them alone, then beside the sixteen while the group fsyncs,
# and again after; three test points, else one
scale() {
	local tag=$1 label=$2 journal=${3:+-J size=$3} tight=$4 wide=$5
	local other=${6:-}
	local dev2=/dev/${BT_NAME}b d i w o alone beside ratio
	local looppid n_fsync fsync_ms n_meta meta_ms worst ws=() later
	local cpu0 cpu_alone cpu16_beside

	BT_DEV=$NULLB_DEV BT_MAJMIN=$NULLB_MAJMIN
	if [ -n "$other" ]; then
		[ -b "$dev2" ] || bt_make_nullb "${BT_NAME}b" "$OTHER_MBPS"
		mkdir -p "$BT_MNT-2"
		mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 -F \
			"$dev2" >/dev/null || ktap_exit_fail_msg "cannot make ext4 on $dev2"
		mount "$dev2" "$BT_MNT-2" ||
			ktap_exit_fail_msg "cannot mount $dev2"
	fi
	# shellcheck disable=SC2086 # $journal is two words or none
	mkfs.ext4 -q $journal -E lazy_itable_init=0,lazy_journal_init=0 -F \
		"$BT_DEV" >/dev/null || ktap_exit_fail_msg "cannot make ext4 on $BT_DEV"
	mount "$BT_DEV" "$BT_MNT" || ktap_exit_fail_msg "cannot mount $BT_DEV"
	mkdir "$BT_MNT/o"
	o=$(bt_cgroup "$tag-free")

	# the unlimited writer on the second device, alone
	if [ -n "$other" ]; then
		cpu0=$(usage_ms "$o")
		write_other "$o" alone
		alone=$WROTE_MS
		cpu_alone=$(($(usage_ms "$o") - cpu0))
	fi

	# sixteen limited writers on the test device, in their stride
	for i in $(seq 16); do
		w=$(bt_cgroup "$tag-$i")
		ws+=("$w")
		echo 64M >"$w/memory.max"
		echo "$BT_MAJMIN wbps=1048576" >"$w/io.max"
		"${BT_IN_CGROUP[@]}" "$w" fio --name="w$i" \
			--filename="$BT_MNT/w$i" --rw=write --bs=64k \
			--size=256M --ioengine=psync \
			--thread --fallocate=none --invalidate=0 \
			--time_based --runtime=3600 \
			--output=/dev/null >/dev/null 2>&1 &
		BT_PIDS="$BT_PIDS $!"
	done
	bt_wait_started "$w" $((BT_RUNTIME * 2)) ||
		ktap_print_msg "$label: the last writer charged nothing in $((BT_RUNTIME * 2)) s"
	bt_sleep "$quarter"
	"${BT_IN_CGROUP[@]}" "$o" python3 "$DIR/fsync_loop.py" "$BT_MNT/o" \
		"$half" >"$BT_OUTDIR/$BT_NAME-loop" &
	looppid=$!
	bt_sleep "$quarter"
	if [ -n "$other" ]; then
		cpu0=$(usage_ms "${ws[@]}")
		write_other "$o" beside
		beside=$WROTE_MS
		cpu16_beside=$(($(usage_ms "${ws[@]}") - cpu0))
	fi
	wait "$looppid" || ktap_exit_fail_msg "fsync_loop.py failed on $label"
	if [ -n "$other" ]; then
		write_other "$o" later
		later=$WROTE_MS
	fi
	read -r n_fsync fsync_ms n_meta meta_ms <"$BT_OUTDIR/$BT_NAME-loop"
	rm -f "$BT_OUTDIR/$BT_NAME-loop" "$BT_OUTDIR/$BT_NAME-dd"
	bt_stop_tasks
	for i in $(seq 16); do
		echo "$BT_MAJMIN wbps=max" >"$BT_CGROOT/$BT_NAME-$tag-$i/io.max"
	done
	umount "$BT_MNT" && { [ -z "$other" ] || umount "$BT_MNT-2"; } ||
		ktap_exit_fail_msg "cannot unmount $label's filesystems"

	ktap_print_msg "$label: on the first device $n_fsync fsyncs, slowest" \
		"${fsync_ms} ms, $n_meta metadata operations, slowest ${meta_ms} ms"
	worst=$(awk -v a="$fsync_ms" -v b="$meta_ms" \
		'BEGIN { printf "%.0f", (a > b ? a : b) }')
	if [ -n "$other" ]; then
		ktap_print_msg "$label: 128 MiB written and fsynced on the" \
			"second device, of $OTHER_MBPS MiB/s ($((128000 / OTHER_MBPS))" \
			"ms), in $alone ms alone ($cpu_alone ms of CPU)," \
			"$beside ms beside the sixteen (their tasks" \
			"$cpu16_beside ms of CPU), $later ms later"
		d="$label: another disk's 128 MiB and fsync beside 16 limited writers,"
		ratio=$(awk -v a="$alone" -v b="$beside" 'BEGIN { printf "%.2f", b / a }')
		bt_at_most "$d time to alone" "$ratio" "$(bt_bound 1.2 1.5)" x
		ratio=$(awk -v a="$alone" -v b="$later" 'BEGIN { printf "%.2f", b / a }')
		bt_at_most "$d fsyncs done, time to alone" "$ratio" "$(bt_bound 1.2 1.5)" x
	fi
	bt_at_most "$label: slowest fsync or metadata operation beside 16 limited writers" \
		"$worst" "$(bt_bound "$tight" "$wide")" ms
}

beside ext4 256M "$NULLB_DEV" "$NULLB_MAJMIN"
beside xfs 256M "$NULLB_DEV" "$NULLB_MAJMIN"
beside ext4 max "$NULLB_DEV" "$NULLB_MAJMIN" "ext4 without memory.max"
beside xfs max "$NULLB_DEV" "$NULLB_MAJMIN" "xfs without memory.max"
if bt_make_linear "$NULLB_DEV" "$NULLB_MAJMIN"; then
	beside ext4 256M "$BT_LINEAR_DEV" "$BT_LINEAR_MAJMIN" "ext4 on dm-linear"
	bt_remove_linear
else
	skip_all "ext4 on dm-linear" "no dmsetup or CONFIG_BLK_DEV_DM" 256M
fi
scale wb16 scale "" 1000 2000 other
scale wb16-j128 "scale, 128 MiB journal" 128 100 250

ktap_finished
