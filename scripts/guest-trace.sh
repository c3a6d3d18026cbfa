#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest, on a kernel built with EXTRA_CONFIG=
# bench/trace.config: guest-bench.sh on the given scenarios, with the
# events that follow a throttled bio on its way recorded in
# OUTDIR/trace.txt (clock: CLOCK_MONOTONIC, the clock of the hrtimers'
# expiry times):
#
#   kprobe __blk_throtl_bio    the bio reaches blk-throttle (ret: queued)
#   timer:hrtimer_*            the pending timer armed, and when it fires
#   workqueue:*                kthrotld's dispatch work queued and run
#   block:block_bio_queue,     the bio on its way to null_blk and back
#     block_rq_issue/complete
#   sched:sched_wakeup/switch  who waits for a CPU, and who holds it
#   irq:softirq_*, irq_vectors:local_timer_*
#                              the softirqs and the tick in between
#
# scripts/trace-seed.py splits each read's time into these steps. The
# latency logs of the scenarios that keep them time each IO in Unix ms,
# and OUTDIR/realtime-offset holds CLOCK_REALTIME - CLOCK_MONOTONIC in
# seconds, to put those IOs on the trace's clock (scripts/trace-bursts.py
# does, for the bursts of slow reads).
#
#   guest-trace.sh OUTDIR SCENARIO.fio...
set -u
OUT=${1:?usage: guest-trace.sh OUTDIR SCENARIO.fio...}
shift
T=/sys/kernel/tracing

grep -qw tracefs /proc/mounts || mount -t tracefs nodev "$T" ||
	{ echo "no tracefs: is this a kernel with bench/trace.config?" >&2; exit 1; }
echo 0 >"$T/tracing_on"
echo >"$T/trace"
echo mono >"$T/trace_clock"
echo 65536 >"$T/buffer_size_kb"
echo 'p:throtl_bio __blk_throtl_bio bio=%di' >"$T/kprobe_events" &&
echo 'r:throtl_bio_ret __blk_throtl_bio ret=$retval:u8' >>"$T/kprobe_events" ||
	exit 1
for ev in kprobes/throtl_bio kprobes/throtl_bio_ret \
	  timer/hrtimer_start timer/hrtimer_expire_entry timer/hrtimer_cancel \
	  workqueue/workqueue_queue_work workqueue/workqueue_execute_start \
	  workqueue/workqueue_execute_end \
	  block/block_bio_queue block/block_rq_issue block/block_rq_complete \
	  sched/sched_wakeup sched/sched_switch \
	  irq/softirq_raise irq/softirq_entry irq/softirq_exit \
	  irq_vectors/local_timer_entry irq_vectors/local_timer_exit; do
	if [ -e "$T/events/$ev/enable" ]; then
		echo 1 >"$T/events/$ev/enable"
	else
		echo "no event $ev" >&2
	fi
done

python3 -c 'import time; print("%.9f" % (time.clock_gettime(
	time.CLOCK_REALTIME) - time.clock_gettime(time.CLOCK_MONOTONIC)))' \
	>"$OUT/realtime-offset" || exit 1
echo 1 >"$T/tracing_on"
BENCH_UNIX_TIMES=1 "$(dirname "$0")/guest-bench.sh" "$OUT" "$@"
rc=$?
echo 0 >"$T/tracing_on"
cat "$T/per_cpu/cpu"*/stats | grep -i overrun >"$OUT/trace-overruns.txt"
cat "$T/trace" >"$OUT/trace.txt"
exit $rc
