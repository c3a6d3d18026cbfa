#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One row per round of the seed scenario: rate, clat percentiles and
how many reads took longer than 6.5 and 8 ms (issue 5's p99 and p99.9
targets), from guest-bench.sh's NAME.rN.json and NAME.rN_clat.*.log.

  seed-tail.py LABEL=DIR...
"""
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools", "testing", "selftests",
                                "blk-throttle"))
import fio_summary  # noqa: E402


def over(logs, limits_us):
    """reads slower than each limit in fio clat logs (ns), or None"""
    if not logs:
        return [None] * len(limits_us)
    n = [0] * len(limits_us)
    for path in logs:
        with open(path) as f:
            for line in f:
                us = int(line.split(",")[1]) / 1000
                for i, lim in enumerate(limits_us):
                    n[i] += us > lim
    return n


def main(argv):
    print("| kernel | round | IOPS | p50 | p99 | p99.9 | max "
          "| reads > 6.5 ms | reads > 8 ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for arg in argv[1:]:
        label, d = arg.split("=", 1)
        for path in sorted(glob.glob(os.path.join(d, "seed000.r*.json"))):
            rnd = path.rsplit(".r", 1)[1].split(".")[0]
            m, _ = fio_summary.summarise(fio_summary.load(path))
            logs = glob.glob(os.path.join(d, f"seed000.r{rnd}_clat.*.log"))
            a, b = over(logs, (6500, 8000))
            ms = [f"{m[k] / 1000:.2f} ms"
                  for k in ("p50_us", "p99_us", "p999_us", "max_us")]
            print(f"| {label} | {rnd} | {m['iops']:.2f} | " + " | ".join(ms) +
                  f" | {'-' if a is None else a} | {'-' if b is None else b} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
