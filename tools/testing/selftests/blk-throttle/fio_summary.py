#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise a fio JSON result for the blk-throttle selftests.

Prints shell-sourceable KEY=VALUE lines (times in microseconds, rates in
KiB/s), so a test can "eval" them:

  fio_summary.py result.json            totals over all jobs
  fio_summary.py --per-job result.json  adds jobN_iops, jobN_p99_us, ...
                                        and jain (Jain's fairness index
                                        over the jobs' bandwidths)

The same code is used by the benchmark (import fio_summary).
"""
import json
import sys

PCTS = {"p50_us": "50.000000", "p90_us": "90.000000", "p99_us": "99.000000",
        "p999_us": "99.900000", "p9999_us": "99.990000"}


def load(path):
    with open(path) as f:
        text = f.read()
    # fio may print warnings before the JSON document
    return json.loads(text[text.index("{"):])


def direction(job):
    """The direction a job did IO in: read unless it only wrote."""
    if job["read"]["total_ios"] == 0 and job["write"]["total_ios"] > 0:
        return job["write"]
    return job["read"]


def job_metrics(d):
    clat = d["clat_ns"]
    pct = clat.get("percentile", {})
    m = {
        "ios": d["total_ios"],
        "iops": d["iops"],
        "bw_kib_s": d["bw"],
        "mean_us": clat["mean"] / 1000.0,
        "stdev_us": clat["stddev"] / 1000.0,
        "max_us": clat["max"] / 1000.0,
    }
    for key, p in PCTS.items():
        m[key] = pct.get(p, 0) / 1000.0
    return m


def jain(values):
    """Jain's fairness index: 1.0 when all are equal, 1/n at worst."""
    if not values or not any(values):
        return 1.0
    return sum(values) ** 2 / (len(values) * sum(v * v for v in values))


def summarise(doc):
    """Totals over all jobs (fio's group_reporting does the merge when
    the job file asks for it) and a list of per-job metrics."""
    jobs = [job_metrics(direction(j)) for j in doc["jobs"]]
    if len(jobs) == 1:
        total = dict(jobs[0])
    else:
        total = {
            "ios": sum(j["ios"] for j in jobs),
            "iops": sum(j["iops"] for j in jobs),
            "bw_kib_s": sum(j["bw_kib_s"] for j in jobs),
        }
        for key in ("mean_us", "stdev_us", "max_us") + tuple(PCTS):
            total[key] = max(j[key] for j in jobs)
    total["jain"] = jain([j["bw_kib_s"] for j in jobs])
    return total, jobs


def main(argv):
    per_job = "--per-job" in argv
    paths = [a for a in argv if not a.startswith("--")]
    if len(paths) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    total, jobs = summarise(load(paths[0]))
    for k, v in total.items():
        print(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}")
    if per_job:
        print(f"njobs={len(jobs)}")
        for i, j in enumerate(jobs):
            for k, v in j.items():
                print(f"job{i}_{k}={v:.3f}" if isinstance(v, float) else f"job{i}_{k}={v}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
