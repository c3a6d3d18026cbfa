#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A limit on a stacked device. systemd and container runtimes set io.max
# on the device a filesystem sits on, which is often a device-mapper
# device (LVM, dm-crypt). Its bios are throttled as they are submitted
# to it, before they are remapped, and readahead asks the stacked
# device's own bdi for the budget. On a dm-linear device over null_blk:
#
# - riops=100 on the dm device paces back-to-back 4 KiB direct reads as
#   on a plain disk: the rate within 0.5%, p99 at most 10.6 ms (the ideal
#   10 ms, plus what pacing.sh allows a bio);
# - riops=100 on the device underneath throttles the remapped bios too
#   (they keep their group): the same rate;
# - rbps=1MiB/s on the dm device fits a buffered reader's readahead on
#   ext4 as on a plain disk (the bounds of readahead.sh; a limit that
#   does not act misses them by far).
#   A limit on the device underneath is not seen by readahead: it
#   throttles whole windows.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

MNT=
DM=

stacked_cleanup() {
	bt_unmount "$MNT"
	[ -n "$DM" ] && dmsetup remove --noudevsync "$DM" 2>/dev/null
	bt_cleanup
}
trap stacked_cleanup EXIT

# direct_reads NAME DEV MAJMIN RIOPS - back-to-back 4 KiB direct reads of
# DEV in a group limited to RIOPS on the device MAJMIN; sets the
# variables of bt_stats and PACED, the IOPS after the first burst
direct_reads() {
	local name=$1 dev=$2 majmin=$3 riops=$4 cg out

	cg=$(bt_cgroup "$name")
	echo "$majmin riops=$riops" >"$cg/io.max"
	out=$BT_OUTDIR/$BT_NAME-$name.json
	bt_fio "$cg" "$out" --name="$name" --filename="$dev" --rw=randread \
		--bs=4k --direct=1 --ioengine=psync --norandommap --size=512M \
		--time_based --runtime="$BT_RUNTIME" ||
		ktap_exit_fail_msg "fio failed: $(cat "$out.err")"
	eval "$(bt_stats "$out")"
	PACED=$(bt_paced "$ios" 1 "$riops")
	ktap_print_msg "$name: ${iops} IOPS (${PACED} after the first burst)," \
		"clat p50=${p50_us}us p99=${p99_us}us max=${max_us}us"
}

ktap_print_header
bt_require
bt_require_nullb "stacked.sh makes a device-mapper device and a filesystem"
for cmd in dmsetup mkfs.ext4; do
	if ! command -v "$cmd" >/dev/null; then
		ktap_skip_all "$cmd is not installed"
		exit "$KSFT_SKIP"
	fi
done
BT_MEMORY_BACKED=1 bt_setup_dev
NULLB_DEV=$BT_DEV
NULLB_MAJMIN=$BT_MAJMIN
DM=$BT_NAME-linear
if ! dmsetup create --noudevsync "$DM" \
	--table "0 $(blockdev --getsz "$NULLB_DEV") linear $NULLB_MAJMIN 0"; then
	DM=
	ktap_skip_all "cannot make a dm-linear device (CONFIG_BLK_DEV_DM)"
	exit "$KSFT_SKIP"
fi
BT_DEV=/dev/$(dmsetup info -c --noheadings -o blkdevname "$DM")
BT_MAJMIN=$(dmsetup info -c --noheadings -o major,minor --separator : "$DM")
bt_wait_bdev "$BT_DEV" || ktap_exit_fail_msg "$BT_DEV did not appear"
ktap_print_msg "dm-linear $BT_DEV ($BT_MAJMIN) over $NULLB_DEV ($NULLB_MAJMIN)"
ktap_set_plan 6

# 1, 2: the limit on the dm device
direct_reads dm-riops "$BT_DEV" "$BT_MAJMIN" 100
bt_within "riops=100 on the dm device, IOPS after the first burst" \
	"$PACED" 100 0.5 IOPS
bt_at_most "riops=100 on the dm device, p99" "$p99_us" 10600 us

# 3: the limit on the device underneath, reads through the dm device
direct_reads under-riops "$BT_DEV" "$NULLB_MAJMIN" 100
bt_within "riops=100 on the device underneath, IOPS after the first burst" \
	"$PACED" 100 0.5 IOPS

# 4-6: ext4 on the dm device, a buffered reader, rbps on the dm device
MNT=$(mktemp -d /tmp/blkthrtest-mnt.XXXXXX)
mkfs.ext4 -q -F "$BT_DEV" || ktap_exit_fail_msg "mkfs.ext4 $BT_DEV failed"
mount "$BT_DEV" "$MNT" || ktap_exit_fail_msg "cannot mount $BT_DEV"
# what the reader reads in BT_RUNTIME, and its first burst
mib=$((BT_RUNTIME + 2))
dd if=/dev/zero of="$MNT/data" bs=1M count="$mib" conv=fsync 2>/dev/null ||
	ktap_exit_fail_msg "cannot write $MNT/data"
bt_limited_read dm-file-1m 1048576 max 20000 12 --filename="$MNT/data" \
	--ioengine=psync

ktap_finished
