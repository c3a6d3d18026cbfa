#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Buffered reads under an rbps limit. Readahead turns a reader's 4 KiB
# reads into bios of 128 KiB and more, and each such bio waits until the
# whole of it fits the limit: at 1 MiB/s one read in thirty-two waits
# about 125 ms. Readahead that fits the reader's budget keeps every read
# short while the rate holds. Checked on a file in ext4, on the block
# device read directly, and on a file read through mmap; and a group
# with no limit must still read in full readahead windows.
#
# Bounds: the rate within 0.5% of the limit, and the slowest 0.1% of the
# 4 KiB reads at most 15% over the ideal wait of one read, 4.5 ms at
# 1 MiB/s (ideal 3.9 ms). At 10 MiB/s a read is due every 0.39 ms, more
# often than the throttle's timer fires (once a millisecond at most): it
# lets the reads due within a millisecond go together, so the slowest
# wait one read and that millisecond, at most 1.5 ms. Unfitted, one read
# in 32 waits for a whole 128 KiB window, 125 ms at 1 MiB/s; where the
# limit is kept in 100 ms slices, the slowest 0.1% wait some 100 ms at
# either rate.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

MNT=
FILE=

ra_cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null && rmdir "$MNT"
	bt_cleanup
}
trap ra_cleanup EXIT

# limited_read NAME RBPS BOUND_US FIO-ARGS... - a sequential 4 KiB
# reader in a group limited to RBPS bytes/s: checks the rate within 0.5%
# and the slowest 0.1% of its reads against BOUND_US
limited_read() {
	local name=$1 rbps=$2 bound_us=$3 cg out paced kib
	shift 3

	cg=$(bt_cgroup "$name")
	echo "$BT_MAJMIN rbps=$rbps" >"$cg/io.max"
	out=$BT_OUTDIR/$BT_NAME-$name.json
	bt_drop_caches
	if ! bt_fio "$cg" "$out" --name="$name" --rw=read --bs=4k \
		--time_based --runtime="$BT_RUNTIME" "$@"; then
		ktap_test_fail "$name: fio failed: $(cat "$out.err")"
		ktap_test_fail "$name: no latency"
		return
	fi
	eval "$(bt_stats "$out")"
	kib=$((rbps / 1024))
	paced=$(bt_paced "$ios" 4 "$kib")
	ktap_print_msg "$name: ${bw_kib_s} KiB/s (${paced} after the first" \
		"burst), $ios reads, clat p50=${p50_us}us p99=${p99_us}us" \
		"p99.9=${p999_us}us p99.99=${p9999_us}us max=${max_us}us" \
		"stdev=${stdev_us}us"
	bt_within "$name, KiB/s after the first burst" "$paced" "$kib" 0.5 KiB/s
	bt_at_most "$name, 4 KiB reads, p99.9" "$p999_us" "$bound_us" us
}

# read_bio_kib CGROUP - the mean size of the group's reads on the device
read_bio_kib() {
	awk -v b="$(bt_iostat "$1" rbytes)" -v n="$(bt_iostat "$1" rios)" \
		'BEGIN { if (n) printf "%.0f", b / n / 1024 }'
}

ktap_print_header
bt_require
bt_require_nullb "readahead.sh makes a filesystem on its device"
if ! command -v mkfs.ext4 >/dev/null; then
	ktap_skip_all "mkfs.ext4 is not installed"
	exit "$KSFT_SKIP"
fi
BT_MEMORY_BACKED=1 bt_setup_dev
ktap_set_plan 9

# 1, 2: the block device itself, read through its page cache
limited_read bdev-1m 1048576 4500 --filename="$BT_DEV" --ioengine=psync

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

# 3-6: a file in ext4, read(2) and mmap read-around (no madvise hint)
limited_read file-1m 1048576 4500 --filename="$FILE" --ioengine=psync
limited_read file-10m 10485760 1500 --filename="$FILE" --ioengine=psync

# 7, 8: page faults on a mapping of the file, read around each fault
limited_read mmap-1m 1048576 4500 --filename="$FILE" --ioengine=mmap \
	--fadvise_hint=0

# 9: a group with no limit, next to limited ones on the same device,
# reads in full readahead windows: its mean read is not cut down
CG=$(bt_cgroup nolimit)
out=$BT_OUTDIR/$BT_NAME-nolimit.json
bt_drop_caches
bt_fio "$CG" "$out" --name=nolimit --filename="$FILE" --rw=read --bs=4k \
	--ioengine=psync --size=32M ||
	ktap_exit_fail_msg "fio failed: $(cat "$out.err")"
eval "$(bt_stats "$out")"
ra_kib=$(cat "/sys/block/$BT_NAME/queue/read_ahead_kb")
kib=$(read_bio_kib "$CG")
ktap_print_msg "no limit: ${bw_kib_s} KiB/s, mean read ${kib:-?} KiB" \
	"(read_ahead_kb $ra_kib)"
ktap_test_result "no limit: mean read ${kib:-?} KiB >= read_ahead_kb / 4 ($((ra_kib / 4)) KiB)" \
	at_most "$((ra_kib / 4))" "${kib:-0}"

ktap_finished
