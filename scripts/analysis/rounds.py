#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How often each check passed over rounds of control.py tables.

  rounds.py repeat DIR N HZ MINUTES
      DIR/control-I.md and .rc, I = 1..N: make repeat's rounds on the
      virtual clock (results/repeat-hzHZ.md)
  rounds.py host DIR N HZ MINUTES RUNTIME
      DIR/normal-I.md, DIR/debug-I.md and .rc, and DIR/virtio.md: make
      host-rounds' rounds on the host's clock (results/host-clock.md)

The table goes to stdout.
"""
import collections
import sys


def table(path):
    """(test, check) -> (patched, vanilla, control) cells of a control.py table"""
    rows = collections.OrderedDict()
    for line in open(path).read().splitlines()[2:]:
        test, check, p, v, ctl = [c.strip() for c in line.strip("|").split("|")]
        rows[(test, check)] = (p, v, ctl)
    return rows


def rc(path):
    return open(path).read().strip()


def count(cells):
    """"pass 9/10, FAIL 1/10" for the cells' verdicts (their first word)"""
    c = collections.Counter(x.split()[0] if x else "-" for x in cells)
    return ", ".join("%s %d/%d" % (k, v, len(cells)) for k, v in c.items())


def repeat(d, n, hz, mins):
    seen = collections.OrderedDict()
    for i in range(1, n + 1):
        for key, (p, v, _) in table("%s/control-%d.md" % (d, i)).items():
            s = seen.setdefault(key, {"p": [], "v": []})
            s["p"].append(p)
            s["v"].append(v)
    rcs = " ".join(rc("%s/control-%d.rc" % (d, i)) for i in range(1, n + 1))
    print("# make test's timing verdicts, %d rounds (HZ=%s, virtual clock)\n"
          % (n, hz))
    print("`make repeat N=%d HZ=%s`: each round boots the patched and the "
          "vanilla kernel on QEMU's virtual clock and judges them with "
          "`control.py`, as `make test` does; %s minutes for all rounds. "
          "control.sh's exit status per round: %s.\n" % (n, hz, mins, rcs))
    print("\"figures\": how many different figures the check printed over "
          "the rounds (1: the same to the last digit every time).\n")
    print("| test | check | patched | figures | vanilla | figures |")
    print("|---|---|---|---|---|---|")
    for (test, check), s in seen.items():
        print("| %s | %s | %s | %d | %s | %d |" % (
            test, check, count(s["p"]), len(set(s["p"])),
            count(s["v"]), len(set(s["v"]))))


def host(d, n, hz, mins, runtime):
    seen = collections.OrderedDict()
    for i in range(1, n + 1):
        for kind in ("normal", "debug"):
            for key, (p, v, ctl) in table("%s/%s-%d.md" % (d, kind, i)).items():
                s = seen.setdefault(key, {"normal": [], "debug": [],
                                          "vanilla": [], "ctl": []})
                s[kind].append(p)
                if kind == "normal":
                    s["vanilla"].append(v)
                    if ctl:
                        s["ctl"].append(ctl)
    rcs = {k: " ".join(rc("%s/%s-%d.rc" % (d, k, i)) for i in range(1, n + 1))
           for k in ("normal", "debug")}
    print("# The kselftests on the host's clock, default bounds, %d rounds\n"
          % n)
    print("`make host-rounds N=%d HZ=%s`, BLK_THROTTLE_RUNTIME=%s, %s "
          "minutes: each round boots the series, its debug variant (KASAN, "
          "lockdep, UBSAN) and vanilla 7.3 under QEMU TCG on the host's "
          "clock with two vCPUs and runs the timing kselftests at their "
          "default (wide) bounds; `control.py --wide` judges each round "
          "(exit status per round, series: %s; debug: %s). A check the "
          "series exists for must fail on vanilla by at least half the "
          "margin make test asks at the tight bounds, and at least 2x.\n"
          % (n, hz, runtime, mins, rcs["normal"], rcs["debug"]))
    print("| test | check | series | debug | vanilla | control (round 1) |")
    print("|---|---|---|---|---|---|")
    for (test, check), s in seen.items():
        print("| %s | %s | %s | %s | %s | %s |" % (
            test, check, count(s["normal"]), count(s["debug"]),
            count(s["vanilla"]), s["ctl"][0] if s["ctl"] else ""))
    print("\n## Once on a virtio-blk disk\n")
    print("The tests that read a disk of their own (`BLK_THROTTLE_TEST_DEV`"
          "=/dev/vda, a sparse 1 GiB file), the series against vanilla "
          "(control.py exit status %s):\n" % rc("%s/virtio.rc" % d))
    print(open("%s/virtio.md" % d).read())


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "repeat":
        repeat(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5])
    elif len(sys.argv) == 7 and sys.argv[1] == "host":
        host(sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5],
             sys.argv[6])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
