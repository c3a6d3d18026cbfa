#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a throttled read's time goes, from guest-trace.sh's trace of the
seed scenario (one reader, iodepth 1). For each read the reader submits
and blk-throttle queues, the steps from the trace events:

  due       submission to the time the pending timer was asked to fire
            (what the token bucket says the read must wait)
  timer     that time to the dispatch work queued by the timer's
            function (hrtimer slack, interrupt and softirq latency)
  worker    the work queued to running on kthrotld (its kworker
            waiting for a CPU)
  issue     the work running to null_blk's issue
  device    null_blk's issue to its completion
  wakeup    completion to the reader woken
  run       the reader woken to the reader on a CPU

Prints percentiles of each step over all reads, how much each step adds
to the reads over the threshold, and the slowest reads one by one with
what held the CPU while they waited. Then, to tell the throttle's timer
apart from the machine's: how late every kind of hrtimer in the trace
ran, from its expiry (with slack, or from when it was armed if that was
later) to its function, on an idle CPU and on a busy one.

  trace-seed.py TRACE [THRESHOLD_MS]
"""
import sys

from trace_events import TIMER_FN, WORK_FN, events

STEPS = ("due", "timer", "worker", "issue", "device", "wakeup", "run")


def reads(evs):
    """One dict per queued read, with the time of each event on its way."""
    out, cur, reader = [], None, None
    last = {}           # newest timer start and expiry, work queued and run
    switched_from = {}  # cpu -> the task the newest switch there left
    for ts, cpu, comm, pid, ev, kv, text in evs:
        if ev == "sched_switch":
            prev = "%s/%s" % (kv.get("prev_comm"), kv.get("prev_pid"))
            switched_from[cpu] = prev
            if cur and "wakeup" in cur and "run" not in cur and \
               kv.get("next_pid") == str(reader):
                cur["run"] = ts
                cur["run_after"] = prev
                out.append(cur)
                cur = None
        elif ev == "throtl_bio" and comm == "fio":
            reader = pid
            cur = {"submit": ts}
        elif ev == "throtl_bio_ret" and cur and pid == reader:
            if kv.get("ret") in ("0", "0x0"):
                cur = None          # not queued: dispatched at once
        elif ev == "hrtimer_start" and kv.get("function") == TIMER_FN:
            last["due"] = (int(kv["softexpires"]), ts)
        elif ev == "hrtimer_expire_entry" and kv.get("function") == TIMER_FN:
            last["timer_comm"] = comm
        elif ev == "workqueue_queue_work" and kv.get("function") == WORK_FN:
            last["queued"] = ts
        elif ev == "workqueue_execute_start" and WORK_FN in text:
            last["worker"] = ts
            last["worker_after"] = switched_from.get(cpu)
        elif ev == "block_rq_issue" and cur and "issue" not in cur \
                and "due" in last:
            if last["due"][1] < cur["submit"]:
                continue            # not a timer of this read's
            cur["due"] = last["due"][0]
            for k in ("timer_comm", "queued", "worker", "worker_after"):
                cur[k] = last[k]
            cur["issue"] = ts
        elif ev == "block_rq_complete" and cur and "issue" in cur \
                and "device" not in cur:
            cur["device"] = ts
        elif ev == "sched_wakeup" and cur and "device" in cur and \
                "wakeup" not in cur and kv.get("pid") == str(reader):
            cur["wakeup"] = ts
    return out


def steps(r):
    """The read's time, split into STEPS, in ms."""
    t = [r["submit"], r["due"], r["queued"], r["worker"], r["issue"],
         r["device"], r["wakeup"], r["run"]]
    d = dict(zip(STEPS, ((b - a) / 1e6 for a, b in zip(t, t[1:]))))
    d["total"] = (r["run"] - r["submit"]) / 1e6
    return d


def lateness(evs):
    """{(timer function, CPU was idle): [ms from expiry to callback]}"""
    armed, late = {}, {}
    for ts, _, comm, _, ev, kv, _ in evs:
        if ev == "hrtimer_start":
            # null_blk restarts its timer with an expiry long past
            armed[kv["hrtimer"]] = max(int(kv["expires"]), ts)
        elif ev == "hrtimer_cancel":
            armed.pop(kv["hrtimer"], None)
        elif ev == "hrtimer_expire_entry" and kv["hrtimer"] in armed:
            ms = (int(kv["now"]) - armed.pop(kv["hrtimer"])) / 1e6
            late.setdefault((kv["function"], comm == "<idle>"),
                            []).append(ms)
    return late


def pct(vals, p):
    vals = sorted(vals)
    return vals[min(len(vals) - 1, int(p / 100.0 * len(vals)))]


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    limit = float(argv[2]) if len(argv) > 2 else 6.5
    evs = list(events(argv[1]))
    rs = [r for r in reads(evs)
          if all(k in r for k in ("due", "device", "wakeup", "run"))]
    if not rs:
        print("no throttled reads in the trace")
        return 1
    ds = [steps(r) for r in rs]
    slow = [(d, r) for d, r in zip(ds, rs) if d["total"] > limit]
    print("%d throttled reads, %d over %.1f ms (kernel side: from "
          "__blk_throtl_bio to the reader on a CPU)\n" %
          (len(rs), len(slow), limit))
    med = {s: pct([d[s] for d in ds], 50) for s in STEPS + ("total",)}
    print("| step | p50 | p99 | max | mean over the %d slow reads |"
          % len(slow))
    print("|---|---|---|---|---|")
    for s in STEPS + ("total",):
        v = [d[s] for d in ds]
        m = sum(d[s] for d, _ in slow) / len(slow) if slow else 0
        print("| %s | %.3f | %.3f | %.3f | %.3f |" %
              (s, med[s], pct(v, 99), max(v), m))
    worst = [max(STEPS, key=lambda s: d[s] - med[s]) for d, _ in slow]
    print("\nThe step furthest over its median, in each slow read: " +
          ", ".join("%s %d" % (s, worst.count(s)) for s in STEPS
                    if s in worst))
    print("\nThe slowest reads (ms; worker_after / run_after: the task "
          "that had the CPU before the kworker / the reader got it):\n")
    print("| total | " + " | ".join(STEPS) +
          " | timer ran in | worker_after | run_after |")
    print("|---" * (len(STEPS) + 4) + "|")
    for d, r in sorted(slow, key=lambda x: -x[0]["total"])[:25]:
        print("| %.2f | " % d["total"] +
              " | ".join("%.2f" % d[s] for s in STEPS) +
              " | %s | %s | %s |" % (r["timer_comm"], r["worker_after"],
                                     r["run_after"]))
    print("\nHow late hrtimers ran, from expiry to their function (ms):\n")
    print("| function | CPU | timers | p50 | p99 | max | over 1 ms |")
    print("|---|---|---|---|---|---|---|")
    for (fn, idle), v in sorted(lateness(evs).items()):
        if len(v) >= 100:
            print("| %s | %s | %d | %.3f | %.3f | %.3f | %d |" %
                  (fn, "idle" if idle else "busy", len(v), pct(v, 50),
                   pct(v, 99), max(v), sum(x > 1 for x in v)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
