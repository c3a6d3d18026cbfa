#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stack-resolve.py SYSTEM_MAP - name the kernel addresses on stdin

Copies stdin to stdout with each 0xffff... address replaced by
function+offset from SYSTEM_MAP (the text symbols of the kernel that
printed them); in stack-sample.py's stacks ("FRAME < FRAME ..."), the
scheduler's own frames are left out.
"""
import bisect
import re
import sys

SCHED = ("__schedule+", "schedule+", "io_schedule+", "schedule_timeout+",
         "schedule_hrtimeout_range_clock+")


def main():
    syms = []
    for line in open(sys.argv[1]):
        addr, kind, name = line.split()[:3]
        if kind in "tTwW":
            syms.append((int(addr, 16), name))
    syms.sort()
    starts = [a for a, _ in syms]

    def name(m):
        addr = int(m.group(0), 16)
        i = bisect.bisect_right(starts, addr) - 1
        return "%s+0x%x" % (syms[i][1], addr - syms[i][0]) if i >= 0 \
            else m.group(0)

    for line in sys.stdin:
        line = re.sub(r"0x[0-9a-f]{16}", name, line)
        if " < " in line:
            frames = line.rstrip("\n").split(" < ")
            head, _, frames[0] = frames[0].rpartition(" ")
            line = "%s %s\n" % (head, " < ".join(
                f for f in frames if not f.startswith(SCHED)))
        sys.stdout.write(line)


if __name__ == "__main__":
    main()
