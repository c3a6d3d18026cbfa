#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print benchmark results as plain-text tables for commit messages and
the cover letter (72 columns, no markup), from one or more bench.json
files written by analyze.py.

  bench-table.py [--rates|--costs|--writes|--charged|--waits] \
      [--kernel=NAME] [--scenarios=a,b] \
      results/bench.json [...]

--rates prints rate against the rbps limit, the device reads and their
mean size, and the patched / vanilla ratios instead of the percentiles;
--costs prints rate and p99 beside what they cost the guest: timer
softirqs a second and system CPU; --writes prints, for buffered
writers, what the group was charged against its wbps limit, second by
second, and its device writes, and beside a writer, how long a group
with no limit waited for its fsyncs and metadata operations; --charged
the same for readers behind rbps as well (their device reads); --waits
prints, for readers held at their limit, the mean wait the rate sets
beside how the reads share it (mean, percentiles, stdev).

--kernel=NAME prints the figures of NAME (core, say: the core's own
cover letter) where the tables print patched's, beside vanilla's.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from analyze import emulator, rate_in_bytes, spread  # noqa: E402


SHOWN = "patched"


def label(k):
    """The name a row of kernel k goes by: SHOWN for patched's figures."""
    return SHOWN if k == "patched" else k


def show(res, name):
    """Put kernel name's figures where the tables read patched's."""
    if isinstance(res, dict):
        if "vanilla" in res and name in res:
            res["patched"] = res[name]
        for v in res.values():
            show(v, name)


def ms(us):
    return "%.1f" % (us / 1000.0) if us >= 100 else "%.2f" % (us / 1000.0)


def rate(e, k):
    m = e[k]
    if rate_in_bytes(e["io_max"]):
        return "%.0fK" % m["bw_kib_s"]
    return ("%.1f" if m["iops"] < 1000 else "%.0f") % m["iops"]


def title(res):
    """The run a table comes from, and a blank line."""
    return ["%s, HZ=%d, %s, %ds per scenario (%s):" % (
        res["base_version"], res["hz"], emulator(res), res["runtime_s"],
        res["date"][:10]), ""]


def table(res):
    out = title(res)
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
                name if k == "vanilla" else "", label(k), rate(e, k),
                ms(m["p50_us"]), ms(m["p99_us"]), ms(m["p999_us"]),
                ms(m["max_us"]), jain))
    out += ["", "rate: KiB/s under an rbps limit, else IOPS; latency: fio"
            " clat, of the", "worst reader where several."]
    for name, o in sorted(res.get("overhead", {}).items()):
        out += ["", "%s: IOPS with limits far above the load over IOPS with"
                " no limit," % name,
                "mean of alternating rounds: vanilla %.1f%%%s," % (
                    100 * o["vanilla"], spread(o, "vanilla")),
                SHOWN + " %.1f%%%s." % (100 * o["patched"],
                                       spread(o, "patched"))]
    return out


def limit_kib(e):
    """The rbps limit of a scenario in KiB/s, of all its groups where
    each has it, or None."""
    for kv in e["io_max"].split():
        if kv.startswith("rbps=") and kv[5:] != "max":
            return int(kv[5:]) / 1024.0 * e.get("groups", 1)
    return None


def rate_table(res):
    """Rate against the limit, tail, the device reads it took and
    fairness: the figures the readahead work is judged by."""
    out = title(res)
    fmt = "%-17s %-7s %7s %5s %6s %6s %6s %5s %5s"
    out.append(fmt % ("scenario", "kernel", "KiB/s", "limit", "p99",
                      "max", "reads", "KiB", "Jain"))
    out.append(fmt % ("", "", "", "%", "ms", "ms", "", "", ""))
    for name in res["scenarios"]:
        e = res[name]
        lim = limit_kib(e)
        for k in ("vanilla", "patched"):
            m = e[k]
            out.append(fmt % (
                name if k == "vanilla" else "", label(k),
                "%.0f" % m["bw_kib_s"],
                "%.1f" % (100 * m["bw_kib_s"] / lim) if lim else "-",
                ms(m["p99_us"]), ms(m["max_us"]),
                "%.0f" % m["rios"] if "rios" in m else "-",
                "%.1f" % m["mean_bio_kib"] if "rios" in m else "-",
                "%.3f" % m["jain"] if "readers" in m else ""))
        v, p = e["vanilla"], e["patched"]
        out.append(fmt % (
            "", "ratio",
            "" if lim else "%.3f" % (p["bw_kib_s"] / v["bw_kib_s"]), "",
            "%.2f" % (p["p99_us"] / v["p99_us"]),
            "%.2f" % (p["max_us"] / v["max_us"]),
            "%.2f" % (p["rios"] / v["rios"])
            if v.get("rios") and "rios" in p else "", "", ""))
    out += ["", "KiB/s: the sum over readers; limit: that over the rbps"
            " limit (of all", "the groups where each has it); latency: fio"
            " clat of a 4 KiB read, of", "the worst reader where several;"
            " reads: the group's device reads", "(io.stat rios) and their"
            " mean size in KiB; ratio: %s / vanilla." % SHOWN]
    return out


def wait_table(res):
    """Where a reader held at its limit spends its wait: the mean is set
    by the rate, the percentiles show how it is shared among reads."""
    out = title(res)
    w = max([8] + [len(n) for n in res["scenarios"]])
    fmt = "%-" + str(w) + "s %-7s" + " %5s" * 8
    out.append(fmt % ("scenario", "kernel", "KiB/s", "ideal", "mean",
                      "p90", "p99", "p99.9", "max", "stdev"))
    out.append(fmt % ("", "", "", "ms", "ms", "ms", "ms", "ms", "ms", "ms"))
    for name in res["scenarios"]:
        e = res[name]
        for k in ("vanilla", "patched"):
            m = e[k]
            out.append(fmt % (
                name if k == "vanilla" else "", label(k),
                "%.0f" % m["bw_kib_s"],
                "%.2f" % (e["ideal_us"] / 1000.0) if "ideal_us" in e else "-",
                "%.2f" % (m["mean_us"] / 1000.0), ms(m["p90_us"]),
                ms(m["p99_us"]),
                ms(m["p999_us"]), ms(m["max_us"]), ms(m["stdev_us"])))
    out += ["", "ideal: a 4 KiB read's share of the limit (4 KiB over the"
            " rate), the", "mean wait of a reader held at its limit;"
            " the rest: fio clat of its", "4 KiB reads."]
    return out


def cost_table(res):
    """Rate and tail beside timer wakeups and system CPU."""
    out = title(res)
    fmt = "%-16s %-8s %9s %7s %9s %6s"
    out.append(fmt % ("scenario", "kernel", "rate", "p99", "wakeups", "sys"))
    out.append(fmt % ("", "", "", "ms", "/s", "CPU %"))
    for name in res["scenarios"]:
        e = res[name]
        for k in ("vanilla", "patched"):
            m = e[k]
            out.append(fmt % (
                name if k == "vanilla" else "", label(k), rate(e, k),
                ms(m["p99_us"]), "%.0f" % m.get("wakeups_per_s", 0),
                "%.1f" % m.get("cpu_pct", 0)))
        if "min_reader_iops" in e["patched"]:
            out.append("%-16s %-8s readers %.1f-%.1f / %.1f-%.1f IOPS" % (
                "", "", e["vanilla"]["min_reader_iops"],
                e["vanilla"]["max_reader_iops"],
                e["patched"]["min_reader_iops"],
                e["patched"]["max_reader_iops"]))
    idle = res.get("idle", {})
    out += ["", "rate: KiB/s under an rbps limit alone, else IOPS (of all"
            " groups); p99:", "fio clat, of the worst reader; wakeups:"
            " TIMER + HRTIMER softirq runs", "a second in the guest (idle:"
            " vanilla %%.0f, %s %%.0f); sys: system," % SHOWN % (
                idle.get("vanilla", {}).get("wakeups_per_s", 0),
                idle.get("patched", {}).get("wakeups_per_s", 0)),
            "irq and softirq share of all vCPUs' time."]
    return out


def write_table(res, dirs="w"):
    """Groups with a bps limit (writers, or with dirs "rw" readers too):
    the charge against the limit, and the stall of others beside
    writers."""
    out = title(res)
    fmt = "%-22s %-7s %8s %6s %11s %6s %5s"
    out.append(fmt % ("scenario", "kernel", "charged", "limit", "1 s",
                      "writes" if dirs == "w" else "IOs", "KiB"))
    out.append(fmt % ("", "", "KiB/s", "%", "min-max", "", ""))
    beside = []
    for name in res["scenarios"]:
        e = res[name]
        lims = [(kv[0], int(kv[5:])) for kv in e["io_max"].split()
                if kv[0] in dirs and kv[1:5] == "bps=" and kv[5:].isdigit()]
        if not lims or "charged_kib_s" not in e["patched"]:
            continue
        d, lim = lims[0]
        if max(e[k]["charged_kib_s"] for k in ("vanilla", "patched")) \
                < lim / 2048.0:
            continue    # a limit far above the load: no charge to judge
        for k in ("vanilla", "patched"):
            m = e[k]
            ios, kib = (("wios", "mean_wbio_kib") if d == "w" else
                        ("rios", "mean_bio_kib"))
            out.append(fmt % (
                name if k == "vanilla" else "", label(k),
                "%.0f" % m["charged_kib_s"],
                "%.1f" % (m["charged_kib_s"] * 102400.0 / lim),
                "%.0f-%.0f" % (m["charged_min_kib_s"],
                               m["charged_max_kib_s"]),
                "%.0f" % m.get(ios, 0), "%.1f" % m.get(kib, 0)))
        if "others_fsync_max_us" in e["patched"]:
            beside.append(name)
    if dirs == "w":
        out += ["", "charged: what the writer's group was charged (io.stat)"
                " over the middle", "half of the run; 1 s: its slowest and"
                " fastest second; writes: its", "device writes and their"
                " mean size."]
    else:
        out += ["", "charged: what the group was charged (io.stat) in its"
                " limit's direction", "over the middle half of the run;"
                " 1 s: its slowest and fastest second;", "IOs: its device"
                " reads (or writes, for wbps) and their mean size."]
    if not beside:
        return out
    fmt = "%-22s %-7s %9s %9s %9s %6s"
    out += ["", fmt % ("beside it, no limit", "kernel", "fsync p99",
                        "fsync max", "meta max", "ops"),
            fmt % ("", "", "ms", "ms", "ms", "")]
    for name in beside:
        for k in ("vanilla", "patched"):
            m = res[name][k]
            out.append(fmt % (
                name if k == "vanilla" else "", label(k),
                ms(m["others_fsync_p99_us"]), ms(m["others_fsync_max_us"]),
                ms(m.get("meta_max_us", 0)), "%.0f" % m.get("meta_ops", 0)))
    out += ["", "a group with no limit on the same filesystem: its 4 KiB"
            " write+fsync", "loop's fsyncs, and its mkdir, create and"
            " rename, each fsynced (meta);", "the worst of the scenario's"
            " rounds, and their mean count of meta ops."]
    return out


def main(argv):
    only = None
    view = table
    views = {"--rates": rate_table, "--costs": cost_table,
             "--writes": write_table, "--waits": wait_table,
             "--charged": lambda res: write_table(res, "rw")}
    if argv and argv[0] in views:
        view = views[argv[0]]
        argv = argv[1:]
    global SHOWN
    if argv and argv[0].startswith("--kernel="):
        SHOWN = argv[0].split("=", 1)[1]
        argv = argv[1:]
    if argv and argv[0].startswith("--scenarios="):
        only = argv[0].split("=", 1)[1].split(",")
        argv = argv[1:]
    for i, p in enumerate(argv):
        with open(p) as f:
            res = json.load(f)
        if SHOWN != "patched":
            if SHOWN not in res[res["scenarios"][0]]:
                sys.exit("%s: no figures of %s" % (p, SHOWN))
            show(res, SHOWN)
        if only:
            res["scenarios"] = [n for n in res["scenarios"] if n in only]
            res["overhead"] = {n: o for n, o in res.get("overhead", {}).items()
                               if n + "-highlimit" in only}
        if i:
            print()
        print("\n".join(line.rstrip() for line in view(res)))


if __name__ == "__main__":
    main(sys.argv[1:])
