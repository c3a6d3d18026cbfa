#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Buffered writes under a wbps limit. A task's dirty pages are written
# back by the flusher, not by the task; with the memory controller on,
# cgroup writeback charges that writeback to the group that dirtied the
# pages, and the group's io.max acts on it. Checked on ext4 and on XFS,
# for a sequential buffered writer in a group with a memory.max, as
# container runtimes set one:
#
# - behind wbps of 1 and 10 MiB/s, and wbps=10MiB/s with wiops=100000
#   (a 2024 report: a crawl at a tenth of the limit, then bursts of
#   hundreds of MB/s), the group is charged its bps limit (io.stat's
#   wbytes, over BLK_THROTTLE_RUNTIME seconds once its writeback has
#   begun) within 2%: one request of up to 128 KiB is 0.6% of 1 MiB/s
#   over 20 s;
# - steadily: no second is charged less than half the limit or more
#   than one and a half times it. Writeback bios of large folios are
#   several MiB; paced whole, each waits seconds and then goes at once.
#
# And that a throttled writer does not stall the others: beside a writer
# at wbps=1MiB/s with no memory.max, held by dirty throttling alone, an
# unlimited group's fsyncs and metadata operations (durable_ops.py),
# each made durable, take less than a second, and its fsyncs' p99 is at
# most 50 ms. On ext4 each writeback IO holds journal credits until it
# completes: let the flusher queue them by the hundred behind the limit
# and every task on the filesystem waits for tens of seconds.
#
# The writer dirties four times what its group may write back while it is
# watched, and no more: a group whose memory.max fills with pages
# waiting to be written back cannot reclaim them, and the memory
# controller kills its writer (at 1 MiB/s with 256 MiB, it can), which
# is not what is judged here. How the writer ended is printed. The
# flusher writes back in the background only while more than the
# background threshold is dirty (vm.dirty_background_*), and a writer
# that has stopped can leave less than that: the test sets it to 1 MiB
# while it runs, and puts it back.
#
# Without the memory controller the flusher writes every group's pages
# as the root's, and no wbps limit throttles them: the test is skipped.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

MNT=
FSTYPES="ext4 xfs"
VM=/proc/sys/vm
BG_BYTES=
BG_RATIO=

wb_cleanup() {
	bt_unmount "$MNT"
	if [ -n "$BG_BYTES" ] && [ "$BG_BYTES" != 0 ]; then
		echo "$BG_BYTES" >"$VM/dirty_background_bytes"
	elif [ -n "$BG_RATIO" ]; then
		echo "$BG_RATIO" >"$VM/dirty_background_ratio"
	fi
	bt_cleanup
}
trap wb_cleanup EXIT

# start_writer CGROUP FILE MIB - a sequential buffered writer of MIB MiB
# (dd, 1 MiB writes) in CGROUP, in the background, its pid in
# WRITER_PID; returns once the group has been charged for a write (or
# after 30 s)
start_writer() {
	local i

	"${BT_IN_CGROUP[@]}" "$1" dd if=/dev/zero of="$2" bs=1M \
		count="$3" 2>/dev/null &
	WRITER_PID=$!
	for i in $(seq 300); do
		bt_started "$1" && break
		bt_sleep 0.1
	done
}

# limited_write FS NAME IO.MAX KIB - a sequential buffered writer (dd,
# 1 MiB writes, four times what KIB KiB/s writes in BT_RUNTIME + 10 s, at
# most WRITE_MIB) in a group with memory.max=256M and IO.MAX on the
# device: the group must be charged KIB KiB/s within 2% over BT_RUNTIME
# seconds once its writeback has begun (and 2 s more, for the first
# burst and the flusher's start), each second of them within half of
# KIB either way
limited_write() {
	local fs=$1 name=$2 limit=$3 kib=$4 cg pid i log rate lo hi
	local wios wbytes count rc writer

	cg=$(bt_cgroup "$fs-$name")
	echo 256M >"$cg/memory.max"
	echo "$BT_MAJMIN $limit" >"$cg/io.max"
	count=$((kib * (BT_RUNTIME + 10) * 4 / 1024))
	[ "$count" -le "$WRITE_MIB" ] || count=$WRITE_MIB
	start_writer "$cg" "$MNT/$name" "$count"
	pid=$WRITER_PID
	bt_sleep 2
	log=$BT_OUTDIR/$BT_NAME-$fs-$name.charged
	for i in $(seq 0 "$BT_RUNTIME"); do
		[ "$i" = 0 ] || bt_sleep 1
		bt_charged "$cg"
	done >"$log"
	wios=$(bt_iostat "$cg" wios)
	wbytes=$(bt_iostat "$cg" wbytes)
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rc=$?
	case $rc in
	0) writer="had written its $count MiB" ;;
	143) writer="still writing" ;;
	137) writer="killed with SIGKILL (by the memory controller?)" ;;
	*) writer="ended with status $rc" ;;
	esac
	# what is still dirty goes at the device's speed
	echo "$BT_MAJMIN wbps=max wiops=max" >"$cg/io.max"
	echo max >"$cg/memory.max"
	rm -f "$MNT/$name"
	sync

	read -r rate lo hi < <(awk 'NR == 1 { t0 = t = $1; b0 = b = $3; next }
		{ r = ($3 - b) / 1024 / ($1 - t)
		  if (NR == 2 || r < lo) lo = r
		  if (NR == 2 || r > hi) hi = r
		  t = $1; b = $3 }
		END { printf "%.1f %.1f %.1f\n",
			(b - b0) / 1024 / (t - t0), lo, hi }' "$log")
	rm -f "$log"
	ktap_print_msg "$fs $name ($limit): charged ${rate} KiB/s over" \
		"${BT_RUNTIME} s, each second ${lo}..${hi} KiB/s;" \
		"$wios device writes of $(awk -v b="$wbytes" -v n="$wios" \
		'BEGIN { if (n) printf "%.1f", b / n / 1024 }') KiB; the" \
		"writer $writer"
	bt_within "$fs $name, charged KiB/s" "$rate" "$kib" 2 KiB/s
	bt_between "$fs $name, slowest second's charge" "$lo" \
		"$((kib / 2))" "$((kib * 3 / 2))" KiB/s
	bt_between "$fs $name, fastest second's charge" "$hi" \
		"$((kib / 2))" "$((kib * 3 / 2))" KiB/s
}

# others_beside FS - the stall of others: a sequential buffered writer
# (dd, 1 MiB writes) in a group at wbps=1MiB/s without a memory.max, and
# durable_ops.py in an unlimited group for BT_RUNTIME seconds once the
# writer's writeback has begun
others_beside() {
	local fs=$1 cg other pid out kind n p99 max

	cg=$(bt_cgroup "$fs-writer")
	other=$(bt_cgroup "$fs-others")
	echo "$BT_MAJMIN wbps=1048576" >"$cg/io.max"
	start_writer "$cg" "$MNT/writer" "$WRITE_MIB"
	pid=$WRITER_PID
	mkdir "$MNT/others"
	out=$("${BT_IN_CGROUP[@]}" "$other" "$DIR/durable_ops.py" \
		"$MNT/others" "$BT_RUNTIME")
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	echo "$BT_MAJMIN wbps=max" >"$cg/io.max"
	rm -rf "$MNT/writer" "$MNT/others"
	sync

	[ -n "$out" ] || out="fsync 0 - -
metadata 0 - -"
	while read -r kind n p99 max; do
		ktap_print_msg "$fs: beside a writer at wbps=1MiB/s, $n $kind" \
			"operations of an unlimited group: p99 $p99 ms," \
			"slowest $max ms"
		[ "$n" != 0 ] || max=99999999 p99=99999999
		bt_at_most "$fs others' $kind, slowest" "$max" 1000 ms
		[ "$kind" != fsync ] ||
			bt_at_most "$fs others' fsync, p99" "$p99" 50 ms
	done <<<"$out"
}

ktap_print_header
bt_require
bt_require_nullb "writeback.sh makes filesystems on its device"
for fs in $FSTYPES; do
	if ! command -v "mkfs.$fs" >/dev/null; then
		ktap_skip_all "mkfs.$fs is not installed"
		exit "$KSFT_SKIP"
	fi
done
BT_MEMORY_BACKED=1 bt_setup_dev
bt_memory_controller
BG_BYTES=$(cat "$VM/dirty_background_bytes")
BG_RATIO=$(cat "$VM/dirty_background_ratio")
echo 1048576 >"$VM/dirty_background_bytes" ||
	ktap_exit_fail_msg "cannot set $VM/dirty_background_bytes"
ktap_set_plan 24

MNT=$(mktemp -d /tmp/blkthrtest-mnt.XXXXXX)
for fs in $FSTYPES; do
	case $fs in
	xfs) force=-f ;;
	*) force=-F ;;
	esac
	"mkfs.$fs" -q "$force" "$BT_DEV" >/dev/null ||
		ktap_exit_fail_msg "mkfs.$fs $BT_DEV failed"
	mount "$BT_DEV" "$MNT" || ktap_exit_fail_msg "cannot mount $fs"
	# more than any writer below can write while it is watched, at most
	# 80% of the space the filesystem has free
	WRITE_MIB=$(df -Pm "$MNT" | awk 'NR == 2 { print int($4 * 0.8) }')
	limited_write "$fs" wbps-1m "wbps=1048576" 1024
	limited_write "$fs" wbps-10m "wbps=10485760" 10240
	limited_write "$fs" wbps-10m-wiops "wbps=10485760 wiops=100000" \
		10240
	others_beside "$fs"
	umount "$MNT" || ktap_exit_fail_msg "cannot unmount $fs"
done
rmdir "$MNT"
MNT=

ktap_finished
