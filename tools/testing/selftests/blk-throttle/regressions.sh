#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Old blk-throttle bugs must stay fixed. These are the scenarios of the
# throtl group of blktests, rewritten as kselftest cases, each judged the
# way blktests judges it: the time a dd takes, rounded to whole seconds,
# must be the number blktests expects. A pacing change can break them
# easily; each case names the fix it guards.
#
# Every time is counted from the first IO, never from the start of a
# program, which on a slow machine can take half a second: dd's own
# time runs from its first IO to its last, and a limit changed or a disk
# removed "after N s" waits N s from the submission of the IO it acts
# on, which times itself (direct_io.py).
# Whole seconds are a coarse check on purpose: the exact figures are
# printed, and pacing.sh holds the tighter bounds. Where a limit changes
# or the disk goes away while an IO waits, the IO is judged against
# when that happened. These bounds are wide in both strengths of
# bt_bound; a miss, an IO error or a hang fails.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

ktap_print_header
bt_require
# these cases write to the device, reformat it and power it off
bt_require_nullb "regressions.sh writes to its device"
BT_MEMORY_BACKED=1
bt_setup_dev
ktap_set_plan 17

QUEUE=/sys/block/$BT_NAME/queue
PAGE_KB=$(($(getconf PAGESIZE) / 1024))
CG=$(bt_cgroup throtl)
ERR=$BT_OUTDIR/$BT_NAME-dd.err

limit() {
	echo "$BT_MAJMIN $*" >"$CG/io.max"
}

unlimit() {
	limit rbps=max wbps=max riops=max wiops=max
}

# dd_in_cg read|write BS COUNT OUT - direct IO on the device from inside
# the test cgroup; dd's report goes to OUT
dd_in_cg() {
	if [ "$1" = read ]; then
		"${BT_IN_CGROUP[@]}" "$CG" dd if="$BT_DEV" of=/dev/null \
			bs="$2" count="$3" iflag=direct 2>"$4"
	else
		"${BT_IN_CGROUP[@]}" "$CG" dd if=/dev/zero of="$BT_DEV" \
			bs="$2" count="$3" oflag=direct 2>"$4"
	fi
}

# expect_secs WANT DESC read|write BS COUNT - time dd_in_cg, compare
expect_secs() {
	local want=$1 desc=$2 got ms

	shift 2
	dd_in_cg "$@" "$ERR"
	read -r got ms < <(bt_dd_time "$ERR")
	ktap_print_msg "$desc: ${ms} ms"
	bt_equal "$desc, whole seconds" "$got" "$want" s
}

# throtl/001: 1 MiB in 4 KiB IOs at 1 MiB/s or 256 IOPS takes 1 s, each
# direction and each kind of limit
for rw in write read; do
	r=${rw:0:1}
	limit "${r}bps=1048576"
	expect_secs 1 "basic: 256 x 4 KiB ${rw}s at ${r}bps=1MiB/s" "$rw" 4k 256
	unlimit
	limit "${r}iops=256"
	expect_secs 1 "basic: 256 x 4 KiB ${rw}s at ${r}iops=256" "$rw" 4k 256
	unlimit
done

# throtl/002, 003: a 1 MiB bio split into 256 page-sized bios is charged
# 256 IOs against an iops limit ("block: throttle split bio in case of
# iops limit") but its bytes only once against a bps limit
# ("block-throttle: avoid double charge"): 1 s either way
max_kb=$(cat "$QUEUE/max_sectors_kb")
echo "$PAGE_KB" >"$QUEUE/max_sectors_kb"
for rw in write read; do
	r=${rw:0:1}
	limit "${r}iops=256"
	expect_secs 1 "split: 1 MiB ${rw} in ${PAGE_KB} KiB pieces at ${r}iops=256" \
		"$rw" 1M 1
	unlimit
	limit "${r}bps=1048576"
	expect_secs 1 "split: 1 MiB ${rw} in ${PAGE_KB} KiB pieces at ${r}bps=1MiB/s" \
		"$rw" 1M 1
	unlimit
done

# throtl/007: two 1 MiB writers split into pages, at wbps=1MiB/s, end
# 1 s and 2 s after the first of them began; an iops limit far above
# changes nothing ("blk-throttle: Prevents the bps restricted io from
# entering the bps queue again"). The writes time themselves
# (bt_io_together), not from the start of a program, nor from when a
# program's report reaches the test (where files are slow to write, a
# filesystem served over the network say, the first writer's report
# could wait for the second).
for extra in "" " wiops=1000000"; do
	limit "wbps=1048576$extra"
	bt_io_together "$CG" 2 write "$BT_DEV" 1048576
	ms=$BT_IO_ENDS
	got=$(echo "${ms:-0 0}" | awk '{ printf "%.0f %.0f", $1 / 1000, $2 / 1000 }')
	unlimit
	desc="two split 1 MiB writers at wbps=1MiB/s$extra"
	ktap_print_msg "$desc: ends after ${ms/ /, } ms"
	bt_equal "$desc, whole seconds to the ends" "${got/ /,}" 1,2 s
done
echo "$max_kb" >"$QUEUE/max_sectors_kb"

# throtl/005: one 1 MiB write at 512 KiB/s, its limit lowered to
# 256 KiB/s 0.9 s into it: it keeps what it waited for and ends after
# 3 s ("blk-throttle: fix io hung due to configuration updates"). Times
# count from the write's submission. The write is judged against when
# the limit was in fact lowered (a busy machine may take longer than
# 0.9 s to get there): 51.2 KiB of bucket and that long at 512 KiB/s
# are paid, the rest at 256 KiB/s; within 500 ms, as blktests' whole
# seconds allow (100 ms slices end it about 230 ms late).
limit wbps=524288
bt_io_start "$CG" write "$BT_DEV" 1048576
t0=$EPOCHREALTIME
bt_sleep 0.9
limit wbps=262144
before=$(bt_ms_since "$t0")
bt_io_end
unlimit
want=$((3800 - before))
desc="1 MiB write, wbps lowered from 512 to 256 KiB/s while it waits"
ktap_print_msg "$desc after ${before} ms: ${BT_IO_MS} ms, $BT_IO_RES" \
	"(expected ${want} ms)"
bt_between "$desc, completion" "$BT_IO_MS" $((want - 500)) $((want + 500)) ms

# throtl/008: blk-iocost beside blk-throttle, its vrate pinned at 100%
# and a linear model of 100 read and 10 write IOPS: fio at QD64 gets
# 90-110 and 8-12 IOPS
if [ -w "$BT_CGROOT/io.cost.qos" ]; then
	echo "$BT_MAJMIN enable=1 min=100.00 max=100.00" >"$BT_CGROOT/io.cost.qos"
	model="rbps=0 rseqiops=100 rrandiops=100 wbps=0 wseqiops=10 wrandiops=10"
	echo "$BT_MAJMIN ctrl=user model=linear $model" >"$BT_CGROOT/io.cost.model"
	for rw in read write; do
		case $rw in read) lo=90 hi=110 ;; write) lo=8 hi=12 ;; esac
		out=$BT_OUTDIR/$BT_NAME-iocost-$rw.json
		bt_fio "$CG" "$out" --name=iocost --filename="$BT_DEV" \
			--rw=rand$rw --bs=4k --direct=1 --ioengine=libaio \
			--iodepth=64 --time_based --runtime=10
		eval "$(bt_stats "$out")"
		bt_between "iocost beside blk-throttle, rand$rw at QD64" \
			"$iops" "$lo" "$hi" IOPS
	done
	echo "$BT_MAJMIN enable=0" >"$BT_CGROOT/io.cost.qos"
	echo "$BT_MAJMIN ctrl=auto" >"$BT_CGROOT/io.cost.model"
else
	ktap_test_skip "iocost: rand read (no io.cost.qos: CONFIG_BLK_CGROUP_IOCOST)"
	ktap_test_skip "iocost: rand write (no io.cost.qos: CONFIG_BLK_CGROUP_IOCOST)"
fi

# throtl/006: metadata IO is not queued behind throttled data ("blk-throttle:
# support prioritized processing of metadata"). ext4 with its journal
# thread in the group: while a 4 MiB write waits at wbps=1MiB/s, a mkdir,
# file create and fsync take no longer than they do with no write waiting, and
# under a second more (blktests: 0 s, start-up included); the write
# takes 4 s longer than the same write with no limit (blktests: 4 s;
# on a debug kernel the write's own work, unthrottled, takes half a
# second of it). The metadata is made by one program, started before
# the write and timed by its own clock, so that what is timed is the
# filesystem's work, not the start of mkdir, touch and sync.
MNT=$BT_OUTDIR/$BT_NAME-mnt
# meta N - create a directory and a file in it, fsync both; print the ms
# taken (by the coprocess META, which the caller has started)
meta() {
	echo "$MNT/d$1" >&"${META[1]}"
	read -r ms <&"${META[0]}"
	echo "$ms"
}
if command -v mkfs.ext4 >/dev/null; then
	mkdir -p "$MNT"
	mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 -F "$BT_DEV" &&
		mount "$BT_DEV" "$MNT" || ktap_exit_fail_msg "cannot mount ext4 on $BT_DEV"
	# the journal thread's name is cut to 15 characters: jbd2/blkthrtest
	jbd2=$(pgrep "^jbd2/${BT_NAME:0:10}")
	[ -n "$jbd2" ] && echo "$jbd2" >"$CG/cgroup.procs"
	echo "$BASHPID" >"$CG/cgroup.procs"
	coproc META { python3 -u -c '
import os, sys, time
for line in sys.stdin:
    d = line.strip()
    t0 = time.monotonic()
    os.mkdir(d)
    fd = os.open(d + "/1", os.O_CREAT | os.O_WRONLY, 0o644)
    os.fsync(fd)
    os.close(fd)
    fd = os.open(d, os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)
    print("%.0f" % ((time.monotonic() - t0) * 1000))
'; }
	# once untimed: the first run of its code may fault it in from disk
	meta w >/dev/null
	alone=$(meta 0)
	bt_io_start "$CG" write "$MNT/free.img" 4194304 fdatasync
	bt_io_end
	free=$BT_IO_MS
	limit wbps=1048576
	w0=$(bt_iostat "$CG" wbytes)
	bt_io_start "$CG" write "$MNT/test.img" 4194304 fdatasync
	bt_sleep 2
	behind=$(meta 1)
	bt_io_end
	ms=$BT_IO_MS
	exec {META[1]}>&-
	wait "$META_PID"
	# the metadata the group wrote meanwhile is charged too, in debt
	meta_kib=$(( ($(bt_iostat "$CG" wbytes) - ${w0:-0}) / 1024 - 4096 ))
	unlimit
	echo "$BASHPID" >"$BT_CGROOT/cgroup.procs"
	[ -n "$jbd2" ] && echo "$jbd2" >"$BT_CGROOT/cgroup.procs"
	umount "$MNT"
	rmdir "$MNT"
	ktap_print_msg "mkdir, create, fsync: ${alone} ms alone, ${behind} ms" \
		"behind a throttled write"
	bt_at_most "mkdir, create, fsync behind a throttled write (alone + 1 s)" \
		"$behind" $((alone + 1000)) ms
	got=$(awk -v a="$ms" -v b="$free" 'BEGIN { printf "%.0f", (a - b) / 1000 }')
	ktap_print_msg "4 MiB write at wbps=1MiB/s on ext4: $ms ms, $free ms" \
		"unlimited, $meta_kib KiB of metadata written meanwhile"
	bt_equal "4 MiB write at wbps=1MiB/s on ext4, whole seconds over unlimited" \
		"$got" 4 s
else
	ktap_test_skip "metadata IO behind a throttled write (no mkfs.ext4)"
	ktap_test_skip "4 MiB write at wbps=1MiB/s on ext4 (no mkfs.ext4)"
fi

# throtl/004: the disk goes away while a 10 MiB write waits at 1 MiB/s:
# the write fails with EIO at once instead of hanging ("blk-throttle: fix
# UAF by deleteing timer in blk_throtl_exit()", "block: cancel all
# throttled bios in del_gendisk()"). Last: the device is gone after it.
# Times count from the write's submission; the error must come within
# 500 ms of the removal (blktests: 1 s in all, the removal at 0.6 s).
# The power-off returns once the queued bios are failed, so the figure
# can be a few ms below zero: the error came while it was measured.
limit wbps=1048576
bt_io_start "$CG" write "$BT_DEV" 10485760
t0=$EPOCHREALTIME
bt_sleep 0.6
echo 0 >"$BT_NULLB/power"
before=$(bt_ms_since "$t0")
bt_io_end
desc="disk removed under a throttled 10 MiB write"
ktap_print_msg "$desc after ${before} ms: $BT_IO_RES after ${BT_IO_MS} ms"
ktap_test_result "$desc: $BT_IO_RES, blktests expects EIO" [ "$BT_IO_RES" = EIO ]
bt_at_most "$desc, from the removal to the error" \
	$((BT_IO_MS - before)) 500 ms
rm -f "$ERR"

ktap_finished
