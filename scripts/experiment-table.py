#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The figures of guest-bench.sh runs on several kernels, side by side,
for an experiment (a bench/NAME.patch variant) measured against vanilla
and the series:

    experiment-table.py [--reads] [--text] LABEL=DIR... -- SCENARIO...

One row a scenario and kernel. Buffered writes (the default): what the
writer's group was charged (KiB/s, its slowest and fastest second), its
writes to the device, its slowest write(2), and beside an unlimited
group, that group's fsync p99 and max and its metadata operations' max
and count. Reads (--reads): the readers' rate, their mean (in us), p99,
p99.9 and slowest read, Jain's index over the readers, the group's
reads on the device (bios) and the requests the disk completed (every
group's, after the scheduler merged bios), with their mean sizes, and
an unlimited sibling's reads (IOPS and p99) where one ran. Over
a scenario's rounds the worst maxima and the mean of the rest
(analyze.metrics). --text prints plain columns, for a commit message,
in place of a Markdown table: times in ms, no rounds.
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
READ_COLS = [("bw_kib_s", "KiB/s"),
             ("mean_us", "mean us"),
             ("p99_us", "p99"),
             ("p999_us", "p99.9"),
             ("max_us", "max"),
             ("jain", "Jain"),
             ("rios", "reads"),
             ("mean_bio_kib", "KiB"),
             ("disk_reads", "requests"),
             ("mean_req_kib", "KiB"),
             ("others_read_iops", "others IOPS"),
             ("others_read_p99_us", "others p99")]
SPEC = {key: spec for key, _, spec in analyze.TABLE}


def cell(key, m, text):
    """One figure of @m, as bench.md prints it, or in ms for --text."""
    spec = SPEC.get(key, "{:.0f}")
    if key not in m or m[key] is None:
        return "-"
    if text and spec == "ms":
        return "%.1f" % (m[key] / 1000.0)
    return analyze.fmt(key, spec, m[key])


def main(argv):
    if "--" not in argv:
        print(__doc__, file=sys.stderr)
        return 2
    cols, text = COLS, False
    while argv[0] in ("--reads", "--text"):
        if argv[0] == "--reads":
            cols = READ_COLS
        text = text or argv[0] == "--text"
        argv = argv[1:]
    i = argv.index("--")
    kernels = [a.split("=", 1) for a in argv[:i]]
    # a commit message's table has no rounds column
    head = ["scenario", "kernel"] + ([] if text else ["rounds"])
    rows = [head + [c[1] for c in cols]]
    for name in argv[i + 1:]:
        for label, d in kernels:
            m = analyze.metrics(d, name)
            n = [] if text else [str(len(m.get("rounds", [m])))]
            rows.append([name, label] + n +
                        [cell(k, m, text) for k, _ in cols])
    if not text:
        print("| %s |" % " | ".join(rows[0]))
        print("|---" * len(rows[0]) + "|")
        for r in rows[1:]:
            print("| %s |" % " | ".join(r))
        return 0
    width = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    for n, r in enumerate(rows):
        if n > 1 and r[0] == rows[n - 1][0]:
            r = [""] + r[1:]
        print(" ".join(v.ljust(w + 1) if c < 2 else v.rjust(w)
                       for c, (v, w) in enumerate(zip(r, width))).rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
