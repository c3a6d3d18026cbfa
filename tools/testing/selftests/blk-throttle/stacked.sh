#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A limit on a stacked device. systemd and container runtimes set io.max
# on the device a filesystem sits on, which is often a device-mapper
# device (LVM, dm-crypt). Its bios are throttled as they are submitted
# to it, before they are remapped. On a dm-linear device over null_blk:
#
# - riops=100 on the dm device paces back-to-back 4 KiB direct reads as
#   on a plain disk: the rate within 0.5%, p99 at most 10.6 ms (the ideal
#   10 ms, plus what pacing.sh allows a bio);
# - riops=100 on the device underneath throttles the remapped bios too
#   (they keep their group): the same rate.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

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
bt_require_nullb "stacked.sh makes a device-mapper device"
BT_MEMORY_BACKED=1 bt_setup_dev
NULLB_DEV=$BT_DEV
NULLB_MAJMIN=$BT_MAJMIN
if ! bt_make_linear "$NULLB_DEV" "$NULLB_MAJMIN"; then
	ktap_skip_all "no dmsetup or device-mapper (CONFIG_BLK_DEV_DM)"
	exit "$KSFT_SKIP"
fi
BT_DEV=$BT_LINEAR_DEV
BT_MAJMIN=$BT_LINEAR_MAJMIN
ktap_print_msg "dm-linear $BT_DEV ($BT_MAJMIN) over $NULLB_DEV ($NULLB_MAJMIN)"
ktap_set_plan 3

# 1, 2: the limit on the dm device
direct_reads dm-riops "$BT_DEV" "$BT_MAJMIN" 100
bt_within "riops=100 on the dm device, IOPS after the first burst" \
	"$PACED" 100 "$(bt_bound 0.5 2)" IOPS
bt_at_most "riops=100 on the dm device, p99" "$p99_us" \
	"$(bt_bound 10600 25000)" us

# 3: the limit on the device underneath, reads through the dm device
direct_reads under-riops "$BT_DEV" "$NULLB_MAJMIN" 100
bt_within "riops=100 on the device underneath, IOPS after the first burst" \
	"$PACED" 100 "$(bt_bound 0.5 2)" IOPS

ktap_finished
