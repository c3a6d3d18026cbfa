#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a cover letter may say its patches build with, from the kernel
test robot's cells on record (results/robot-cells.tsv, robot.sh).

  robot-claim.py CELLS TREE...

TREE is what the checks read of each commit of one series (robot_tree in
scripts/pipeline/lib.sh: its tree but tools/testing/selftests/). A check is named
when its latest cell on record is "ok" for every one of them; a check
with no cell for one of them is left out; a check that is anything but
"ok" for one of them fails the claim (exit 1), so that a cover letter
never outlives a red cell. Prints one paragraph, wrapped at 72 columns.
"""
import sys
import textwrap


def latest(path, trees):
    """{(check, tree): result} of the latest cell of each, for TREES"""
    cells = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if line.startswith("#") or len(f) != 5 or f[1] not in trees:
            continue
        key = (f[0], f[1])
        if key not in cells or f[4] >= cells[key][1]:
            cells[key] = (f[3], f[4])
    return {k: v[0] for k, v in cells.items()}


def join(words):
    return words[0] if len(words) == 1 else \
        ", ".join(words[:-1]) + " and " + words[-1]


def main():
    path, trees = sys.argv[1], sys.argv[2:]
    cells = latest(path, set(trees))
    green = set()
    for check in {c for c, _ in cells}:
        results = [cells.get((check, t)) for t in trees]
        bad = [i + 1 for i, r in enumerate(results) if r not in (None, "ok")]
        if bad:
            sys.exit("robot-claim.py: %s is not ok at patch %s (%s)" %
                     (check, ", ".join(map(str, bad)), path))
        if None not in results:
            green.add(check)

    x86 = [c for c in ("gcc", "clang") if c in green]
    where = ["x86_64 (%s)" % join(x86)] if x86 else []
    where += [w for c, w in (("i386", "i386"), ("arm32", "32-bit arm"))
              if c in green]
    if not where:
        sys.exit("robot-claim.py: no build on record for every patch")
    parts = ["Each patch builds with W=1 and no new warning on " + join(where)]
    off = [o for c, o in (("noblkcg", "CONFIG_BLK_CGROUP=n"),
                          ("nothrottle", "CONFIG_BLK_DEV_THROTTLING=n"),
                          ("notrace", "CONFIG_BLK_DEV_IO_TRACE=n"))
           if c in green]
    if off:
        parts.append("with " + join(off))
    rand = sum(1 for c in green if c.startswith("rand"))
    if rand:
        parts.append("in %s random configurations of the block, cgroup, "
                     "timer and debug options" %
                     ("one two three four five".split()[rand - 1]
                      if rand <= 5 else rand))
    text = "; and ".join(["; ".join(parts[:-1]), parts[-1]] if
                         len(parts) > 1 else parts) + "."
    if "sparse" in green:
        text += " Sparse finds nothing new in the files it touches."
    if "boot" in green:
        text += " Each boots and passes the KUnit suites it has."
    print(textwrap.fill(text, 72))


if __name__ == "__main__":
    main()
