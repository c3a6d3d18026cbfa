#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Writeback a task asks for and does not wait for stays within reach of
# its cgroup's limit, as the flusher's does. fadvise(POSIX_FADV_DONTNEED)
# and sync_file_range(SYNC_FILE_RANGE_WRITE) start writeback of a range
# from the caller's own task; if they started all of it, the limit would
# hold it all under writeback, out of reclaim's reach, and whoever needs
# one of those pages written would wait for all that came before it.
#
# On ext4 on the test device, for each of the two calls: a group with no
# memory.max, under wbps=1MiB/s, writes buffered, 64 KiB at a time, and
# makes the call over each MiB it has written, as a database smoothing
# its writes does; once its writeback has begun, a group with no limit
# makes small writes and metadata durable (fsync_loop.py) for half of
# BT_RUNTIME, and the machine's pages under writeback are sampled every
# 100 ms.
# - The writer keeps its limit, within 10% (tight: 4%) over that time:
#   the call bounds the queue, not the rate.
# - At most 1 MiB under writeback (a quarter of a second of the limit is
#   the flusher's bound). Calls that start all they are asked for leave
#   tens of MiB there (7.3: 41 MiB, as much as dirty throttling lets the
#   writer dirty before it waits).
# - The other group's slowest fsync of a 4 KiB write, and its slowest
#   mkdir, create and rename made durable, at most 1 s (tight: 500 ms).
#   7.3's fsyncs wait up to 2 s each (6 in 10 s), the series' 5 ms at most.
# Then 4 MiB written in a new group at wbps=1MiB/s, nothing of it queued
# yet, and the call made once over the file:
# - The group is charged 128 KiB to 1 MiB in the next 3 s: the call
#   starts what the flusher could queue now (about a quarter of a second
#   of the limit: 384 KiB measured), not nothing, and not all 4 MiB
#   (7.3 queues all of it, and 2 MiB has gone by then).
# Then, in a group with no limit, 16 MiB written and the call made once:
# - By the time the call returns, the group has been charged all 16 MiB
#   but 1 MiB at most: where nothing holds a cgroup back, the call
#   starts all, as before.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

ktap_print_header
bt_require
bt_require_nullb "writeback_hints.sh makes a filesystem"
BT_MEMORY_BACKED=1
bt_setup_dev
ktap_set_plan 12
mkdir -p "$BT_MNT"
half=$(awk -v t="$BT_RUNTIME" 'BEGIN { print t / 2 }')
quarter=$(awk -v t="$BT_RUNTIME" 'BEGIN { print t / 4 }')

# python3 -c "$HINTS" CALL FILE MIB - write MIB MiB to FILE (for ever if
# 0), 64 KiB at a time, and make CALL (dontneed or sync_file_range) over
# each MiB written, or over the whole file once it is written
HINTS='
import ctypes, os, sys
call, path, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
sfr = ctypes.CDLL(None, use_errno=True).sync_file_range
sfr.argtypes = (ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_uint)
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
chunk = b"\1" * 65536
def hint(off, n):
    if call == "dontneed":
        os.posix_fadvise(fd, off, n, os.POSIX_FADV_DONTNEED)
    elif sfr(fd, off, n, 2):	# SYNC_FILE_RANGE_WRITE
        sys.exit(os.strerror(ctypes.get_errno()))
i = 0
while not mib or i < mib:
    for _ in range(16):
        os.write(fd, chunk)
    if not mib:
        hint(i << 20, 1 << 20)
    i += 1
if mib:
    hint(0, 0)
'

# writeback_kib - set KIB to the machine's pages under writeback, in
# KiB, read by the shell itself: no program is started ten times a second
writeback_kib() {
	local key val _

	KIB=0
	while read -r key val _; do
		[ "$key" = Writeback: ] && KIB=$val && return
	done </proc/meminfo
}

for call in dontneed sync_file_range; do
	case $call in
	dontneed) what="fadvise(POSIX_FADV_DONTNEED)" ;;
	*) what="sync_file_range(SYNC_FILE_RANGE_WRITE)" ;;
	esac
	mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 -F "$BT_DEV" \
		>/dev/null || ktap_exit_fail_msg "cannot make ext4"
	mount "$BT_DEV" "$BT_MNT" || ktap_exit_fail_msg "cannot mount ext4"
	mkdir "$BT_MNT/o"
	w=$(bt_cgroup "$call-writer")
	o=$(bt_cgroup "$call-others")
	free=$(bt_cgroup "$call-free")
	echo "$BT_MAJMIN wbps=1048576" >"$w/io.max"

	"${BT_IN_CGROUP[@]}" "$w" python3 -c "$HINTS" "$call" "$BT_MNT/w" 0 &
	BT_PIDS=$!
	bt_wait_started "$w" $((BT_RUNTIME * 2)) ||
		ktap_print_msg "$what: the writer charged nothing in $((BT_RUNTIME * 2)) s"
	"${BT_IN_CGROUP[@]}" "$o" python3 "$DIR/fsync_loop.py" "$BT_MNT/o" \
		"$half" >"$BT_OUTDIR/$BT_NAME-loop" &
	looppid=$!
	read -r t0 _ b0 < <(bt_charged "$w")
	queued=0
	for _ in $(seq $((${half%.*} * 10))); do
		bt_sleep 0.1
		writeback_kib
		[ "$KIB" -le "$queued" ] || queued=$KIB
	done
	read -r t1 _ b1 < <(bt_charged "$w")
	wait "$looppid" || ktap_exit_fail_msg "fsync_loop.py failed"
	bt_stop_tasks
	read -r n_fsync fsync_ms n_meta meta_ms <"$BT_OUTDIR/$BT_NAME-loop"
	rm -f "$BT_OUTDIR/$BT_NAME-loop"
	rate=$(awk -v b="$((b1 - b0))" -v t="$t0" -v u="$t1" \
		'BEGIN { printf "%.0f", b / (u - t) }')
	echo "$BT_MAJMIN wbps=max" >"$w/io.max"
	sync

	idle=$(bt_cgroup "$call-idle")
	echo "$BT_MAJMIN wbps=1048576" >"$idle/io.max"
	"${BT_IN_CGROUP[@]}" "$idle" python3 -c "$HINTS" "$call" \
		"$BT_MNT/i" 4 || ktap_exit_fail_msg "$what failed at wbps=1MiB/s"
	bt_sleep 3
	read -r _ _ once < <(bt_charged "$idle")
	echo "$BT_MAJMIN wbps=max" >"$idle/io.max"
	sync

	"${BT_IN_CGROUP[@]}" "$free" python3 -c "$HINTS" "$call" \
		"$BT_MNT/f" 16 || ktap_exit_fail_msg "$what failed with no limit"
	read -r _ _ started < <(bt_charged "$free")
	started=$((started / 1024))
	umount "$BT_MNT" || ktap_exit_fail_msg "cannot unmount ext4"

	ktap_print_msg "$what at wbps=1MiB/s: at most $queued KiB under" \
		"writeback, writing $rate B/s; beside it $n_fsync" \
		"fsyncs, slowest $fsync_ms ms, $n_meta metadata operations," \
		"slowest $meta_ms ms; made once over 4 MiB, $((once / 1024)) KiB" \
		"written in 3 s; with no limit, $started KiB of 16384 started"
	bt_at_most "$what at wbps=1MiB/s: pages under writeback" \
		"$queued" 1024 KiB
	bt_within "$what at wbps=1MiB/s: the writer's rate" \
		"$rate" 1048576 "$(bt_bound 4 10)" B/s
	bt_at_most "$what at wbps=1MiB/s: another group's slowest fsync of 4 KiB" \
		"${fsync_ms%.*}" "$(bt_bound 500 1000)" ms
	bt_at_most "$what at wbps=1MiB/s: another group's slowest mkdir, create, rename" \
		"${meta_ms%.*}" "$(bt_bound 500 1000)" ms
	bt_between "$what once at wbps=1MiB/s: written in the next 3 s" \
		"$((once / 1024))" 128 1024 KiB
	bt_between "$what with no limit: the writeback it started" \
		"$started" 15360 17408 KiB
done

ktap_finished
