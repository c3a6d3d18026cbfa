#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One group read from every CPU at once. Its bios from every CPU take
# their tokens from the group's one set of buckets, under the queue lock.
# Whatever the number of CPUs, the group's rate must hold, under an iops
# and under a bps limit, with no CPU's reader starved; and a limit
# written while every CPU reads must bind at once.
#
# The limits are low enough for a slow machine (a debug kernel in an
# emulator) to exceed them. Bounds: each rate within 3% of its limit
# after the first burst (one bucket, 100 ms of the limit); the slowest
# CPU's reader at least half the readers' mean rate (where the CPUs do
# not all run at once, as an emulator's vCPUs may not, one CPU's reader
# can get twice the others' rate, and the slowest then three quarters of
# the mean; a starved reader gets next to nothing). The limit lowered
# from 10,000,000 to 1,000 IOPS: the IOs of the four seconds after it,
# less the new limit's bucket, within 5% of 1,000 a second. Tokens of
# the old limit spent after the change would add up to tens of
# thousands.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

NCPUS=$(nproc)

ktap_print_header
bt_require
bt_setup_dev
ktap_set_plan 5
ktap_print_msg "$NCPUS CPUs, a reader on each"

# readers NAME RUNTIME IO.MAX - a 4 KiB direct random reader on each CPU,
# bound to it, in a new group NAME limited to IO.MAX, for RUNTIME
# seconds, in the background; sets CG, OUT and PID
readers() {
	CG=$(bt_cgroup "$1")
	echo "$BT_MAJMIN $3" >"$CG/io.max"
	OUT=$BT_OUTDIR/$BT_NAME-$1.json
	bt_fio "$CG" "$OUT" --name="$1" --filename="$BT_DEV" --rw=randread \
		--bs=4k --direct=1 --ioengine=psync --norandommap \
		--numjobs="$NCPUS" --cpus_allowed=0-$((NCPUS - 1)) \
		--cpus_allowed_policy=split --time_based --runtime="$2" &
	PID=$!
}

# limited NAME IO.MAX LABEL LIMIT KIB UNIT - the readers under IO.MAX
# (LABEL in the checks) for BT_RUNTIME seconds: their rate after the
# first burst (in IOs of KIB each, 1 for IOPS) within 3% of LIMIT UNIT,
# and the slowest one's IOPS at least half their mean
limited() {
	local i v rates s paced

	readers "$1" "$BT_RUNTIME" "$2"
	wait "$PID" || ktap_exit_fail_msg "fio failed: $(cat "$OUT.err")"
	eval "$(bt_stats --per-job "$OUT")"
	paced=$(bt_paced "$ios" "$5" "$4")
	rates=$(for i in $(seq 0 $((njobs - 1))); do
		v=job${i}_iops
		printf '%.0f\n' "${!v}"
	done)
	s=$(echo "$rates" | awk 'NR == 1 || $1 < lo { lo = $1 } { t += $1 }
		END { printf "%.3f", t ? lo * NR / t : 0 }')
	ktap_print_msg "$3: $iops IOPS, $bw_kib_s KiB/s ($paced $6 after the" \
		"first burst), readers' IOPS" $rates", slowest / mean $s," \
		"p99=${p99_us}us max=${max_us}us"
	bt_within "$3 from $NCPUS CPUs, $6 after the first burst" \
		"$paced" "$4" "$(bt_bound 3 5)" "$6"
	ktap_test_result \
		"$3 from $NCPUS CPUs, slowest reader / mean: $s x in 0.5..1 x" \
		in_range "$s" 0.5 1
}

# 1, 2: four IOs a millisecond
limited iops riops=4000 riops=4000 4000 1 IOPS
# 3, 4: four 4 KiB reads a millisecond
limited bps rbps=16777216 rbps=16MiB/s 16384 4 KiB/s

# 5: riops=10000000 lowered to 1000 after two seconds of reads
readers lowered 8 "riops=10000000"
bt_wait_started "$CG" 120 || ktap_exit_fail_msg "no read in 120 s"
bt_sleep 2
echo "$BT_MAJMIN riops=1000" >"$CG/io.max"
read -r t0 rb0 _ < <(bt_charged "$CG")
bt_sleep 4
read -r t1 rb1 _ < <(bt_charged "$CG")
wait "$PID" || ktap_exit_fail_msg "fio failed: $(cat "$OUT.err")"
n=$(((rb1 - rb0) / 4096))
read -r secs rate < <(awk -v n="$n" -v a="$t0" -v b="$t1" \
	'BEGIN { printf "%.2f %.1f\n", b - a, (n - 100) / (b - a) }')
ktap_print_msg "riops=10000000 lowered to 1000: $n IOs in the $secs s after"
bt_within "riops lowered to 1000 as $NCPUS CPUs read, IOPS after its bucket" \
	"$rate" 1000 "$(bt_bound 5 10)" IOPS

ktap_finished
