#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark on your own machine: no build and no guest, the headline
# scenarios of bench/ run under the kernel this machine booted, against a
# disk of its own, as root. Boot vanilla and run it, boot the series and
# run it again, then merge the two runs into one before/after table:
#
#   make bench DEV=/dev/nvme0n1 LABEL=vanilla    # under each kernel
#   make bench DEV=/dev/nvme0n1 LABEL=patched
#   make bench-merge BEFORE=results/here/vanilla AFTER=results/here/patched
#
# It only reads DEV (fio's --readonly): the scenarios that make a
# filesystem and write are left out, unless BENCH_WRITE=1, which runs
# them too and destroys what DEV holds. Each run goes to
# results/here/LABEL (LABEL defaults to the running kernel's release),
# or RESULTS; SCENARIOS and BENCH_RUNTIME work as for make bench. The
# null_blk attributes of a scenario (seed000's 4 MB/s cap) do not apply.
#
# It needs what the kselftests need (cgroup v2 with the io controller,
# fio, python3), and a kernel tree for their KTAP helpers: build/linux
# (make tree), or KSRC=DIR, the tree you built the kernel from. It
# leaves the cgroup mounts as it found them.
set -u
. "$(dirname "$0")/lib.sh"

DEV=${DEV:?usage: make bench DEV=/dev/BLOCKDEVICE [LABEL=NAME]}
[ -b "$DEV" ] || die "DEV=$DEV is not a block device"
[ "$(id -u)" = 0 ] || die "make bench DEV=... runs as root: it makes cgroups and sets io.max"
[ -f "${KSRC:-$LINUX}/tools/testing/selftests/kselftest/ktap_helpers.sh" ] ||
	die "no kernel tree: KSRC=DIR (the tree you built the kernel from), or make tree"
LABEL=${LABEL:-$(uname -r)}
OUT=${RESULTS:-$TOP/results/here/$LABEL}
export BENCH_RUNTIME=${BENCH_RUNTIME:-20}

ro=1
[ "${BENCH_WRITE:-0}" != 1 ] || ro=0
runs=
for s in ${SCENARIOS:-$BENCH_HEADLINE}; do
	job=$TOP/bench/$s.fio
	[ -f "$job" ] || die "no scenario bench/$s.fio"
	if [ "$ro" = 1 ] &&
	   grep -qE '^; (fs|others):|^rw=.*(write|rw)' "$job"; then
		say "leaving out $s: it writes to the disk (BENCH_WRITE=1 runs it)"
		continue
	fi
	runs="$runs $job"
done
[ -n "$runs" ] || die "no scenario to run"

rm -rf "$OUT"
mkdir -p "$OUT"
printf '%s\n' $runs >"$OUT/runs"
uname -r >"$OUT/kernel"
echo "$LABEL" >"$OUT/label"
echo "$DEV" >"$OUT/device"
echo native >"$OUT/accel"
echo "$BENCH_RUNTIME" >"$OUT/runtime"
# the tick rate, if the kernel says (only make bench's guests are sure)
{ zcat /proc/config.gz 2>/dev/null || cat "/boot/config-$(uname -r)" 2>/dev/null; } |
	sed -n 's/^CONFIG_HZ=//p' >"$OUT/hz"
date -u +%Y-%m-%dT%H:%M:%SZ >"$OUT/date"
say "benchmark of $(uname -r) on $DEV: $(wc -l <"$OUT/runs") scenarios of ${BENCH_RUNTIME}s into $OUT"
BLK_THROTTLE_TEST_DEV=$DEV BENCH_READONLY=$ro \
	BENCH_PROGRESS="$LABEL 0 $(wc -l <"$OUT/runs")" \
	"$TOP/scripts/pipeline/bench-guest.sh" "$OUT" ||
	die "the benchmark failed (its output is in $OUT)"
say "done: make bench-merge BEFORE=... AFTER=$OUT"
