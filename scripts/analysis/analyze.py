#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one benchmark run (vanilla and the series, same scenarios) into
results/bench.json, results/bench.md and one latency plot per scenario.

  analyze.py --hz 1000 --out results --base-version V --accel tcg \\
      --rerun "make bench" \\
      --runtime 20 vanilla=DIR [core=DIR] patched=DIR bench/a.fio ...

The kernels are compared in the order given, each against the first
(vanilla); "core" is the series up to its pacing core, "patched" the
whole series, core and follow-ups.

Each DIR holds, for every scenario NAME and round N, NAME.rN.json (fio
JSON), NAME.rN_clat.*.log (per-IO completion latencies) and NAME.rN.cost
(bench-guest.sh's cost_snap before and after the run), and idle.cost;
NAME.rN.oom, the tasks the memory controller killed in the group (a
round they ended has no NAME.rN.json, and its figures are of the others).
"""
import argparse
import datetime
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "testing", "selftests",
                                "blk-throttle"))
import fio_summary  # noqa: E402

# the kernels of this run, in order, the first the baseline (main sets it)
KERNELS = ["vanilla", "patched"]
TABLE = [("iops", "IOPS", "{:.1f}"), ("bw_kib_s", "KiB/s", "{:.0f}"),
         ("p50_us", "p50", "ms"), ("p90_us", "p90", "ms"),
         ("p99_us", "p99", "ms"), ("p999_us", "p99.9", "ms"),
         ("max_us", "max", "ms"), ("stdev_us", "stdev", "ms"),
         ("jain", "Jain", "{:.3f}"),
         ("min_reader_iops", "slowest reader, IOPS", "{:.1f}"),
         ("max_reader_iops", "fastest reader, IOPS", "{:.1f}"),
         ("wakeups_per_s", "timer softirqs/s", "{:.0f}"),
         ("cpu_pct", "system CPU %", "{:.1f}"),
         ("ctxt_per_s", "context switches/s", "{:.0f}"),
         ("rios", "device reads (io.stat rios)", "{:.0f}"),
         ("mean_bio_kib", "mean read, KiB", "{:.1f}"),
         ("wios", "device writes (io.stat wios)", "{:.0f}"),
         ("mean_wbio_kib", "mean write, KiB", "{:.1f}"),
         ("disk_reads", "read requests the disk completed", "{:.0f}"),
         ("mean_req_kib", "mean read request, KiB", "{:.1f}"),
         ("disk_writes", "write requests the disk completed", "{:.0f}"),
         ("mean_wreq_kib", "mean write request, KiB", "{:.1f}"),
         ("charged_kib_s", "charged to the group, KiB/s", "{:.0f}"),
         ("wrapped_readers", "readers past their file's end", "{:.0f}"),
         ("charged_min_kib_s", "slowest second charged, KiB/s", "{:.0f}"),
         ("charged_max_kib_s", "fastest second charged, KiB/s", "{:.0f}"),
         ("others_fsync_p50_us", "others: fsync p50", "ms"),
         ("others_fsync_p99_us", "others: fsync p99", "ms"),
         ("others_fsync_max_us", "others: fsync max", "ms"),
         ("others_read_iops", "others: read IOPS", "{:.1f}"),
         ("others_read_p99_us", "others: read p99", "ms"),
         ("others_read_max_us", "others: read max", "ms"),
         ("meta_p50_us", "others: metadata op p50", "ms"),
         ("meta_p99_us", "others: metadata op p99", "ms"),
         ("meta_max_us", "others: metadata op max", "ms"),
         ("oom_kills", "OOM kills in the group (memory.events)", "{:.0f}"),
         ("oom_ended_rounds", "rounds an OOM kill ended", "{:.0f}")]


def header(path, key):
    """A '; key: value' line from a scenario's header comment."""
    with open(path) as f:
        for line in f:
            if line.startswith("; %s:" % key):
                return line.split(":", 1)[1].strip()
    return None


def recorded(d, name, conv=str):
    """What boot.sh recorded in the file NAME of the run directory D, by
    CONV (None if it is missing, empty or not CONV's)."""
    try:
        with open(os.path.join(d, name)) as f:
            text = f.read().strip()
        return conv(text) if text else None
    except (OSError, ValueError):
        return None


def rounded(d):
    return {k: round(v, 3) if isinstance(v, float) else v
            for k, v in d.items()}


def cost(path):
    """What a run cost the guest, from two cost_snap lines ("SECONDS
    TIMERS SYS TOTAL CTXT" before and after, on one line): timer softirq
    runs a second (all vCPUs), the system share of all vCPUs' time, in
    %, and context switches a second (runs before CTXT have none)."""
    try:
        with open(path) as f:
            v = list(map(float, f.read().split()))
    except (OSError, ValueError):
        return {}
    n = len(v) // 2
    if n not in (4, 5) or len(v) != 2 * n:
        return {}
    b, a = v[:n], v[n:]
    secs = a[0] - b[0]
    out = {"wakeups_per_s": (a[1] - b[1]) / secs,
           "cpu_pct": 100.0 * (a[2] - b[2]) / (a[3] - b[3])
           if a[3] > b[3] else 0.0}
    if n == 5:
        out["ctxt_per_s"] = (a[4] - b[4]) / secs
    return out


def numbers(path):
    """The integers a one-line file of bench-guest.sh holds, or None."""
    try:
        with open(path) as f:
            return list(map(int, f.read().split()))
    except (OSError, ValueError):
        return None


def iostat(path):
    """The reads and writes the job's cgroup issued to the device
    (bench-guest.sh's NAME.rN.iostat, "RIOS RBYTES WIOS WBYTES"): their
    numbers and mean sizes in KiB; the writes only where there were some."""
    v = numbers(path)
    if not v or len(v) not in (2, 4):
        return {}
    out = {"rios": v[0], "mean_bio_kib": v[1] / v[0] / 1024 if v[0] else 0.0}
    if len(v) == 4 and v[2]:
        out.update({"wios": v[2], "mean_wbio_kib": v[3] / v[2] / 1024})
    return out


def disk(path):
    """The requests the device completed in the run, every group's, after
    the IO scheduler merged bios into them (bench-guest.sh's NAME.rN.disk,
    /sys/block's "READS SECTORS WRITES SECTORS" before and after): their
    numbers and mean sizes in KiB; the writes only where there were some."""
    v = numbers(path)
    if not v or len(v) != 8:
        return {}
    d = [b - a for a, b in zip(v[:4], v[4:])]
    out = {"disk_reads": d[0],
           "mean_req_kib": d[1] / 2 / d[0] if d[0] else 0.0}
    if d[2]:
        out.update({"disk_writes": d[2], "mean_wreq_kib": d[3] / 2 / d[2]})
    return out


def charged(path):
    """What the group was charged as the run went (bench-guest.sh's
    NAME.rN.charged, "SECONDS RBYTES WBYTES" a second), over the middle
    half of the samples: the mean rate and the slowest and fastest
    second, in KiB/s, reads and writes together."""
    try:
        with open(path) as f:
            v = [list(map(float, line.split())) for line in f]
    except (OSError, ValueError):
        return {}
    v = [x for x in v if len(x) == 3]
    mid = v[len(v) // 4:len(v) * 3 // 4 + 1]
    if len(mid) < 3:
        return {}
    rates = [((b[1] + b[2]) - (a[1] + a[2])) / 1024 / (b[0] - a[0])
             for a, b in zip(mid, mid[1:]) if b[0] > a[0]]
    a, b = mid[0], mid[-1]
    return {"charged_kib_s": ((b[1] + b[2]) - (a[1] + a[2])) / 1024 /
            (b[0] - a[0]),
            "charged_min_kib_s": min(rates),
            "charged_max_kib_s": max(rates)}


def size_bytes(text):
    """fio's size option in bytes ("32M": 32 MiB), None if not one."""
    units = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}
    text = text.strip().lower().rstrip("ib").rstrip("b")
    num, unit = text.rstrip("kmgt"), text[len(text.rstrip("kmgt")):]
    if not num.isdigit() or unit not in units:
        return None
    return int(num) << units[unit]


def wrapped_readers(doc):
    """How many sequential buffered readers read more than their file:
    time_based, fio starts such a file over, and the second pass comes
    from the page cache at the memory's speed, not from the device."""
    glob_opts = doc.get("global options", {})
    n = 0
    for job in doc["jobs"]:
        o = dict(glob_opts, **job.get("job options", {}))
        size = size_bytes(o.get("size", ""))
        if o.get("rw") != "read" or o.get("direct") == "1" or not size:
            continue
        if job["read"]["io_bytes"] > size:
            n += 1
    return n


def percentiles(vals, prefix):
    """p50, p99 and max of a list of latencies in us, keyed PREFIX_p50_us
    and so on."""
    if not vals:
        return {}
    vals = sorted(vals)
    n = len(vals)
    return {prefix + "_p50_us": vals[(n - 1) // 2],
            prefix + "_p99_us": vals[min(n - 1, int(n * 0.99))],
            prefix + "_max_us": vals[-1]}


def others(doc, meta_path):
    """The unlimited sibling's figures beside a throttled group: its fio
    job [others] (fsync latencies, or its reads' rate and latencies; the
    job is taken out of doc) and bench-meta.py's metadata operations."""
    out = {}
    mine = [j for j in doc["jobs"] if j["jobname"] == "others"]
    doc["jobs"] = [j for j in doc["jobs"] if j["jobname"] != "others"]
    for j in mine:
        lat = j.get("sync", {}).get("lat_ns", {})
        pct = lat.get("percentile", {})
        if lat.get("N"):
            out.update({"others_fsync_p50_us": pct["50.000000"] / 1000.0,
                        "others_fsync_p99_us": pct["99.000000"] / 1000.0,
                        "others_fsync_max_us": lat["max"] / 1000.0,
                        "others_fsyncs": lat["N"]})
        rd = j.get("read", {})
        if rd.get("total_ios"):
            pct = rd["clat_ns"].get("percentile", {})
            out.update({"others_read_iops": rd["iops"],
                        "others_read_p99_us": pct["99.000000"] / 1000.0,
                        "others_read_max_us": rd["clat_ns"]["max"] / 1000.0})
    try:
        with open(meta_path) as f:
            meta = json.load(f)
    except (OSError, ValueError):
        return out
    out.update(percentiles([x for op in meta.values() for x in op], "meta"))
    out["meta_ops"] = sum(len(op) for op in meta.values())
    return out


def metrics(d, name):
    """A scenario's metrics; over its rounds if it ran several (each
    round's kept under "rounds"), the worst of them for a maximum and a
    minimum ("max" or "min" in the key: a stall seen once is a stall),
    the mean for the rest."""
    runs = []
    # rounds in which the memory controller killed a task of the group
    # (bench-guest.sh's NAME.rN.oom); a round it ended has no .json
    killed = {p[:-len(".oom")]: numbers(p) or [0]
              for p in glob.glob(os.path.join(d, name + ".r*.oom"))}
    for path in sorted(glob.glob(os.path.join(d, name + ".r*.json"))):
        stem = path[:-len(".json")]
        doc = fio_summary.load(path)
        extra = others(doc, stem + ".meta")
        total, jobs = fio_summary.summarise(doc)
        total.update(extra)
        wrapped = wrapped_readers(doc)
        if wrapped:
            total["wrapped_readers"] = wrapped
        total.update(cost(stem + ".cost"))
        total.update(iostat(stem + ".iostat"))
        total.update(disk(stem + ".disk"))
        total.update(charged(stem + ".charged"))
        try:
            with open(stem + ".released") as f:
                # a held writer's limits lifted, this many s in
                total["released_s"] = int(f.read())
        except (OSError, ValueError):
            pass
        if len(jobs) > 1:
            total["min_reader_iops"] = min(j["iops"] for j in jobs)
            total["max_reader_iops"] = max(j["iops"] for j in jobs)
        if stem in killed:
            total["oom_kills"] = sum(killed[stem])
        m = rounded(total)
        if len(jobs) > 1:
            m["readers"] = [rounded(j) for j in jobs]
        runs.append(m)
    ended = len(killed) - sum(1 for r in runs if "oom_kills" in r)
    oom = {"oom_kills": sum(sum(k) for k in killed.values()),
           "oom_ended_rounds": ended, "rounds_run": len(runs) + ended}
    if not runs:
        if ended:
            return oom
        sys.exit("no results for %s in %s" % (name, d))
    if len(runs) == 1 and not killed:
        return runs[0]
    m = {}
    for k, v in runs[0].items():
        if not isinstance(v, (int, float)):
            continue
        vals = [r[k] for r in runs if k in r]
        if "max" in k:
            m[k] = max(vals)
        elif "min" in k:
            m[k] = min(vals)
        else:
            m[k] = round(sum(vals) / len(vals), 3)
    m["rounds"] = runs
    if killed:
        m.update(oom)
    return m


def overheads(res):
    """IOPS of NAME-highlimit over NAME-nolimit, per kernel: what being
    throttled at all costs a group far below its limits."""
    out = {}
    for name in res["scenarios"]:
        if not name.endswith("-highlimit"):
            continue
        base = name[:-len("-highlimit")] + "-nolimit"
        if base not in res:
            continue
        o = {k: round(res[name][k]["iops"] / res[base][k]["iops"], 4)
             for k in KERNELS}
        # round N of one over round N of the other: they ran in turn
        o["rounds"] = {
            k: [round(h["iops"] / n["iops"], 4) for h, n in
                zip(res[name][k].get("rounds", []),
                    res[base][k].get("rounds", []))]
            for k in KERNELS}
        out[name[:-len("-highlimit")]] = o
    return out


def spread(o, k):
    """ " (rounds: A-B%)" for a kernel's per-round overheads, if several."""
    r = o.get("rounds", {}).get(k, [])
    if len(r) < 2:
        return ""
    return " (%d rounds: %.1f-%.1f%%)" % (len(r), 100 * min(r), 100 * max(r))


def clat_reads(d, name, rnd="*"):
    """Every IO of fio's latency logs (of round rnd, or of all rounds),
    one log a job: (when it completed in ms since the job started, the
    job's number, its completion latency in ms)."""
    ios = []
    pattern = "%s.r%s_clat.*.log" % (name, rnd)
    for path in sorted(glob.glob(os.path.join(d, pattern))):
        job = int(path.rsplit(".", 2)[1])
        with open(path) as f:
            for line in f:
                fields = line.split(",")
                if len(fields) > 1:
                    ios.append((int(fields[0]), job, int(fields[1]) / 1e6))
    return ios


def clat_ms(d, name, rnd="*"):
    """Every IO's completion latency in ms, from fio's latency logs (of
    round rnd, or of all rounds)."""
    return sorted(ms for _, _, ms in clat_reads(d, name, rnd))


def rate_in_bytes(io_max):
    """Whether a scenario's rate reads in KiB/s (paced by rbps or wbps
    alone) rather than in IOPS (an iops limit, or none)."""
    return "bps=" in io_max and "iops=" not in io_max


def fmt(key, spec, v):
    if v is None:
        return "-"
    if spec == "ms":
        return "%.2f ms" % (v / 1000.0) if v >= 1000 else "%.0f us" % v
    return spec.format(v)


def ratio(p, v):
    if v is None or p is None or v == 0:
        return "-"
    return "%.2fx" % (p / v)


def plot(name, title, lat, path, ideal_ms=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for k in KERNELS:
        xs = lat.get(k) or []
        if not xs:
            continue
        n = len(xs)
        ax.step(xs, [(i + 1) / n for i in range(n)], where="post",
                label="%s (%d IOs)" % (k, n))
    if ideal_ms:
        ax.axvline(ideal_ms, color="gray", linestyle="--", linewidth=1,
                   label="ideal pacing (%.2f ms)" % ideal_ms)
    ax.set_xscale("symlog", linthresh=0.1)
    ax.set_xlabel("completion latency (ms)")
    ax.set_ylabel("fraction of IOs at or below")
    ax.set_ylim(0, 1.01)
    ax.grid(True, which="both", alpha=0.3)
    ax.set_title("%s: %s" % (name, title), fontsize=9)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def reads(m):
    """ "N (K)": a kernel's device reads and their mean size in KiB; for
    a scenario that wrote, "N w (K)", its writes."""
    if "wios" in m:
        return "%.0f w (%.1f)" % (m["wios"], m["mean_wbio_kib"])
    if "rios" not in m:
        return "-"
    return "%.0f (%.1f)" % (m["rios"], m["mean_bio_kib"])


def each(fmt_one, e, key=None):
    """ "a / b / c": one figure a kernel, in KERNELS' order."""
    return " / ".join(fmt_one(e[k]) if key is None else fmt_one(e[k].get(key))
                      for k in KERNELS)


def summary_table(res):
    """One row per scenario: rate and tail, each kernel beside vanilla."""
    names = " / ".join(KERNELS)
    last = KERNELS[-1]
    rows = ["| scenario | io.max | rate %s | p99 %s | p99 %s/vanilla | "
            "max %s | timer softirqs/s | system CPU %% | reads (mean KiB) |"
            % (names, names, last, names),
            "|---|---|---|---|---|---|---|---|---|"]
    for name in res["scenarios"]:
        e = res[name]
        v, p = e["vanilla"], e[last]
        if "wbps=" in e["io_max"] and "charged_kib_s" in v:
            rate = each(lambda x: fmt(None, "{:.0f}", x), e,
                        "charged_kib_s") + " KiB/s charged"
        elif rate_in_bytes(e["io_max"]):
            rate = each(lambda x: fmt(None, "{:.0f}", x), e,
                        "bw_kib_s") + " KiB/s"
        else:
            rate = each(lambda x: fmt(None, "{:.1f}", x), e,
                        "iops") + " IOPS"
        if "groups" in e:
            rate += " (%d groups)" % e["groups"]
        for k in KERNELS:
            if e[k].get("wrapped_readers"):
                rate += " (%s: %d readers past their file's end, read " \
                        "again from the page cache)" % (
                            k, e[k]["wrapped_readers"])
        for k in KERNELS:
            if e[k].get("oom_kills") or e[k].get("oom_ended_rounds"):
                rate += " (%s: the memory controller killed %d of the " \
                        "group's tasks, ending %d of %d rounds)" % (
                            k, e[k].get("oom_kills", 0),
                            e[k]["oom_ended_rounds"], e[k]["rounds_run"])
        rows.append("| %s | `%s` | %s | %s | %s | %s | %s | %s | %s |" % (
            name, e["io_max"], rate,
            each(lambda x: fmt("p99_us", "ms", x), e, "p99_us"),
            ratio(p.get("p99_us"), v.get("p99_us")),
            each(lambda x: fmt("max_us", "ms", x), e, "max_us"),
            each(lambda x: fmt(None, "{:.0f}", x), e, "wakeups_per_s"),
            each(lambda x: fmt(None, "{:.1f}", x), e, "cpu_pct"),
            each(reads, e)))
    idle = res.get("idle", {})
    if all(idle.get(k) for k in KERNELS):
        rows += ["", "Figures are %s, in that order%s. Timer softirqs/s: "
                 "TIMER and HRTIMER softirq runs a second in the guest, all "
                 "%s vCPUs (the throttle's timer is a timer_list in "
                 "vanilla, a soft hrtimer in the series), other timers "
                 "included: idle, the guest runs %s. Both over the middle "
                 "half of each run. System CPU: system, irq and softirq "
                 "time over all vCPUs' time. Reads: the bios the "
                 "scenario's cgroup issued to the device in the run "
                 "(io.stat rios) and their mean size (rbytes over rios); "
                 "\"w\", its writes. A buffered writer's rate is what its "
                 "group was charged (io.stat) over the middle half of the "
                 "run, and its latencies are its write(2) calls'; a "
                 "writer still held in dirty throttling 5 s after its "
                 "time is up has its limits lifted then (released_s in "
                 "bench.json), and a write held until then counts its "
                 "latency to then." % (
                     names, " (core: the fixes and the pacing core; "
                     "patched: the whole series, core and follow-ups)"
                     if "core" in KERNELS else "",
                     res.get("vcpus", "the"),
                     " / ".join("%.0f" % idle[k]["wakeups_per_s"]
                                for k in KERNELS))]
    beside = [n for n in res["scenarios"]
              if "others_fsync_p99_us" in res[n]["vanilla"]]
    if beside:
        rows += ["", "Beside a throttled buffered writer, a group with no "
                 "limit on the same filesystem: its 4 KiB write+fsync "
                 "loop and its metadata operations (mkdir, create, "
                 "rename, each fsynced), %s:" % names, "",
                 "| scenario | writer's io.max | fsync p50 | fsync p99 | "
                 "fsync max | metadata p99 | metadata max | writer charged |",
                 "|---|---|---|---|---|---|---|---|"]
        for name in beside:
            e = res[name]

            def all_k(key, spec="ms"):
                return each(lambda x: fmt(key, spec, x), e, key)
            rows.append("| %s | `%s` | %s | %s | %s | %s | %s | %s KiB/s |"
                        % (name, e["io_max"], all_k("others_fsync_p50_us"),
                           all_k("others_fsync_p99_us"),
                           all_k("others_fsync_max_us"), all_k("meta_p99_us"),
                           all_k("meta_max_us"),
                           all_k("charged_kib_s", "{:.0f}")))
    for name, o in res.get("overhead", {}).items():
        rows += ["", "%s: IOPS with limits far above the load, over IOPS with "
                 "no limit (mean of the rounds): %s." % (name, ", ".join(
                     "%s %.1f%%%s" % (k, 100 * o[k], spread(o, k))
                     for k in KERNELS))]
    return rows


def update_readme(path, summary, res):
    """Replace the table between the bench markers in the README."""
    start, end = "<!-- bench:start -->", "<!-- bench:end -->"
    with open(path) as f:
        text = f.read()
    if start not in text or end not in text:
        return
    head, rest = text.split(start, 1)
    _, tail = rest.split(end, 1)
    body = ["", "Linux %s, HZ=%s, %s, %d s per scenario, run %s "
            "(`results/bench.md` has every metric):" % (
                res["base_version"], res["hz"],
                emulator(res), res["runtime_s"],
                res["date"]), ""] + summary + [""]
    with open(path, "w") as f:
        f.write(head + start + "\n".join(body) + end + tail)


def emulator(res):
    """How the guests ran: KVM, QEMU TCG, or TCG with the options
    --accel gave after "tcg," (its virtual clock's, say)"""
    if res["accel"] == "native":
        return "no emulator (the machine's own kernels)"
    if res["kvm"]:
        return "KVM"
    more = res["accel"].partition(",")[2].strip()
    return "QEMU TCG (%s)" % more if more else "QEMU TCG"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hz", type=int, required=True,
                    help="the kernels' tick rate, 0 if unknown")
    ap.add_argument("--out", required=True)
    ap.add_argument("--base-version", required=True)
    ap.add_argument("--accel", required=True,
                    help="boot.sh's accel file: kvm or tcg, and after "
                    "\"tcg,\" anything bench.md should say of it")
    ap.add_argument("--runtime", type=int, required=True)
    ap.add_argument("--patched-tree",
                    help="lib.sh's kernel_tree of the patched kernel: make "
                    "series takes tables only from a run of the tree it "
                    "exports")
    ap.add_argument("--readme", help="README whose bench table to update")
    ap.add_argument("--date", help="when the run started (default: now)")
    ap.add_argument("--rerun", required=True,
                    help="the command that reruns it")
    ap.add_argument("--device",
                    help="the disk the scenarios ran on (default: "
                    "null_blk, with each scenario's attributes)")
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()

    dirs = dict(r.split("=", 1) for r in a.runs if "=" in r)
    jobs = [r for r in a.runs if "=" not in r]
    KERNELS[:] = list(dirs)
    if KERNELS[0] != "vanilla" or "patched" not in KERNELS:
        sys.exit("analyze.py: vanilla=DIR first, patched=DIR among them")
    res = {
        "base_version": a.base_version,
        "hz": a.hz,
        "kvm": a.accel == "kvm",
        "accel": a.accel,
        "date": a.date or datetime.datetime.now(
            datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "runtime_s": a.runtime,
        "patched_tree": a.patched_tree,
        "steal_pct": {k: recorded(dirs[k], "host-steal-percent", int)
                      for k in KERNELS},
        "clocksource": {k: recorded(dirs[k], "clocksource")
                        for k in KERNELS},
        "idle": {k: rounded(cost(os.path.join(dirs[k], "idle.cost")))
                 for k in KERNELS},
        "scenarios": [],
    }
    try:
        with open(os.path.join(dirs["patched"], "vcpus")) as f:
            res["vcpus"] = int(f.read())
    except (OSError, ValueError):
        pass
    md = ["# blk-throttle benchmark: %s" % " vs ".join(KERNELS),
          "",
          "Linux %s%s, HZ=%s, %s, %d s per "
          "scenario, %s. Ratios are over vanilla. Regenerate with "
          "`%s`." % (a.base_version, "" if a.accel == "native" else
                     " (Debian linux-source-7.3)", a.hz or "unknown",
                     emulator(res), a.runtime, res["date"], a.rerun),
          ""]
    if None not in res["steal_pct"].values():
        md[2] += (" The machine's own hypervisor took %s%% of its CPU time "
                  "during the boots of %s (steal, see boot.sh)." % (
                      " / ".join(str(res["steal_pct"][k]) for k in KERNELS),
                      " / ".join(KERNELS)))
    if None not in res["clocksource"].values():
        md[2] += (" The guests ended on the clocksource %s (boot.sh)." %
                  " / ".join(res["clocksource"][k] for k in KERNELS))
    os.makedirs(a.out, exist_ok=True)
    for job in jobs:
        name = os.path.basename(job)[:-len(".fio")]
        limit = header(job, "io.max") or "none"
        nullb = header(job, "nullb") or "defaults"
        ideal = header(job, "ideal_us")
        entry = {"io_max": limit}
        if a.device:
            entry["device"] = a.device
        else:
            entry["nullb"] = nullb
        groups = header(job, "groups")
        if groups:
            entry["groups"] = int(groups)
        if ideal:
            entry["ideal_us"] = float(ideal)
        lat = {}
        for k in KERNELS:
            entry[k] = metrics(dirs[k], name)
            lat[k] = clat_ms(dirs[k], name)
        res[name] = entry
        res["scenarios"].append(name)

        plotted = any(lat.values())
        md += ["## %s" % name, "",
               "io.max `%s`, %s%s.%s" % (
                   limit, a.device or "null_blk `%s`" % nullb,
                   ", ideal wait %.1f ms" % (float(ideal) / 1000)
                   if ideal else "",
                   " Plot: `%s.png`." % name if plotted else ""), "",
               "| metric | %s | %s |" % (
                   " | ".join(KERNELS),
                   " | ".join("%s/vanilla" % k for k in KERNELS[1:])),
               "|---|" + "---|" * (2 * len(KERNELS) - 1)]
        for key, label, spec in TABLE:
            vals = [entry[k].get(key) for k in KERNELS]
            if all(x is None for x in vals):
                continue
            if key == "jain" and "readers" not in entry["vanilla"]:
                continue
            md.append("| %s | %s | %s |" % (
                label, " | ".join(fmt(key, spec, x) for x in vals),
                " | ".join(ratio(x, vals[0]) for x in vals[1:])))
        md.append("")
        if plotted:
            plot(name, "io.max %s" % limit, lat,
                 os.path.join(a.out, name + ".png"),
                 float(ideal) / 1000 if ideal else None)

    res["overhead"] = overheads(res)
    summary = summary_table(res)
    md[4:4] = summary + [""]
    if a.readme:
        update_readme(a.readme, summary, res)

    with open(os.path.join(a.out, "bench.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(os.path.join(a.out, "bench.md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))
    print("results written to %s/" % os.path.relpath(a.out))


if __name__ == "__main__":
    main()
