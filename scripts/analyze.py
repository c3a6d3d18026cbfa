#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn one benchmark run (vanilla and patched, same scenarios) into
results/bench.json, results/bench.md and one latency plot per scenario.

  analyze.py --hz 1000 --out results --base-version V --accel tcg \\
      --runtime 20 vanilla=DIR patched=DIR bench/a.fio bench/b.fio ...

Each DIR holds NAME.json (fio JSON) and NAME_clat.N.log (per-IO
completion latencies) for every scenario NAME.
"""
import argparse
import datetime
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tools", "testing", "selftests",
                                "blk-throttle"))
import fio_summary  # noqa: E402

KERNELS = ("vanilla", "patched")
TABLE = [("iops", "IOPS", "{:.1f}"), ("bw_kib_s", "KiB/s", "{:.0f}"),
         ("p50_us", "p50", "ms"), ("p90_us", "p90", "ms"),
         ("p99_us", "p99", "ms"), ("p999_us", "p99.9", "ms"),
         ("max_us", "max", "ms"), ("stdev_us", "stdev", "ms"),
         ("jain", "Jain", "{:.3f}")]


def header(path, key):
    """A '; key: value' line from a scenario's header comment."""
    with open(path) as f:
        for line in f:
            if line.startswith("; %s:" % key):
                return line.split(":", 1)[1].strip()
    return None


def metrics(d, name):
    total, jobs = fio_summary.summarise(fio_summary.load(
        os.path.join(d, name + ".json")))
    m = {k: round(v, 3) if isinstance(v, float) else v
         for k, v in total.items()}
    if len(jobs) > 1:
        m["readers"] = [{k: round(v, 3) if isinstance(v, float) else v
                         for k, v in j.items()} for j in jobs]
    return m


def clat_ms(d, name):
    """Every IO's completion latency in ms, from fio's latency logs."""
    vals = []
    for path in sorted(glob.glob(os.path.join(d, name + "_clat.*.log"))):
        with open(path) as f:
            for line in f:
                fields = line.split(",")
                if len(fields) > 1:
                    vals.append(int(fields[1]) / 1e6)
    return sorted(vals)


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


def plot(name, title, lat, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for k, style in zip(KERNELS, ("-", "-")):
        xs = lat.get(k) or []
        if not xs:
            continue
        n = len(xs)
        ax.step(xs, [(i + 1) / n for i in range(n)], style, where="post",
                label="%s (%d IOs)" % (k, n))
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hz", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--base-version", required=True)
    ap.add_argument("--accel", required=True)
    ap.add_argument("--runtime", type=int, required=True)
    ap.add_argument("runs", nargs="+")
    a = ap.parse_args()

    dirs = dict(r.split("=", 1) for r in a.runs if "=" in r)
    jobs = [r for r in a.runs if "=" not in r]
    res = {
        "base_version": a.base_version,
        "hz": a.hz,
        "kvm": a.accel == "kvm",
        "accel": a.accel,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime(
            "%Y-%m-%dT%H:%M:%SZ"),
        "runtime_s": a.runtime,
        "scenarios": [],
    }
    md = ["# blk-throttle benchmark: vanilla vs patched",
          "",
          "Linux %s (Debian linux-source-7.3), HZ=%d, %s, %d s per "
          "scenario, %s. Ratios are patched / vanilla. Regenerate with "
          "`make bench%s`." % (a.base_version, a.hz,
                               "KVM" if res["kvm"] else "QEMU TCG",
                               a.runtime, res["date"],
                               "" if a.hz == 1000 else " HZ=%d" % a.hz),
          ""]
    os.makedirs(a.out, exist_ok=True)
    for job in jobs:
        name = os.path.basename(job)[:-len(".fio")]
        limit = header(job, "io.max") or "none"
        nullb = header(job, "nullb") or "defaults"
        ideal = header(job, "ideal_us")
        entry = {"io_max": limit, "nullb": nullb}
        if ideal:
            entry["ideal_us"] = float(ideal)
        lat = {}
        for k in KERNELS:
            entry[k] = metrics(dirs[k], name)
            lat[k] = clat_ms(dirs[k], name)
        res[name] = entry
        res["scenarios"].append(name)

        md += ["## %s" % name, "",
               "io.max `%s`, null_blk `%s`%s. Plot: `%s.png`." % (
                   limit, nullb,
                   ", ideal wait %.1f ms" % (float(ideal) / 1000)
                   if ideal else "", name), "",
               "| metric | vanilla | patched | patched/vanilla |",
               "|---|---|---|---|"]
        for key, label, spec in TABLE:
            v, p = entry["vanilla"].get(key), entry["patched"].get(key)
            if key == "jain" and "readers" not in entry["vanilla"]:
                continue
            md.append("| %s | %s | %s | %s |" % (
                label, fmt(key, spec, v), fmt(key, spec, p), ratio(p, v)))
        md.append("")
        plot(name, "io.max %s" % limit, lat,
             os.path.join(a.out, name + ".png"))

    with open(os.path.join(a.out, "bench.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
        f.write("\n")
    with open(os.path.join(a.out, "bench.md"), "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))
    print("results written to %s/" % os.path.relpath(a.out))


if __name__ == "__main__":
    main()
