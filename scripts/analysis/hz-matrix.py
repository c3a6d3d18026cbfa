#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The HZ matrix table: one row per test case, one column per kernel run.

Then the seed scenario's latencies and the achieved rates at riops=37
and 333, as tail_latency.sh printed them, per run.

Reads the run summaries hz-matrix.sh keeps (results/hz-matrix/
VARIANT-hzN.txt, or results/hz-matrix-virtual/, as test.sh writes them)
and prints markdown. A case is known by its test and its name, its
description up to the figures it printed.

    hz-matrix.py RESULTS_DIR
"""
import os
import re
import sys

CASE = re.compile(r"\s+\[(PASSED|FAILED|SKIPPED)\] (.*)")
# the figures a description ends with: its last ": ..." where that holds
# a comparison or a verdict (blk_throttle_lib.sh's "V U <= B U",
# "V U within P% of B U", "V U in A..B U", "V U = B U"; ": EIO, blktests
# expects EIO"; older runs' ": 1 s, blktests expects 1 (1007 ms)",
# ": p99 59506.688us <= 15ms", ": 165 ms, 194 ms alone"), then a " (...)"
# left at its end
VERDICT = re.compile(r"<=|>=| = | within | in [\d.]+\.\.|expects|"
                     r"^[\d.]+ ?(us|ms|s)\b")
PARENS = re.compile(r" \(.*\)$")


def cases(path):
    """(test, name) -> result for one run summary, in its order."""
    out, test = {}, "KUnit"
    for line in open(path):
        m = re.match(r"  (\S+\.sh):$", line)
        if m:
            test = m.group(1)
            continue
        m = CASE.match(line)
        if not m or m.group(2).startswith("selftests: "):
            continue
        key = (test, name(m.group(2)))
        if key in out:
            sys.exit("%s: two cases named \"%s\"" % (path, key[1]))
        out[key] = m.group(1).lower()
    return out


def name(desc):
    """a case's description without the figures it printed"""
    i = desc.rfind(": ")
    if i >= 0 and VERDICT.search(desc[i + 2:]):
        desc = desc[:i]
    return PARENS.sub("", desc)


SEED = re.compile(r"# riops=100 for \d+s: iops=([\d.]+) .*p99=([\d.]+)us "
                  r"p99\.9=([\d.]+)us max=([\d.]+)us")
RATE = re.compile(r"# riops=(37|333): ([\d.]+) IOPS, ([\d.]+) after the first "
                  r"burst")


def figures(path):
    """the seed scenario's IOPS, p99, p99.9, max (ms), the two rates"""
    out = {}
    for line in open(path):
        m = SEED.search(line)
        if m:
            v = [float(x) for x in m.groups()]
            out["seed"] = [v[0]] + [x / 1000 for x in v[1:]]
        m = RATE.search(line)
        if m:
            out[m.group(1)] = float(m.group(3))
    return out


def main(res):
    runs = {}
    figs = {}
    stamps = []
    for f in os.listdir(res):
        m = re.match(r"(\w[\w-]*)-hz(\d+)\.txt$", f)
        if m:
            key = (int(m.group(2)), m.group(1))
            path = os.path.join(res, f)
            runs[key] = cases(path)
            figs[key] = figures(path)
            stamps += re.findall(r"\d{4}-\d\d-\d\dT[\d:]+Z",
                                 open(path).read(300))
    stamps.sort()
    order = ["vanilla", "core", "patched"]
    cols = sorted(runs, key=lambda k: (k[0], order.index(k[1])
                                       if k[1] in order else 3, k[1]))
    rows = []
    for r in sorted(runs.values(), key=len, reverse=True):
        rows += [k for k in r if k not in rows]
    base = os.path.basename(os.path.normpath(res))
    if base.endswith("-virtual"):
        print("# HZ matrix on QEMU's virtual clock\n")
        print("Vanilla, the core and the series at each tick rate, "
              "each guest on one vCPU whose clock advances one "
              "nanosecond per instruction and jumps over idle time "
              "(QEMU `-icount shift=0,sleep=off`): "
              "what fio measures on null_blk is the kernel's own timing, "
              "with none of the emulator's interrupt latency or the host's "
              "steal in it. Only `tail_latency.sh` runs there (see "
              "`scripts/instruments/hz-matrix.sh`). Regenerate with "
              "`make hz-matrix CLOCK=virtual`; each run's figures are in "
              "`results/%s/`.\n" % base)
        if stamps:
            print("Runs from %s to %s.\n" % (stamps[0], stamps[-1]))
    else:
        print("# HZ matrix: vanilla, the core and the series at each "
              "tick rate\n")
        print("Regenerate with `make hz-matrix`; each run's figures are in "
              "`results/%s/`.\n" % base)
    print("| test | case | " +
          " | ".join("HZ=%d %s" % c for c in cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    for k in rows:
        print("| %s | %s | " % k + " | ".join(
            runs[c].get(k, "-") for c in cols) + " |")

    print("\n## Figures from tail_latency.sh\n")
    print("The seed scenario (riops=100, 4 KiB random direct reads, 4 ms "
          "think time; ideal: every read waits 6 ms), and the IOPS of a "
          "back-to-back reader at riops=37 and 333 after its first burst "
          "(the test's check: within 0.5%).\n")
    print("| kernel | seed IOPS | p99 | p99.9 | max | riops=37 | riops=333 |")
    print("|---|---|---|---|---|---|---|")
    for c in cols:
        f = figs[c]
        seed = f.get("seed")
        cells = ["%.1f" % seed[0]] + ["%.2f ms" % x for x in seed[1:]] \
            if seed else ["-"] * 4
        cells += ["%.3f" % f[r] if r in f else "-" for r in ("37", "333")]
        print("| HZ=%d %s | " % c + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
