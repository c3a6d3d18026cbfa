# SPDX-License-Identifier: GPL-2.0
"""The lines of a trace that guest-trace.sh recorded, as events (for
trace-seed.py and trace-bursts.py)."""
import re

LINE = re.compile(r"^\s*(.*)-(\d+)\s+\[(\d+)\]\s+(?:\S+\s+)?"
                  r"(\d+\.\d+): (\w+): (.*)$")
KV = re.compile(r"(\w+)=(\S+)")
# the function of the throttle's dispatch timer
TIMER_FN = "throtl_pending_timer_fn"
# and of the work it queues, which sends the queued bios on
WORK_FN = "blk_throtl_dispatch_work_fn"


def events(path):
    """(ns, cpu, comm, pid, event, fields, text) for each trace line."""
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            comm, pid, cpu, ts, ev, rest = m.groups()
            yield (round(float(ts) * 1e9), int(cpu), comm.strip(),
                   int(pid), ev, dict(KV.findall(rest)), rest)
