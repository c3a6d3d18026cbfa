#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stress with faults. Writers that verify what they wrote (crc32c) run in
# three leaf cgroups under one limited parent, on memory-backed null_blk,
# beside a buffered sequential reader in a group of its own, while a
# chaos loop, random from a printed seed:
#
#  - rewrites a leaf's io.max, and the reader's, down to tiny limits and
#    back to max;
#  - moves a writer to another leaf;
#  - empties a leaf whose bios are throttled, removes it and makes it
#    again;
#  - powers off a second null_blk device while bios wait on it, and back
#    on;
#  - reads every group's io.stat while its bios wait.
#
# Checks: no verify error; every fio ends by its deadline (no bio left
# hanging); the parent's io.stat counts exactly the bytes fio did. Run
# it on a kernel with KASAN and lockdep, and read its log for splats.
# The counts are printed.
#
#   BLK_THROTTLE_STRESS_SECS=N  how long the chaos lasts (default 90)
#   BLK_THROTTLE_STRESS_SEED=N  replay a run

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

SECS=${BLK_THROTTLE_STRESS_SECS:-90}
SEED=${BLK_THROTTLE_STRESS_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
LEAVES="a b c"
# the slowest a writer is ever held back: its largest bio (64 KiB) under
# the tiniest limit the chaos sets (16 KiB/s), plus a margin
SECS=$((SECS < 40 ? 40 : SECS))
DEADLINE=$((SECS + 4 * 64 / 16 + 60))

ktap_print_header
bt_require
bt_require_nullb "stress.sh writes to its device and powers one off"
BT_MEMORY_BACKED=1 bt_setup_dev
DEV=$BT_DEV
D=$BT_MAJMIN

# the device to power off: a second null_blk, made by hand
CFS=/sys/kernel/config/nullb/$BT_NAME-off
bt_make_nullb "$BT_NAME-off"
OFF=/dev/$BT_NAME-off
OFF_D=$(cat "/sys/block/$BT_NAME-off/dev")

declare -A pid
stress_cleanup() {
	kill "${pid[@]}" 2>/dev/null
	wait
	for l in $LEAVES; do
		rmdir "$TOP/$l" 2>/dev/null
	done
	bt_cleanup
}
trap stress_cleanup EXIT

TOP=$(bt_cgroup top)
echo +io >"$TOP/cgroup.subtree_control"
echo "$D rbps=8388608 wbps=8388608" >"$TOP/io.max"
for l in $LEAVES; do
	mkdir "$TOP/$l"
done

RA=$(bt_cgroup reader)

ktap_set_plan 6
ktap_print_msg "seed $SEED (BLK_THROTTLE_STRESS_SEED=$SEED replays it), ${SECS}s"
RANDOM=$SEED

# writer N LEAF - start a verifying writer on its own 16 MiB of the
# device, in the background; its pid goes to pid[N]
writer() {
	local n=$1 leaf=$2
	"${BT_IN_CGROUP[@]}" "$TOP/$leaf" \
		timeout -k 5 "$DEADLINE" fio --name="w$n" --filename="$DEV" \
		--offset=$((n * 16))M --size=16M --rw=randwrite --bsrange=4k-64k \
		--direct=1 --ioengine=libaio --iodepth=4 --verify=crc32c \
		--verify_backlog=64 --verify_fatal=1 --time_based \
		--runtime="$SECS" --output-format=json \
		--output="$BT_OUTDIR/$BT_NAME-w$n.json" \
		>/dev/null 2>"$BT_OUTDIR/$BT_NAME-w$n.err" &
	pid[$n]=$!
}

# the victim: a reader on the device that is powered off and on again,
# in the background; its pid goes to vpid
victim() {
	"${BT_IN_CGROUP[@]}" "$TOP/c" \
		timeout -k 2 8 fio --name=victim --filename="$OFF" --rw=randread \
		--bs=64k --direct=1 --ioengine=libaio --iodepth=8 --size=64M \
		--time_based --runtime=5 >/dev/null 2>&1 &
	vpid=$!
}

n=0
for l in $LEAVES; do
	writer $n $l
	n=$((n + 1))
done

# the reader: buffered 4 KiB reads, so readahead sizes the bios, from
# the half of the device no writer touches; at most 2 MiB/s of its own,
# so that unlimited it does not take the CPU the writers need
"${BT_IN_CGROUP[@]}" "$RA" \
	timeout -k 5 "$DEADLINE" fio --name=reader --filename="$DEV" \
	--offset=512M --size=256M --rw=read --bs=4k --ioengine=psync \
	--rate=2m --invalidate=1 --time_based --runtime="$SECS" \
	>"$BT_OUTDIR/$BT_NAME-reader.log" 2>&1 &
pid[3]=$!

pick() { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }

changes=0 moves=0 removals=0 faults=0 stats=0
vpid=
# the chaos stops 15 s before the writers do (an action takes up to
# 10 s), so that they end with a stretch at full speed
end=$((SECONDS + SECS - 25))
while [ $SECONDS -lt $end ]; do
	leaf=$(pick $LEAVES)
	case $((RANDOM % 10)) in
	0|1|2|3)
		lim=$(pick "wbps=16384" "wbps=262144 riops=20" "riops=5 wiops=5" \
			"wbps=1048576" "rbps=2097152 wbps=4194304" \
			"rbps=max wbps=max riops=max wiops=max")
		echo "$D $lim" >"$TOP/$leaf/io.max" && changes=$((changes + 1))
		lim=$(pick "rbps=65536" "rbps=1048576" "rbps=262144 riops=50" \
			"rbps=8388608" "rbps=max riops=max")
		echo "$D $lim" >"$RA/io.max" && changes=$((changes + 1))
		;;
	4|5)
		# the writers of a leaf to another, with what they have queued
		to=$(pick $LEAVES)
		moves=$((moves + $(bt_move_procs "$TOP/$leaf" "$TOP/$to")))
		;;
	6|7)
		# empty the leaf while its bios wait, remove it, make it again
		echo "$D wbps=16384" >"$TOP/$leaf/io.max"
		sleep 0.2
		for p in $(cat "$TOP/$leaf/cgroup.procs"); do
			echo "$p" >"$TOP/$(pick $LEAVES)/cgroup.procs" 2>/dev/null
		done
		# fails if a writer was put back into this leaf
		if rmdir "$TOP/$leaf" 2>/dev/null; then
			mkdir "$TOP/$leaf"
			removals=$((removals + 1))
		fi
		;;
	8)
		# power off the other device with bios queued on it, then on
		if [ -z "$vpid" ]; then
			echo "$OFF_D rbps=131072" >"$TOP/c/io.max" 2>/dev/null
			victim
			sleep 0.5
			echo 0 >"$CFS/power"
			wait "$vpid"
			echo "victim fio ended: $?" >>"$BT_OUTDIR/$BT_NAME-victim.log"
			echo 1 >"$CFS/power"
			bt_wait_bdev "$OFF"
			OFF_D=$(cat "/sys/block/$BT_NAME-off/dev")
			faults=$((faults + 1))
			vpid=
		fi
		;;
	9)
		sleep 0.5
		;;
	esac
	# every group's io.stat, read while its bios wait
	cat "$TOP/io.stat" "$TOP"/*/io.stat "$RA/io.stat" >/dev/null 2>&1 &&
		stats=$((stats + 1))
	sleep 0.$((RANDOM % 4 + 1))
done

# let the writers and the reader finish at full speed
for l in $LEAVES; do
	echo "$D rbps=max wbps=max riops=max wiops=max" >"$TOP/$l/io.max"
done
echo "$D rbps=max riops=max" >"$RA/io.max"

# timeout(1) ends a writer that outlives its deadline: 124, or 137
hung=0
for i in 0 1 2; do
	wait "${pid[$i]}"
	case $? in 124|137) hung=$((hung + 1)) ;; esac
done
wait "${pid[3]}"
reader_rc=$?
pid=()
ktap_print_msg "limit changes $changes, moves $moves, removals $removals," \
	"power-offs $faults, io.stat reads $stats"

# what fio did, and what it saw go wrong
eval "$(python3 - "$BT_OUTDIR/$BT_NAME" <<'PY'
import json, sys
w = r = errs = verified = 0
for i in range(3):
    path = "%s-w%d.json" % (sys.argv[1], i)
    try:
        with open(path) as f:
            text = f.read()
        job = json.loads(text[text.index("{"):])["jobs"][0]
    except (OSError, ValueError, KeyError):
        errs += 1
        continue
    errs += job["error"] != 0
    w += job["write"]["io_bytes"]
    r += job["read"]["io_bytes"]
    verified += job["read"]["total_ios"]
print("fio_w=%d fio_r=%d fio_errs=%d verified=%d" % (w, r, errs, verified))
PY
)"
stat_w=$(bt_iostat "$TOP" wbytes)
stat_r=$(bt_iostat "$TOP" rbytes)

ktap_print_msg "fio: wrote $fio_w bytes, verified $verified IOs ($fio_r bytes);" \
	"io.stat: wbytes=$stat_w rbytes=$stat_r"
ktap_test_result "every writer ended by its deadline (${DEADLINE}s)" [ "$hung" = 0 ]
ktap_test_result "the buffered reader ended without error by its deadline" \
	[ "$reader_rc" = 0 ]
ktap_test_result "no verify error, no fio error ($verified IOs verified)" \
	[ "$fio_errs" = 0 ]
ktap_test_result "the writers verified what they wrote" [ "$verified" -gt 0 ]
ktap_test_result "io.stat wbytes $stat_w = fio's $fio_w" [ "$stat_w" = "$fio_w" ]
ktap_test_result "io.stat rbytes $stat_r = fio's $fio_r" [ "$stat_r" = "$fio_r" ]
ktap_finished
