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
# (fsync_loop.py) for BT_RUNTIME seconds.
# - The unlimited group's slowest fsync of a 4 KiB write, and its slowest
#   mkdir, create and rename made durable, at most 1 s (tight: 500 ms).
#   A flusher that queues seconds of the writer's limit makes them wait
#   seconds.
# - At most 1 MiB of the writer's pages under writeback at once (sampled
#   each second of the middle half of the run): the flusher has not queued
#   more than about a second of the limit. A flusher that queues all it
#   may leaves tens of MiB there, whether or not an fsync ran into them.
# - The writer is not killed by the OOM killer: the pages it has under
#   writeback cannot be reclaimed, and when they fill its memory.max, its
#   cgroup runs out of memory (vanilla 7.3's writer was, on ext4).
# - The writer is charged its limit, within 10% (tight: 5%), over the
#   middle half of the run: the flusher still keeps enough queued. A bio
#   is charged whole when it goes, and writeback's bios of large folios
#   can be hundreds of KiB: a few % of ten seconds at 1 MiB/s.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

MNT=$BT_OUTDIR/$BT_NAME-mnt
UNDO_MEMORY=
wb_cleanup() {
	mountpoint -q "$MNT" && umount "$MNT"
	[ -d "$MNT" ] && rmdir "$MNT"
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
ktap_set_plan 10
if ! grep -qw memory "$BT_CGROOT/cgroup.subtree_control"; then
	echo +memory >"$BT_CGROOT/cgroup.subtree_control" ||
		ktap_exit_fail_msg "cannot enable the memory controller"
	UNDO_MEMORY=1
fi
mkdir -p "$MNT"
half=$(awk -v t="$BT_RUNTIME" 'BEGIN { print t / 2 }')
quarter=$(awk -v t="$BT_RUNTIME" 'BEGIN { print t / 4 }')

# beside FS - the writer and the unlimited group on a new FS; five test
# points
beside() {
	local fs=$1 w o out=$BT_OUTDIR/$BT_NAME-writer.json fiopid looppid
	local t1 w1 t2 w2 prev secs q queued oom n_fsync fsync_ms n_meta meta_ms rate

	if ! command -v "mkfs.$fs" >/dev/null; then
		ktap_test_skip "$fs: the writer's pages under writeback (no mkfs.$fs)"
		ktap_test_skip "$fs: slowest fsync of 4 KiB beside a writer (no mkfs.$fs)"
		ktap_test_skip "$fs: slowest mkdir, create, rename beside the writer (no mkfs.$fs)"
		ktap_test_skip "$fs: the writer killed by the OOM killer (no mkfs.$fs)"
		ktap_test_skip "$fs: the writer's rate (no mkfs.$fs)"
		return
	fi
	case $fs in
	ext4) mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 -F "$BT_DEV" ;;
	xfs) mkfs.xfs -q -f "$BT_DEV" ;;
	esac >/dev/null || ktap_exit_fail_msg "cannot make $fs on $BT_DEV"
	mount "$BT_DEV" "$MNT" || ktap_exit_fail_msg "cannot mount $fs"
	mkdir "$MNT/o"
	w=$(bt_cgroup "$fs-writer")
	o=$(bt_cgroup "$fs-others")
	echo 256M >"$w/memory.max"
	echo "$BT_MAJMIN wbps=1048576" >"$w/io.max"

	# the writer runs until it is stopped; the others start once its
	# writeback has (the dirty background threshold reached: some
	# seconds on a slow machine)
	"${BT_IN_CGROUP[@]}" "$w" fio --name=writer --filename="$MNT/w" \
		--rw=write --bs=64k --size=640M --ioengine=psync --thread \
		--fallocate=none --time_based --runtime=3600 \
		--output="$out" >/dev/null 2>&1 &
	fiopid=$!
	for _ in $(seq $((BT_RUNTIME * 20))); do
		bt_started "$w" && break
		bt_sleep 0.1
	done
	bt_started "$w" ||
		ktap_exit_fail_msg "$fs: no writeback of the writer in $((BT_RUNTIME * 2)) s"
	"${BT_IN_CGROUP[@]}" "$o" python3 "$DIR/fsync_loop.py" "$MNT/o" \
		"$BT_RUNTIME" >"$BT_OUTDIR/$BT_NAME-loop" &
	looppid=$!
	bt_sleep "$quarter"
	read -r t1 _ w1 < <(bt_charged "$w")
	t2=$t1 w2=$w1 secs= queued=0
	for _ in $(seq "${half%.*}"); do
		prev=$w2
		bt_sleep 1
		read -r t2 _ w2 < <(bt_charged "$w")
		secs="$secs $(( (w2 - prev) / 1024 ))"
		q=$(awk '$1 == "file_writeback" { print $2 }' "$w/memory.stat")
		[ "${q:-0}" -le "$queued" ] || queued=$q
	done
	wait "$looppid" || ktap_exit_fail_msg "fsync_loop.py failed on $fs"
	kill "$fiopid" 2>/dev/null
	wait "$fiopid"
	oom=$(awk '$1 == "oom_kill" { print $2 }' "$w/memory.events")
	read -r n_fsync fsync_ms n_meta meta_ms <"$BT_OUTDIR/$BT_NAME-loop"
	rm -f "$BT_OUTDIR/$BT_NAME-loop"
	rate=$(awk -v a="$w1" -v b="$w2" -v s="$t1" -v e="$t2" \
		'BEGIN { printf "%.0f", (b - a) / (e - s) }')
	# the writer's dirty pages go at once when it is let go
	echo "$BT_MAJMIN wbps=max" >"$w/io.max"
	umount "$MNT" || ktap_exit_fail_msg "cannot unmount $fs"

	ktap_print_msg "$fs: $n_fsync fsyncs, slowest ${fsync_ms} ms; $n_meta" \
		"metadata operations, slowest ${meta_ms} ms; writer charged" \
		"$rate B/s (KiB a second:$secs), at most $((queued / 1024))" \
		"KiB under writeback"
	bt_at_most "$fs: the writer's pages under writeback, at most" \
		"$((queued / 1024))" 1024 KiB
	bt_at_most "$fs: slowest fsync of 4 KiB beside a writer at wbps=1MiB/s" \
		"${fsync_ms%.*}" "$(bt_bound 500 1000)" ms
	bt_at_most "$fs: slowest mkdir, create, rename beside the writer" \
		"${meta_ms%.*}" "$(bt_bound 500 1000)" ms
	bt_equal "$fs: the writer killed by the OOM killer under memory.max" \
		"${oom:-0}" 0 times
	bt_within "$fs: the writer's rate over the middle half of the run" \
		"$rate" 1048576 "$(bt_bound 5 10)" B/s
}

beside ext4
beside xfs

ktap_finished
