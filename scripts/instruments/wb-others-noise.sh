#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Is an fsync of 100-200 ms beside the throttled writer of
# wb1m-others-ext4 a wait for that writer, or the machine? Runs the
# scenario ROUNDS times on each of KERNELS, as make bench runs it (the
# host's clock, null_blk, ext4, the writer at wbps=1MiB/s under
# memory.max=256M), with canary.py beside it in the root cgroup: a task
# that only sleeps 5 ms at a time and notes how late it wakes. Prints,
# a round a row, the unlimited group's slowest fsync and metadata
# operation and the canary's latest wake-up while fio ran, to
# results/wb-others-noise.md (OUT).
#
#   wb-others-noise.sh [ROUNDS]    (default 3; KERNELS="vanilla patched")
#
# BEFORE="SCENARIO..." runs those first, once each; BEFORE=headline, the
# other eleven headline scenarios, as make bench runs them before this
# one's first round.
#
# RUN=NAME keeps the run's directories apart from another run's (each
# kernel's is build/out/wb-others-noise-KERNEL[-NAME]); the table has
# every run there. NO_RUN=1 writes it again from them.
#
# It boots build/images/KERNEL-hz1000/bzImage as built (make bench
# builds them) and touches no tree. Run it alone: its figures are timings.
set -u
. "$(dirname "$0")/../pipeline/lib.sh"

ROUNDS=${1:-3}
S=wb1m-others-ext4
export BENCH_RUNTIME=${BENCH_RUNTIME:-20}
# BEFORE: scenarios run first, once each, as make bench runs its others
# before this one's first round (BEFORE=headline: the eleven of them)
[ "${BEFORE:-}" != headline ] || BEFORE=$(echo $BENCH_HEADLINE | sed "s/ *$S//")
jobs=$(for b in ${BEFORE:-}; do echo "$TOP/bench/$b.fio"; done
	for _ in $(seq "$ROUNDS"); do echo "$TOP/bench/$S.fio"; done)
KERNELS=${KERNELS:-vanilla patched}
OUT=${OUT:-$TOP/results/wb-others-noise.md}
for v in $KERNELS; do
	[ "${NO_RUN:-0}" != 1 ] || break
	image=$BUILD/images/$v-hz1000/bzImage
	[ -e "$image" ] || die "no $image: make bench builds it"
	R=$BUILD/out/wb-others-noise-$v${RUN:+-$RUN}
	rm -rf "$R"
	mkdir -p "$R"
	echo "$v" >"$R/kernel"
	date -u +%Y-%m-%dT%H:%M:%SZ >"$R/started"
	git -C "$TOP" describe --always --dirty >"$R/commit"
	echo "${BEFORE:-}" >"$R/before"
	# the guest's command in a file: boot.sh passes it on the kernel's
	# command line, which takes no script
	cat >"$R/guest.sh" <<-SH
	python3 "$TOP/scripts/instruments/canary.py" "$R/canary" &
	c=\$!
	"$TOP/scripts/pipeline/bench-guest.sh" "$R" $(echo $jobs)
	rc=\$?
	kill \$c
	wait \$c
	exit \$rc
	SH
	BOOT_TIMEOUT=$(($(echo $jobs | wc -w) * (BENCH_RUNTIME + 120) + 600)) \
		"$TOP/scripts/pipeline/boot.sh" "$image" "$R" \
		env BENCH_RUNTIME="$BENCH_RUNTIME" bash "$R/guest.sh" \
		>"$R/guest.out" 2>&1 || die "the guest failed (logs in $R)"
done
# one row a round, of every run in build/out (RUN=NAME keeps a run's
# directory apart from the next one's); NO_RUN=1 writes the table again
python3 - "$TOP" "$BENCH_RUNTIME" "$S" "$BUILD"/out/wb-others-noise-*/ >"$OUT" <<-'PY'
import glob, os, re, sys
top, runtime, S = sys.argv[1], float(sys.argv[2]), sys.argv[3]
# a round's figures as make bench's table has them
sys.path.insert(0, os.path.join(top, "scripts", "analysis"))
import analyze  # noqa: E402
print("# An unlimited group's fsync beside a throttled writer, and a canary\n")
print("`scripts/instruments/wb-others-noise.sh`: bench/wb1m-others-ext4.fio "
      "(null_blk, ext4, a writer at wbps=1MiB/s under memory.max=256M, "
      "the group beside it fsyncing 4 KiB writes and making metadata "
      "operations), %d s a round, QEMU TCG on the host's clock, "
      "build/images/KERNEL-hz1000 as make bench built them; beside it in "
      "the root cgroup, scripts/instruments/canary.py, which sleeps 5 ms "
      "at a time and notes each wake-up 10 ms or more late. A round the "
      "memory controller ended by killing the writer has no figures. ext4 "
      "as bench-guest.sh made it at the time: its inode tables zeroed by "
      "its lazyinit thread during the rounds until 2026-12-06 19:56 UTC, "
      "by mkfs since.\n"
      % runtime)
print("| kernel | round | others' slowest fsync | slowest metadata op | canary's latest wake-up | canary late >= 50 ms |")
print("|---|---|---|---|---|---|")
runs = sorted((r for r in sys.argv[4:] if os.path.exists(r + "/canary")),
              key=lambda r: open(r + "/started").read())
for r in runs:
    v = open(r + "/kernel").read().strip()
    late = [tuple(map(float, l.split())) for l in open(r + "/canary")]
    started = "%s, %s" % (open(r + "/started").read().strip(),
                          open(r + "/commit").read().strip())
    before = open(r + "/before").read().split() \
        if os.path.exists(r + "/before") else []
    if before:
        started += ", after %d other scenarios" % len(before)
    rounds = glob.glob(r + "/" + S + ".r*.json") + glob.glob(r + "/" + S + ".r*.oom")
    for p in sorted(rounds, key=lambda p: int(re.search(r"\.r(\d+)\.", p)[1])):
        n = re.search(r"\.r(\d+)\.", p)[1]
        if p.endswith(".oom"):
            print("| %s (%s) | %s | the writer was OOM-killed | | | |" % (v, started, n))
            continue
        d = analyze.fio_summary.load(p)
        # fio reports when its last job ends (the writer, held up to
        # its release): the others ran from fio's start for their time
        o = [j for j in d["jobs"] if j["jobname"] == "others"][0]
        start = d["timestamp_ms"] / 1000 - max(j["elapsed"] for j in d["jobs"])
        end = start + o["job_runtime"] / 1000
        f = analyze.others(d, p[:-len("json")] + "meta")
        c = [ms for t, ms in late if start <= t <= end]
        print("| %s (%s) | %s | %.1f ms | %.1f ms | %s | %d |"
              % (v, started, n, f["others_fsync_max_us"] / 1000,
                 f["meta_max_us"] / 1000,
                 "%.1f ms" % max(c) if c else "under 10 ms",
                 sum(1 for x in c if x >= 50)))
PY
# and the same scenario's rounds in each make bench the repository kept
python3 - "$TOP" >>"$OUT" <<-'PY'
import json, subprocess, sys
top = sys.argv[1]
git = lambda *a: subprocess.run(("git", "-C", top) + a, check=True,
                                capture_output=True, text=True).stdout
print("\nThe scenario's rounds in each `results/bench.json` of the "
      "repository's history (make bench, three rounds, run each in turn "
      "with the other headline scenarios, so that round 1 follows eleven "
      "of them): the other group's slowest fsync / slowest metadata "
      "operation, ms, a round each (a round an OOM kill ended is left "
      "out); a dash for a kernel the run did not have. patched is the series as it was "
      "at that commit: with its writeback follow-up since 578425d.\n")
print("| commit | made | vanilla | core | patched |")
print("|---|---|---|---|---|")
for line in git("log", "--format=%h %cs", "--", "results/bench.json").split("\n"):
    if not line:
        continue
    c, day = line.split()
    d = json.loads(git("show", c + ":results/bench.json"))
    e = d.get("wb1m-others-ext4")
    if not e:
        continue
    cells = []
    for k in ("vanilla", "core", "patched"):
        rs = e.get(k, {}).get("rounds", [])
        cells.append(", ".join("%.0f / %.0f" % (r["others_fsync_max_us"] / 1000,
                                                r["meta_max_us"] / 1000)
                               for r in rs if "others_fsync_max_us" in r) or "-")
    print("| %s | %s | %s |" % (c, day, " | ".join(cells)))
PY
cat "$OUT"
