#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A wait on a throttled group is a wait the hung-task detector sees. A
# task whose IO a limit holds sleeps uninterruptibly, as it would on a
# slow disk, and under a limit it can never meet the detector must
# report it: a throttle that parked the task, or a flusher on its
# behalf, in a killable sleep would hide a hang for good.
#
# On ext4 on the test device, the detector at 10 s and its reports
# counted, not printed (kernel.hung_task_warnings=0: a report on the
# console is a failure wherever the console is watched): a group at
# wbps=1 writes 1 MiB and fsyncs it.
# - Within 30 s the detector counts a hung task, and fsync is still
#   waiting, uninterruptibly.
# - Once the limit is lifted, the fsync completes (within 30 s).

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

SYS=/proc/sys/kernel
OLD_TIMEOUT= OLD_WARNINGS= PID= CG=
ht_cleanup() {
	# a task the limit still holds goes once it is lifted
	[ -n "$CG" ] && echo "$BT_MAJMIN wbps=max" >"$CG/io.max"
	[ -n "$PID" ] && wait "$PID"
	[ -n "$OLD_TIMEOUT" ] && echo "$OLD_TIMEOUT" >"$SYS/hung_task_timeout_secs"
	[ -n "$OLD_WARNINGS" ] && echo "$OLD_WARNINGS" >"$SYS/hung_task_warnings"
	bt_cleanup
}
trap ht_cleanup EXIT

ktap_print_header
bt_require
bt_require_nullb "hung_task.sh makes a filesystem"
if [ ! -f "$SYS/hung_task_detect_count" ]; then
	ktap_skip_all "no hung-task detector (CONFIG_DETECT_HUNG_TASK)"
	exit "$KSFT_SKIP"
fi
BT_MEMORY_BACKED=1
bt_setup_dev
ktap_set_plan 3
mkdir -p "$BT_MNT"
mkfs.ext4 -q -F "$BT_DEV" >/dev/null || ktap_exit_fail_msg "cannot make ext4"
mount "$BT_DEV" "$BT_MNT" || ktap_exit_fail_msg "cannot mount ext4"
CG=$(bt_cgroup fsync)
echo "$BT_MAJMIN wbps=1" >"$CG/io.max"

OLD_TIMEOUT=$(cat "$SYS/hung_task_timeout_secs")
OLD_WARNINGS=$(cat "$SYS/hung_task_warnings")
echo 0 >"$SYS/hung_task_warnings"
echo 10 >"$SYS/hung_task_timeout_secs"
read -r count0 <"$SYS/hung_task_detect_count"
"${BT_IN_CGROUP[@]}" "$CG" dd if=/dev/zero of="$BT_MNT/f" bs=64k count=16 \
	conv=fsync status=none &
PID=$!
t0=$EPOCHREALTIME
for _ in $(seq 300); do
	bt_sleep 0.1
	read -r count <"$SYS/hung_task_detect_count"
	[ "$count" -gt "$count0" ] && break
done
ms=$(bt_ms_since "$t0")
read -r _ _ state _ <"/proc/$PID/stat"
read -r wchan <"/proc/$PID/wchan"
ktap_print_msg "after $ms ms: $((count - count0)) hung tasks counted;" \
	"fsync's task in state $state, in ${wchan:-?}"
bt_judge "the detector counted a hung task within 30 s: $((count - count0))" \
	[ "$count" -gt "$count0" ]
bt_judge "fsync at wbps=1 waits uninterruptibly: state $state" [ "$state" = D ]

echo "$BT_MAJMIN wbps=max" >"$CG/io.max"
t0=$EPOCHREALTIME
rc=timeout
for _ in $(seq 300); do
	if ! kill -0 "$PID" 2>/dev/null; then
		wait "$PID"
		rc=$?
		PID=
		break
	fi
	bt_sleep 0.1
done
ktap_print_msg "after the limit was lifted: $rc in $(bt_ms_since "$t0") ms"
bt_judge "the fsync completes once the limit is lifted: $rc" [ "$rc" = 0 ]

ktap_finished
