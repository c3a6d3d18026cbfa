#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The 2018 tail-latency scenario ("Blk-throttle: reduce tail io latency
# when iops limit is enforced"): a 4 KiB random reader with 4 ms think
# time in a cgroup with riops=100, on null_blk capped at 4 MB/s. The limit
# must hold within 2% (0.5% with BLK_THROTTLE_BOUNDS=tight), and the
# reader must be paced: ideally every IO waits 6 ms (one every 10 ms,
# less the 4 ms think time), so p99 must be at most 20 ms (tight: 6.5
# ms). Without pacing, one IO in ten waits for the next 100 ms slice and
# p99 is about 60 ms.
#
# Then two rates that divide no tick rate, 37 and 333 IOPS: a back-to-back
# reader must get each within 3% (tight: 0.5%), whatever HZ the kernel
# was built with; with slices, riops=37 gives 30.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

RIOPS=100

ktap_print_header
bt_require
bt_setup_dev 4
CG=$(bt_cgroup seed)
echo "$BT_MAJMIN riops=$RIOPS rbps=max" >"$CG/io.max"

ktap_set_plan 4

out=$BT_OUTDIR/$BT_NAME-seed.json
if ! bt_fio "$CG" "$out" --name=seed --filename="$BT_DEV" --rw=randread --bs=4k --direct=1 \
	--ioengine=libaio --iodepth=1 --thinktime=4ms --norandommap \
	--rate_iops=50000 --size=1G --time_based --runtime="$BT_RUNTIME"; then
	ktap_exit_fail_msg "fio failed: $(cat "$out.err")"
fi
eval "$(bt_stats "$out")"
ktap_print_msg "riops=$RIOPS for ${BT_RUNTIME}s: iops=$iops clat p50=${p50_us}us" \
	"p90=${p90_us}us p99=${p99_us}us p99.9=${p999_us}us max=${max_us}us" \
	"stdev=${stdev_us}us"

paced=$(bt_paced "$ios" 1 "$RIOPS")
ktap_print_msg "riops=$RIOPS: $paced IOPS after the first burst"
bt_within "seed riops=$RIOPS, IOPS after the first burst" "$paced" "$RIOPS" \
	"$(bt_bound 0.5 2)" IOPS
bt_at_most "seed riops=$RIOPS with 4 ms think time, p99" "$p99_us" \
	"$(bt_bound 6500 20000)" us

for rate in 37 333; do
	CG=$(bt_cgroup "riops$rate")
	echo "$BT_MAJMIN riops=$rate" >"$CG/io.max"
	out=$BT_OUTDIR/$BT_NAME-riops$rate.json
	bt_fio "$CG" "$out" --name="riops$rate" --filename="$BT_DEV" \
		--rw=randread --bs=4k --direct=1 --ioengine=psync --norandommap \
		--size=1G --time_based --runtime="$BT_RUNTIME" ||
		ktap_exit_fail_msg "fio failed: $(cat "$out.err")"
	eval "$(bt_stats "$out")"
	paced=$(bt_paced "$ios" 1 "$rate")
	ktap_print_msg "riops=$rate: $iops IOPS, $paced after the first burst;" \
		"p99 ${p99_us}us"
	bt_within "riops=$rate back to back, IOPS after the first burst" \
		"$paced" "$rate" "$(bt_bound 0.5 3)" IOPS
done

ktap_finished
