#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stack-sample.py SECONDS OUT PATTERN... - where tasks sleep, in the guest

For SECONDS, every 5 ms, read /proc/PID/stack of each task whose command
line contains one of PATTERNs (or whose comm starts with it) and count
each stack by its innermost ten frames. Writes "COUNT PATTERN FRAME <
FRAME ..." to OUT, most often first, after a "samples N" line. The
addresses are raw (the guest's kernel has no kallsyms to name them):
stack-resolve.py names them from the kernel's System.map and leaves the
scheduler's own frames out.
"""
import collections
import os
import sys
import time


def tasks(patterns):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            comm = open("/proc/%s/comm" % pid).read().strip()
            cmd = open("/proc/%s/cmdline" % pid).read().replace("\0", " ")
        except OSError:
            continue
        for p in patterns:
            if comm.startswith(p) or (p in cmd and pid != str(os.getpid())):
                found.append((p, pid))
                break
    return found


def main():
    secs, out, patterns = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
    counts = collections.Counter()
    end = time.monotonic() + secs
    found, looked, n = [], 0.0, 0
    while time.monotonic() < end:
        if time.monotonic() - looked > 1:
            found, looked = tasks(patterns), time.monotonic()
        for p, pid in found:
            try:
                lines = open("/proc/%s/stack" % pid).read().split("\n")
            except OSError:
                continue
            frames = [l.split()[1].split("+")[0] for l in lines if l.strip()]
            counts[(p, " < ".join(frames[:10]))] += 1
        n += 1
        time.sleep(0.005)
    with open(out, "w") as f:
        f.write("samples %d\n" % n)
        for (p, stack), c in counts.most_common(20):
            f.write("%d %s %s\n" % (c, p, stack))


if __name__ == "__main__":
    main()
