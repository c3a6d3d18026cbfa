#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print benchmark results as plain-text tables for commit messages and
the cover letter (72 columns, no markup), from one or more bench.json
files written by analyze.py.

  bench-table.py results/bench.json [results/hz250/bench.json ...]
"""
import json
import sys


def ms(us):
    return "%.1f" % (us / 1000.0) if us >= 100 else "%.2f" % (us / 1000.0)


def rate(e, k):
    m = e[k]
    if "iops" in e["io_max"] or "riops" in e["io_max"]:
        return "%.1f" % m["iops"]
    if e["io_max"] in ("none", ""):
        return "%.0f" % m["iops"]
    return "%.0fK" % m["bw_kib_s"]


def table(res):
    out = ["%s, HZ=%d, %s, %ds per scenario (%s):" % (
        res["base_version"], res["hz"], "KVM" if res["kvm"] else "QEMU TCG",
        res["runtime_s"], res["date"][:10]), ""]
    out.append("%-15s %-8s %9s %7s %7s %7s %7s %6s" % (
        "scenario", "kernel", "rate", "p50", "p99", "p99.9", "max", "Jain"))
    out.append("%-15s %-8s %9s %7s %7s %7s %7s %6s" % (
        "", "", "", "ms", "ms", "ms", "ms", ""))
    for name in res["scenarios"]:
        e = res[name]
        for k in ("vanilla", "patched"):
            m = e[k]
            jain = "%.3f" % m["jain"] if "readers" in m else ""
            out.append("%-15s %-8s %9s %7s %7s %7s %7s %6s" % (
                name if k == "vanilla" else "", k, rate(e, k),
                ms(m["p50_us"]), ms(m["p99_us"]), ms(m["p999_us"]),
                ms(m["max_us"]), jain))
    out += ["", "rate: IOPS under an iops limit or none, KiB/s under a bps"
            " limit; latency: fio clat, the worst reader where several."]
    return out


def main(paths):
    for i, p in enumerate(paths):
        with open(p) as f:
            res = json.load(f)
        if i:
            print()
        print("\n".join(table(res)))


if __name__ == "__main__":
    main(sys.argv[1:])
