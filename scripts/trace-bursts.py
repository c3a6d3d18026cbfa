#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What held the reads of a burst of slow reads: the throttle's queue,
the guest standing still, the readers waiting for a CPU, or the bios on
their way from the throttle to the device. From the output of
guest-trace.sh (a trace, fio's latency logs in Unix ms, and the guest's
CLOCK_REALTIME - CLOCK_MONOTONIC to put them on the trace's clock) on a
scenario whose latency logs are on.

The slow reads (over MS, default 30) of NAME's latency logs are grouped
into bursts as slow-reads.py groups them; a burst's span runs from the
first of its reads' starts to the last one's end. Job N of the fio run
is the Nth of its processes by pid, among those that reached the
throttle (checked: how many of the reads over 5 ms end with that process
on a CPU). First, over the whole run, how long the bios the dispatch
work sent on waited from then to their request's issue (percentiles),
and how often its kworkers were preempted; then two tables, a row for
each of the TOP (default 10) bursts with the slowest reads, one for all
bursts together, and one for the rest of the run (its reads from 1 ms to
MS: those that waited for a bio).

Where the slow reads' time went, in ms, the mean over the burst's reads.
A read is split at the events of the bio its reader waited for: of the
reader's bios, the last to complete during the read before the reader
was last woken in it (queued bios leave the throttle in the order they
came, the group having one queue; a request is known by its sector),
each counted from the read's start at the earliest (fio logs
the ms a read ended in: its end is taken at the end of that ms, so that
"after" holds up to 1 ms more than it took):

  before    from the read's start to that bio's queueing
  throttle  queued in the throttle, to the dispatch work sending it on
            (none for a bio the throttle let through at once)
  to issue  sent on, to the device's issue of its request (the work
            plugs what it sends: a kworker preempted before it finishes
            its plug holds the bios it has sent)
  device    issued, to completed
  after     completed, to the read's end (the reader woken and run, or
            waiting for what the trace does not tie to it)
  other     the reads during which no bio of their reader's completed
            before it was woken
  ran, cpu, slept  the same time split by what the reader did: on a
            CPU, runnable and waiting for one, or asleep, in %

What the guest and the throttle did in the span:

  idle      the share of the vCPUs' time they were idle, in %
  silent    the longest time a vCPU ran a task and logged no event, not
            even its tick: the host did not run that vCPU (or QEMU was
            busy translating code), in ms
  issued    the reads issued to the device, in MiB/s
  asked     the longest wait the throttle's dispatch timer was armed
            for, in ms
  late      the longest from the time it was armed for to its dispatch
            work running on kthrotld, in ms
  queued    the most bios in the throttle's queue

  trace-bursts.py [--ms MS] [--top TOP] DIR NAME
"""
import argparse
import bisect
import collections
import os

from analyze import bursts, clat_reads, pct
from trace_events import TIMER_FN, WORK_FN, events

SPLIT = ("before", "throttle", "to issue", "device", "after", "other")
STATES = ("ran", "cpu", "slept")
GUEST = ("idle", "silent", "issued", "asked", "late", "queued")


def timeline(evs):
    """The guest's measures, each a list of (ns, value) in time order;
    each fio process's states, [(ns, "ran" | "cpu" | "slept")]; and the
    bios of each, by pid: dicts of when each was queued in the throttle
    (or let through), sent on, issued and done."""
    m = {k: [] for k in GUEST}
    m["cpus"] = {e[1] for e in evs}
    state, bios = {}, collections.defaultdict(list)
    busy, last, dispatching, sent, issued = {}, {}, {}, {}, {}
    idle_since = {}
    fifo, due, expired = collections.deque(), None, None
    m["unmatched"], m["preempted"], workers = 0, 0, set()
    for ts, cpu, comm, pid, ev, kv, text in evs:
        if busy.get(cpu) and ts - last[cpu] > 10**6:
            m["silent"].append((last[cpu], ts))
        last[cpu] = ts
        f = text.split()
        if ev == "sched_switch":
            if not busy.get(cpu, True):
                m["idle"].append((idle_since[cpu], ts))
            busy[cpu] = kv["next_pid"] != "0"
            idle_since[cpu] = ts
            prev, nxt = int(kv["prev_pid"]), int(kv["next_pid"])
            if prev in state:
                state[prev].append((ts, "cpu" if kv["prev_state"][0] == "R"
                                    else "slept"))
            if prev in workers and kv["prev_state"][0] == "R":
                m["preempted"] += 1
            if nxt in state:
                state[nxt].append((ts, "ran"))
        elif ev == "sched_wakeup" and int(kv["pid"]) in state:
            state[int(kv["pid"])].append((ts, "cpu"))
        elif ev == "throtl_bio" and comm == "fio":
            state.setdefault(pid, [(ts, "ran")])
        elif ev == "throtl_bio_ret" and kv["ret"] in ("1", "0x1"):
            bio = {"queued": ts}
            bios[pid].append(bio)
            fifo.append(bio)
            m["queued"].append((ts, len(fifo)))
        elif ev == "hrtimer_start" and kv["function"] == TIMER_FN:
            due = int(kv["expires"])
            m["asked"].append((ts, (due - ts) / 1e6))
        elif ev == "hrtimer_expire_entry" and kv["function"] == TIMER_FN:
            expired = due
        elif ev in ("workqueue_execute_start", "workqueue_execute_end"):
            dispatching[cpu] = ev.endswith("start") and WORK_FN in text
            if dispatching[cpu]:
                workers.add(pid)
            if dispatching[cpu] and expired is not None:
                m["late"].append((ts, (ts - expired) / 1e6))
                expired = None
        elif ev == "block_bio_queue" and comm == "fio" and \
                len(f) > 2 and f[2].isdigit():
            # a bio the throttle let through at once
            bio = {"queued": ts, "sent": ts}
            bios[pid].append(bio)
            sent[int(f[2])] = bio
        elif ev == "block_bio_queue" and dispatching.get(cpu):
            if not fifo:
                m["unmatched"] += 1
                continue
            bio = fifo.popleft()
            bio["sent"] = ts
            m["queued"].append((ts, len(fifo)))
            if len(f) > 2 and f[2].isdigit():
                sent[int(f[2])] = bio
        elif ev == "block_rq_issue" and len(f) > 6 and "R" in f[1]:
            # "MAJ,MIN RWBS BYTES () SECTOR + SECTORS ..."
            m["issued"].append((ts, int(f[2])))
            first, n = int(f[4]), int(f[6])
            rq = [sent.pop(s) for s in [s for s in sent
                                        if first <= s < first + n]]
            for bio in rq:
                bio["issued"] = ts
            issued[first] = rq
        elif ev == "block_rq_complete" and len(f) > 3 and \
                f[3].isdigit():
            # "MAJ,MIN RWBS () SECTOR + SECTORS ..."
            for bio in issued.pop(int(f[3]), []):
                bio["done"] = ts
    return m, state, bios


def segments(seq, a, b):
    """(state, from, to) of a task's state timeline seq between a and b"""
    i = bisect.bisect_left(seq, (a,))
    cur, st = a, seq[i - 1][1] if i else "ran"
    for ts, nxt in seq[i:]:
        if ts >= b:
            break
        yield st, cur, ts
        cur, st = ts, nxt
    yield st, cur, b


def states(seq, a, b):
    """{state: ns} of a task's state timeline seq between a and b"""
    out = dict.fromkeys(STATES, 0)
    for st, start, end in segments(seq, a, b):
        out[st] += end - start
    return out


def woken(seq, a, b):
    """When a task's state timeline seq last has it woken between a and
    b, or b if it does not sleep there."""
    when, before = b, None
    for st, start, _ in segments(seq, a, b):
        if before == "slept" and st != "slept":
            when = start
        before = st
    return when


def split(bios, start, end, wake):
    """{part of SPLIT: ns} of a read from start to end whose reader was
    last woken at wake: at the events of its reader's bio that completed
    last before then"""
    out = dict.fromkeys(SPLIT, 0)
    mine = [b for b in bios if start <= b.get("done", -1) <= wake]
    if not mine:
        out["other"] = end - start
        return out
    b = max(mine, key=lambda x: x["done"])
    t = [start] + [max(start, b[k]) for k in
                   ("queued", "sent", "issued", "done")] + [end]
    out.update(zip(SPLIT, (y - x for x, y in zip(t, t[1:]))))
    return out


def reads_split(reads, pids, state, bios):
    """Mean ms of each part of SPLIT, and % of each of STATES, over
    reads [(start ns, end ns, job, ms)]"""
    parts, sts = collections.Counter(), collections.Counter()
    for start, end, job, _ in reads:
        pid = pids[job - 1]
        parts.update(split(bios[pid], start, end,
                           woken(state[pid], start, end)))
        sts.update(states(state[pid], start, end))
    total = sum(sts.values())
    out = {k: parts[k] / 1e6 / len(reads) for k in SPLIT}
    out.update({k: 100.0 * sts[k] / total for k in STATES})
    return out


def guest(m, spans):
    """The GUEST measures over the union of spans [(start, end)] in ns."""
    def within(t):
        return any(a <= t <= b for a, b in spans)

    def most(key):
        return max([v for t, v in m[key] if within(t)] or [None])

    def overlaps(key):
        return [min(e, b) - max(s, a) for s, e in m[key]
                for a, b in spans if s < b and e > a]

    length = sum(b - a for a, b in spans)
    if not length:
        return dict.fromkeys(GUEST)
    return {
        "idle": 100.0 * sum(overlaps("idle")) / (length * len(m["cpus"])),
        "silent": max(overlaps("silent") or [0]) / 1e6,
        "issued": sum(n for t, n in m["issued"] if within(t)) / 2**20 /
        (length / 1e9),
        "asked": most("asked"),
        "late": most("late"),
        "queued": most("queued"),
    }


def table(head, keys, rows):
    print("| span (s) | reads | slowest (ms) | " +
          " | ".join(head) + " |")
    print("|---" * (3 + len(keys)) + "|")
    for label, v in rows:
        print("| %s | " % label + " | ".join(
            "-" if v[k] is None else "%.0f" % v[k] if k == "queued" else
            "%.1f" % v[k] for k in keys) + " |")
    print()


def label(reads, t0, span=None):
    """The first three cells of a row: span, reads, slowest."""
    who = len({r[2] for r in reads})
    head = "%.3f-%.3f" % tuple((t - t0) / 1e9 for t in span) if span \
        else "all bursts"
    return "%s | %d (%d reader%s) | %.1f" % (
        head, len(reads), who, "s"[who == 1:], max(r[3] for r in reads))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ms", type=float, default=30)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("dir")
    ap.add_argument("name")
    a = ap.parse_args()
    with open(os.path.join(a.dir, "realtime-offset")) as f:
        off = round(float(f.read()) * 1e9)
    # (start, end, job, ms) of each read, on the trace's clock, in ns;
    # fio logs the ms a read ended in, taken here at its end
    rs = sorted((end - round(ms * 1e6), end, job, ms)
                for end, job, ms in ((t * 10**6 - off + 10**6, job, ms)
                                     for t, job, ms in
                                     clat_reads(a.dir, a.name, 1)))
    if not rs:
        print("%s: no latency logs in %s" % (a.name, a.dir))
        return 1
    t0, t1 = rs[0][0], max(r[1] for r in rs)
    evs = [e for e in events(os.path.join(a.dir, "trace.txt"))
           if t0 - 10**9 <= e[0] <= t1]
    if not evs or evs[-1][0] < t1 - 10**7:
        print("%s: the trace does not cover the run" % a.name)
        return 1
    m, state, bios = timeline(evs)
    pids = sorted(p for p, seq in state.items() if seq[0][0] >= t0 - 10**9)
    slow = sorted(((r[1] / 1e6,) + r for r in rs if r[3] >= a.ms))
    groups = [[r[1:] for r in b] for b in bursts(slow)]
    spans = [(min(r[0] for r in b), max(r[1] for r in b)) for b in groups]
    rest, start = [], t0
    for s, e in sorted(spans):
        if s > start:
            rest.append((start, s))
        start = max(start, e)
    rest.append((start, t1))
    others = [r for r in rs if 1 <= r[3] < a.ms]
    top = sorted(sorted(zip(spans, groups),
                        key=lambda x: -max(r[3] for r in x[1]))[:a.top])
    every = [r for b in groups for r in b]
    print("%s: %d reads, %d over %g ms in %d burst%s (rows: the %d with "
          "the slowest reads, in time order, all bursts, the rest of the "
          "run); times from the run's first read; %d bios sent on by the "
          "dispatch work that the trace did not see queued\n" %
          (a.name, len(rs), len(slow), a.ms, len(groups),
           "s"[len(groups) == 1:], len(top), m["unmatched"]))
    # the check of the jobs' processes: a read that waited ends with its
    # reader on a CPU, within the ms fio logs and a ms of its clock's
    # drift from the trace's over a run
    long = [r for r in rs if r[3] > 5]
    tied = sum(states(state[pids[job - 1]], end - 2 * 10**6,
                      end + 10**6)["ran"] > 0 for _, end, job, _ in long)
    if long:
        print("Reads over 5 ms that end with the process taken for their "
              "job on a CPU: %d of %d (%.0f%%)\n" %
              (tied, len(long), 100.0 * tied / len(long)))
    waits = sorted(b["issued"] - b["sent"] for pb in bios.values()
                   for b in pb if "issued" in b and b["sent"] > b["queued"])
    if waits:
        print("Bios the dispatch work sent on: %d; from sent on to issued: "
              "p50 %.2f, p99 %.2f, p99.9 %.2f, max %.2f ms; its kworkers "
              "preempted %d times\n" %
              ((len(waits),) + tuple(pct(waits, q) / 1e6
                                     for q in (0.5, 0.99, 0.999, 1)) +
               (m["preempted"],)))
    rows = [(label(b, t0, span), b, [span]) for span, b in top]
    if every:
        rows.append((label(every, t0), every, spans))
    rows.append(("the rest of the run | %d over 1 ms | %.1f" %
                 (len(others), max(r[3] for r in others)), others, rest))
    table(["before", "throttle", "to issue", "device", "after", "other",
           "ran (%)", "cpu (%)", "slept (%)"], SPLIT + STATES,
          [(lb, reads_split(b, pids, state, bios)) for lb, b, _ in rows])
    table(["idle (%)", "silent (ms)", "issued (MiB/s)", "asked (ms)",
           "late (ms)", "queued (bios)"], GUEST,
          [(lb, guest(m, sp)) for lb, _, sp in rows])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
