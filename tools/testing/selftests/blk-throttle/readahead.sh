#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Buffered reads under an rbps limit. Readahead turns a reader's 4 KiB
# reads into bios of 128 KiB and more, and each such bio waits until the
# whole of it fits the limit: at 1 MiB/s one read in thirty-two waits
# about 125 ms. Readahead fitted to the reader's budget reads in smaller
# windows while the reader is at its limit, but not so small that its
# IOs multiply, nor that an iops limit written beside the bps limit
# binds first. Checked on a file in ext4, on the block device read
# directly, on a file read through mmap, under rbps and riops together,
# and with eight readers sharing a limit; and a group with no limit must
# still read in full readahead windows.
#
# Bounds: the rate within 2% of the limit (readahead's reads get up to
# about 1% less, fitted or not; where the iops limit binds first they
# get a fifth to a half of it); the slowest 0.1% of the 4 KiB reads at
# most 20 ms at 1 MiB/s, where a fitted window is 16 KiB and waits 15.6
# ms, and at most 10 ms at 10 MiB/s, where it holds what the limit
# accrues in 4 ms, rounded up to whole large folios; the mean read at
# least 12 KiB at 1 MiB/s (a window cut to the page the reader waits for
# is 4 KiB: four times the IOs) and at least 32 KiB at 10 MiB/s, half a
# 64 KiB window. Unfitted, one read in 32 waits for a whole 128 KiB
# window, 125 ms at 1 MiB/s; where the limit is kept in 100 ms slices,
# the slowest 0.1% wait some 100 ms at either rate. Eight readers share
# their group's limit within 25%: a reader whose fitted windows lose the
# readahead mark reads one bio at a time, while readers that keep theirs
# have a window in flight as they read and twice its share of the
# group's queue. At 10 MiB/s their mean read is at least 12 KiB: fitted
# windows shared among them stop at 16 KiB, not at a page. On a
# rotational disk, where every read costs a seek, fitted reads come at
# most 16 a second: at 1 MiB/s the mean read is at least 48 KiB (64 KiB
# windows; fitted to 4 ms or 16 KiB they would be 16 KiB, four times the
# seeks), and the slowest 0.1% wait at most 100 ms (a 64 KiB window
# waits 62.5 ms; unfitted, the larger windows of a rotational disk wait
# 250 ms). Groups there share the disk's 16 reads a second: eight groups
# of one reader each at 1 MiB/s read at most 40 times a second together
# (about 16; with a floor of each group's own, 128).

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

MNT=
FILE=

ra_cleanup() {
	bt_unmount "$MNT"
	bt_cleanup
}
trap ra_cleanup EXIT

ktap_print_header
bt_require
bt_require_nullb "readahead.sh makes a filesystem on its device"
if ! command -v mkfs.ext4 >/dev/null; then
	ktap_skip_all "mkfs.ext4 is not installed"
	exit "$KSFT_SKIP"
fi
# requests of up to 1 MiB, as hard disks take: see 26
BT_MEMORY_BACKED=1 BT_MAX_SECTORS=2048 bt_setup_dev
ktap_set_plan 26

# 1-3: the block device itself, read through its page cache
bt_limited_read bdev-1m 1048576 max 20000 12 --filename="$BT_DEV" \
	--ioengine=psync

MNT=$(mktemp -d /tmp/blkthrtest-mnt.XXXXXX)
mkfs.ext4 -q -F "$BT_DEV" || ktap_exit_fail_msg "mkfs.ext4 $BT_DEV failed"
mount "$BT_DEV" "$MNT" || ktap_exit_fail_msg "cannot mount $BT_DEV"
FILE=$MNT/data
# as large as the fastest reader below reads in BT_RUNTIME (10 MiB/s and
# its first burst), so that none of them wraps to pages already cached;
# at most 90% of the space the filesystem has free
mib=$((BT_RUNTIME * 12))
free=$(df -Pm "$MNT" | awk 'NR == 2 { print int($4 * 0.9) }')
[ "$mib" -le "$free" ] || mib=$free
dd if=/dev/zero of="$FILE" bs=1M count="$mib" conv=fsync 2>/dev/null ||
	ktap_exit_fail_msg "cannot write $FILE"

# 4-9: a file in ext4, read(2)
bt_limited_read file-1m 1048576 max 20000 12 --filename="$FILE" \
	--ioengine=psync
bt_limited_read file-10m 10485760 max 10000 32 --filename="$FILE" \
	--ioengine=psync

# 10-12: page faults on a mapping of the file, read around each fault
bt_limited_read mmap-1m 1048576 max 20000 12 --filename="$FILE" \
	--ioengine=mmap --fadvise_hint=0

# 13-18: rbps and riops together. 100 reads a second of the 16 KiB that
# fitting allows at 1 MiB/s would be 1.6 MiB/s, so the iops limit does not
# bind; at 10 MiB/s, 200 reads a second carry the rate only if each is
# 51.2 KiB or more, and fitting must not cut below that
bt_limited_read both-1m 1048576 100 20000 12 --filename="$FILE" \
	--ioengine=psync
bt_limited_read both-10m 10485760 200 10000 51 --filename="$FILE" \
	--ioengine=psync

# eight_readers NAME RBPS - eight readers, each on its own part of the
# file, in one group at RBPS: sets share (the slowest reader's rate over
# the fastest one's) and kib (the group's mean device read)
eight_readers() {
	local cg out rates

	cg=$(bt_cgroup "$1")
	echo "$BT_MAJMIN rbps=$2" >"$cg/io.max"
	out=$BT_OUTDIR/$BT_NAME-$1.json
	bt_drop_caches
	bt_fio "$cg" "$out" --name="$1" --filename="$FILE" --rw=read --bs=4k \
		--ioengine=psync --numjobs=8 --size=$((mib / 8))M \
		--offset_increment=$((mib / 8))M --time_based \
		--runtime="$BT_RUNTIME" ||
		ktap_exit_fail_msg "fio failed: $(cat "$out.err")"
	eval "$(bt_stats --per-job "$out")"
	rates=$(for i in $(seq 0 $((njobs - 1))); do
		v=job${i}_bw_kib_s
		echo "${!v}"
	done)
	share=$(echo "$rates" | awk 'NR == 1 || $1 < lo { lo = $1 }
		$1 > hi { hi = $1 } END { printf "%.3f", hi ? lo / hi : 0 }')
	kib=$(bt_read_bio_kib "$cg")
	ktap_print_msg "$1: KiB/s" $rates "; $(bt_iostat "$cg" rios)" \
		"device reads of ${kib:-?} KiB"
}

# 19: eight readers in one group at 1 MiB/s: the slowest gets at least
# 75% of the fastest one's rate
eight_readers eight 1048576
ktap_test_result "eight readers: slowest / fastest $share >= 0.75" \
	at_most 0.75 "$share"

# 20-21: eight readers at 10 MiB/s, as fair, and in reads of 12 KiB or
# more: the limit accrues 40 KiB in 4 ms, and sharing it among the reads
# waiting stops at 16 KiB; shared down to a page it would be 5 KiB, and
# the group would issue twelve times the IOs of 64 KiB windows
eight_readers eight-10m 10485760
ktap_test_result "eight readers at 10 MiB/s: slowest / fastest $share >= 0.75" \
	at_most 0.75 "$share"
ktap_test_result "eight readers at 10 MiB/s: mean device read ${kib:-?} KiB >= 12 KiB" \
	at_most 12 "${kib:-0}"

# 22: a group with no limit, next to limited ones on the same device,
# reads in full readahead windows: its mean read is not cut down
CG=$(bt_cgroup nolimit)
out=$BT_OUTDIR/$BT_NAME-nolimit.json
bt_drop_caches
bt_fio "$CG" "$out" --name=nolimit --filename="$FILE" --rw=read --bs=4k \
	--ioengine=psync --size=32M ||
	ktap_exit_fail_msg "fio failed: $(cat "$out.err")"
eval "$(bt_stats "$out")"
ra_kib=$(cat "/sys/block/$BT_NAME/queue/read_ahead_kb")
kib=$(bt_read_bio_kib "$CG")
ktap_print_msg "no limit: ${bw_kib_s} KiB/s, mean read ${kib:-?} KiB" \
	"(read_ahead_kb $ra_kib)"
ktap_test_result "no limit: mean read ${kib:-?} KiB >= read_ahead_kb / 4 ($((ra_kib / 4)) KiB)" \
	at_most "$((ra_kib / 4))" "${kib:-0}"

# 23-25: the same disk said to be rotational (which also lets it read
# ahead twice its largest request): fitted reads at 1 MiB/s carry a
# sixteenth of a second of the limit
echo 1 >"/sys/block/$BT_NAME/queue/rotational" ||
	ktap_exit_fail_msg "cannot make $BT_DEV rotational"
bt_limited_read rot-1m 1048576 max 100000 48 --filename="$FILE" \
	--ioengine=psync

# 26: eight groups of one reader each at 1 MiB/s on the rotational disk
# share its 16 reads a second: a fitted read carries a sixteenth of a
# second of its group's limit for its own turn and one more for each read
# of the other groups since its last, so the groups read about 16 times a
# second together, each in reads of half a second of its limit; with a
# floor of each group's own they would read 16 times a second each, 128
# together. At most 40 a second. Read ahead up to 1 MiB here, and the
# disk takes requests of 1 MiB, so that such windows fit in one read.
rot_groups() {
	local i cg cgs=() pids=() fail=0 ra rates= rios=0 rbytes=0 max

	ra=$(cat "/sys/block/$BT_NAME/queue/read_ahead_kb")
	echo 1024 >"/sys/block/$BT_NAME/queue/read_ahead_kb"
	for i in $(seq 8); do
		cg=$(bt_cgroup "rot-g$i")
		echo "$BT_MAJMIN rbps=1048576" >"$cg/io.max"
		cgs+=("$cg")
	done
	bt_drop_caches
	for i in $(seq 8); do
		bt_fio "${cgs[i - 1]}" "$BT_OUTDIR/$BT_NAME-rot-g$i.json" \
			--name="rot-g$i" --filename="$FILE" --rw=read --bs=4k \
			--ioengine=psync --offset=$(((i - 1) * mib / 8))M \
			--size=$((mib / 8))M --time_based --runtime="$BT_RUNTIME" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do
		wait "$i" || fail=1
	done
	echo "$ra" >"/sys/block/$BT_NAME/queue/read_ahead_kb"
	[ "$fail" = 0 ] || ktap_exit_fail_msg "fio failed:" \
		"$(cat "$BT_OUTDIR/$BT_NAME"-rot-g*.json.err)"
	for i in $(seq 8); do
		eval "$(bt_stats "$BT_OUTDIR/$BT_NAME-rot-g$i.json")"
		rates="$rates $bw_kib_s"
		rios=$((rios + $(bt_iostat "${cgs[i - 1]}" rios)))
		rbytes=$((rbytes + $(bt_iostat "${cgs[i - 1]}" rbytes)))
	done
	ktap_print_msg "rot-8g: KiB/s$rates; $rios device reads of" \
		"$((rbytes / (rios ? rios : 1) / 1024)) KiB"
	max=$((40 * BT_RUNTIME))
	ktap_test_result "rot-8g, device reads in $BT_RUNTIME s: $rios reads <= $max reads" \
		at_most "$rios" "$max"
}
rot_groups
echo 0 >"/sys/block/$BT_NAME/queue/rotational"

ktap_finished
