#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""When a run's slow reads ended, and whether its readers waited alone or
together, from guest-bench.sh's fio latency logs (NAME.r1_clat.N.log,
one per reader): the reads of the first second apart from the rest, then
the bursts of reads slower than MS (default 30) that ended within 50 ms
of each other: how many, how many caught every reader, and the TOP
(default 10) with the slowest reads, in time order.

  slow-reads.py [--ms MS] [--top TOP] LABEL=DIR NAME...
"""
import argparse

from analyze import bursts, clat_reads, pct


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ms", type=float, default=30)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("dir")
    ap.add_argument("names", nargs="+")
    a = ap.parse_args()
    label, d = a.dir.split("=", 1)
    for name in a.names:
        rs = sorted(clat_reads(d, name, 1))
        if not rs:
            continue
        first = [ms for t, _, ms in rs if t < 1000]
        rest = sorted(ms for t, _, ms in rs if t >= 1000)
        if not first or not rest:
            print("%s %s: no reads on one side of the first second"
                  % (label, name))
            continue
        print("%s %s: %d reads; the first second's slowest %.1f ms; "
              "after it %d reads, p99.9 %.1f, p99.99 %.1f, slowest %.1f ms"
              % (label, name, len(rs), max(first), len(rest),
                 pct(rest, 0.999), pct(rest, 0.9999), rest[-1]))
        nreaders = len({r[1] for r in rs})
        bs = bursts([r for r in rs if r[2] >= a.ms])
        every = sum(len({r[1] for r in b}) == nreaders for b in bs)
        print("  %d bursts of reads over %g ms, %d of them catching all %d "
              "readers" % (len(bs), a.ms, every, nreaders))
        top = sorted(bs, key=lambda b: -max(r[2] for r in b))[:a.top]
        for b in sorted(top):
            who = sorted({r[1] for r in b})
            print("  %7.3f-%7.3f s: %3d reads over %g ms, %d readers (%s), "
                  "slowest %.1f ms" % (b[0][0] / 1000, b[-1][0] / 1000,
                                        len(b), a.ms, len(who),
                                        ",".join(map(str, who)),
                                        max(r[2] for r in b)))


if __name__ == "__main__":
    main()
