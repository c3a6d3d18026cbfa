#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Counts the kernel stacks guest-stacks.sh sampled, resolved against
the System.map of the kernel that ran (the guest kernel has no kallsyms,
so /proc/PID/stack gives bare addresses):

    stacks-report.py SYSTEM.MAP STACKS.TXT [DEPTH]

One line a distinct stack (its DEPTH innermost frames, 12 unless given)
and task (name and cgroup), most sampled first: how many samples, the
task, the frames from the innermost out. A frame is its function and
offset, which objdump -d of vmlinux turns into the line it waits on.
"""
import bisect
import collections
import re
import sys


def load_map(path):
    syms = []
    with open(path) as f:
        for line in f:
            addr, kind, name = line.split()[:3]
            if kind in "tTwW":
                syms.append((int(addr, 16), name))
    syms.sort()
    return [a for a, _ in syms], syms


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    addrs, syms = load_map(argv[0])
    depth = int(argv[2]) if len(argv) == 3 else 12

    def resolve(x):
        i = bisect.bisect_right(addrs, x) - 1
        return "%s+0x%x" % (syms[i][1], x - syms[i][0]) if i >= 0 else hex(x)

    count = collections.Counter()
    task, frames = None, []
    with open(argv[1]) as f:
        for line in f:
            if line.startswith("@@"):
                if task:
                    count[(task, tuple(frames[:depth]))] += 1
                # "@@ TIME PID STATE COMM CGROUP": COMM may hold spaces
                fields = line.split()
                task = " ".join(fields[4:])
                frames = []
            elif not line.startswith("%%"):
                m = re.search(r"0x([0-9a-f]+)", line)
                if m:
                    frames.append(resolve(int(m.group(1), 16)))
    if task:
        count[(task, tuple(frames[:depth]))] += 1
    for (task, frames), n in count.most_common():
        print("%5d  %s: %s" % (n, task, " < ".join(frames) or "(running)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
