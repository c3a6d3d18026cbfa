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
from analyze import clat_ms  # noqa: E402


def main(argv):
    print("| kernel | round | IOPS | p50 | p99 | p99.9 | max "
          "| reads > 6.5 ms | reads > 8 ms |")
    print("|---|---|---|---|---|---|---|---|---|")
    for arg in argv[1:]:
        label, d = arg.split("=", 1)
        for path in sorted(glob.glob(os.path.join(d, "seed000.r*.json"))):
            rnd = path.rsplit(".r", 1)[1].split(".")[0]
            m, _ = fio_summary.summarise(fio_summary.load(path))
            lat = clat_ms(d, "seed000", rnd)
            a, b = (sum(v > lim for v in lat) if lat else "-"
                    for lim in (6.5, 8))
            ms = [f"{m[k] / 1000:.2f} ms"
                  for k in ("p50_us", "p99_us", "p999_us", "max_us")]
            print(f"| {label} | {rnd} | {m['iops']:.2f} | " + " | ".join(ms) +
                  f" | {a} | {b} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
