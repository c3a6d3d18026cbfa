#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The HZ matrix table: one row per test case, one column per kernel run.

Reads the run summaries hz-matrix.sh keeps (results/hz-matrix/VARIANT-hzN.txt,
as run-tests.sh writes them) and prints markdown. A case is known by its
test and its place in that test's plan, which is the same on every kernel;
its name is its description up to the figures it printed.

    hz-matrix.py RESULTS_DIR
"""
import os
import re
import sys

CASE = re.compile(r"\s+\[(PASSED|FAILED|SKIPPED)\] (.*)")
# the figures a description ends with: ": 1 2 s, ...", ": EIO yes, ...",
# ": p99 123.4us ...", ": 208 ms, ...", " (...)"
FIGURES = re.compile(r"(: (\d[\d ]* s|EIO \w+|p99 [\d.]+us|[\d.]+ ms)\b| \().*")


def cases(path):
    """(test, n) -> (name, result) for one run summary."""
    out, test, n = {}, "KUnit", 0
    for line in open(path):
        m = re.match(r"  (\S+\.sh):$", line)
        if m:
            test, n = m.group(1), 0
            continue
        m = CASE.match(line)
        if not m or m.group(2).startswith("selftests: "):
            continue
        n += 1
        out[(test, n)] = (FIGURES.sub("", m.group(2)), m.group(1).lower())
    return out


def main(res):
    runs = {}
    for f in os.listdir(res):
        m = re.match(r"(vanilla|patched)-hz(\d+)\.txt$", f)
        if m:
            runs[(int(m.group(2)), m.group(1))] = cases(os.path.join(res, f))
    cols = sorted(runs, key=lambda k: (k[0], k[1] != "vanilla"))
    rows = []
    for r in runs.values():
        rows += [k for k in r if k not in rows]
    print("# HZ matrix: vanilla and patched at each tick rate\n")
    print("Regenerate with `make hz-matrix`; each run's figures are in "
          "`results/hz-matrix/`.\n")
    print("| test | case | " +
          " | ".join("HZ=%d %s" % c for c in cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    for k in rows:
        name = next(r[k][0] for r in runs.values() if k in r)
        print("| %s | %s | " % (k[0], name) + " | ".join(
            runs[c][k][1] if k in runs[c] else "-" for c in cols) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
