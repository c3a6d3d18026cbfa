#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The buffered-write figures of guest-bench.sh runs on several kernels,
side by side, for an experiment (a bench/NAME.patch variant) measured
against the runs of a make bench:

    experiment-table.py LABEL=DIR... -- SCENARIO...

One row a scenario and kernel: what the writer's group was charged
(KiB/s, its slowest and fastest second), its writes to the device, its
slowest write(2), and beside an unlimited group, that group's fsync p99
and max and its metadata operations' max and count. Over a scenario's
rounds the worst maxima and the mean of the rest (analyze.metrics).
"""
import sys

import analyze

# the columns, in bench.md's formats (analyze.TABLE); a short header each
COLS = [("charged_kib_s", "charged KiB/s"),
        ("charged_min_kib_s", "slowest s"),
        ("charged_max_kib_s", "fastest s"),
        ("wios", "writes"),
        ("max_us", "slowest write(2)"),
        ("others_fsync_p99_us", "others: fsync p99"),
        ("others_fsync_max_us", "others: fsync max"),
        ("meta_max_us", "others: metadata max"),
        ("meta_ops", "metadata ops")]
SPEC = {key: spec for key, _, spec in analyze.TABLE}


def main(argv):
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    i = argv.index("--")
    kernels = [a.split("=", 1) for a in argv[:i]]
    print("| scenario | kernel | rounds | %s |" % " | ".join(c[1] for c in COLS))
    print("|---|---|---|" + "---|" * len(COLS))
    for name in argv[i + 1:]:
        for label, d in kernels:
            m = analyze.metrics(d, name)
            cells = [analyze.fmt(k, SPEC.get(k, "{:.0f}"), m.get(k))
                     if k in m else "-" for k, _ in COLS]
            print("| %s | %s | %d | %s |" % (name, label,
                                              len(m.get("rounds", [m])),
                                              " | ".join(cells)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
