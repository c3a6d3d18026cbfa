#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build VARIANT at HZ, boot it, run the blk-throttle kselftests and the
# KUnit suites built into the kernel, and judge the KTAP with the
# kernel's own parser (tools/testing/kunit/kunit.py parse). Exits non-zero
# if any test failed or the guest misbehaved.
#
#   test.sh [VARIANT [HZ]]    (default: patched 1000)
#
# TESTS="tail_latency.sh regressions.sh" runs only those kselftests;
# BLK_THROTTLE_RUNTIME=N sets the seconds of each fio run in them;
# RUN=NAME keeps this run's results apart (build/out/test-...-NAME).
# NO_BUILD=1 boots the image already in build/images instead of
# building it (lib.sh's kernel_image), beside another build.
#
# CLOCK=virtual runs the guest on QEMU's virtual clock (lib.sh's
# ICOUNT_OPTS; TCG, one vCPU): a time measured inside the guest, such as
# fio's latencies on null_blk or dd's copy time, is the kernel's own,
# with none of the emulator's interrupt latency or the host's steal in
# it, and the same on every run. This is where make test judges rates
# and latencies. While the guest waits for the host (its root
# filesystem, to start a program) its clock leaps from timer to timer,
# so the tests never time a program's start (they count from the first
# IO), and a kselftest's time limit would run out in seconds: there is
# none (boot.sh's BOOT_TIMEOUT, on the host's clock, still holds).
# Without CLOCK, the guest runs on the host's clock with two vCPUs, as a
# machine would.
#
# DEBUG=1 builds and boots the debug variant (KASAN, lockdep, UBSAN, the
# hung-task detector). It is there for splats and hangs: by default it
# runs the tests that judge no time (io_max_interface.sh, stress.sh),
# and hung_task.sh, which needs the detector, where the series has it.
# KCSAN=1 does the same with the KCSAN variant (kconfig/kcsan.config: the
# data-race detector and lockdep), where a data race is the splat.
#
# A SKIP or an XFAIL among the kselftests' results fails the run: in the
# guests the harness boots every test can run, and no bound may be
# excused. ALLOW_SKIP=1 lets them through, for a machine of your own.
# A test the runner ran whose lines, totals and all, are in neither copy
# of the guest's output (below) fails it too: its checks went unjudged.
set -u
. "$(dirname "$0")/lib.sh"

VARIANT=${1:-patched}
stable_tree "$VARIANT"
HZ=${2:-${HZ:-1000}}
flavour=hz$HZ
[ "${DEBUG:-0}" = 1 ] && flavour=$flavour-debug
if [ "${KCSAN:-0}" = 1 ]; then
	[ "${DEBUG:-0}" = 1 ] && die "DEBUG=1 (KASAN) and KCSAN=1 cannot share a kernel"
	[ -z "${EXTRA_CONFIG:-}" ] ||
		die "KCSAN=1 is EXTRA_CONFIG=kconfig/kcsan.config: it cannot take EXTRA_CONFIG=$EXTRA_CONFIG too"
	export EXTRA_CONFIG=$TOP/kconfig/kcsan.config
	flavour=$flavour-kcsan
	# On more than two CPUs KCSAN reports races in upstream code the
	# tests reach and the series does not touch: the scheduler's
	# lockless search of nohz.idle_cpus_mask and sbitmap's of a word of
	# tags, both in the bitmap helpers. They are left out by the
	# function they are in; any other report still fails the run.
	KCSAN_IGNORE=${KCSAN_IGNORE-_find_next_bit _find_next_zero_bit}
fi
use_clock
[ "${CLOCK:-host}" = virtual ] && flavour=$flavour-virtual
OUT=$BUILD/out/test-$VARIANT-$flavour${RUN:+-$RUN}
t0=$(date +%s)

# The kselftests are installed the kernel's way, from the patched tree
# (they are part of the series), whichever kernel they will run on.
# IMAGE=bzImage and KSFT_DIR=DIR (an installed copy) build nothing, so
# that several guests can run at once (repeat.sh).
if [ -n "${IMAGE:-}" ] && [ -n "${KSFT_DIR:-}" ]; then
	image=$IMAGE KSFT=$KSFT_DIR
else
	"$TOP/scripts/pipeline/tree.sh" patched >/dev/null || exit 1
	KSFT=$BUILD/kselftest
	install_kselftests "$KSFT"
	image=$(kernel_image "$VARIANT" "$HZ") || exit 1
fi
t1=$(date +%s)

rm -rf "$OUT"
mkdir -p "$OUT"
# the guest starts with a clean environment: hand these over
genv=(env)
# The debug and KCSAN variants (KASAN or KCSAN, lockdep):
# - the tests that judge no time, unless TESTS says otherwise;
# - no5lvl, for KASAN: under 5-level paging, identify_cpu() clears
#   boot_cpu_data's feature bits, LA57 among them, with interrupts on;
#   KASAN takes its shadow bounds from that bit, so an interrupt in the window is reported
#   as a wild access to the irq_desc in the direct map ("BUG: KASAN:
#   wild-memory-access in do_raw_spin_lock", at 0.004 s, before any of the
#   series runs). TCG makes the window wide.
# - 20 min for each test (the core's settings file gives 10), and 40
#   min before boot.sh calls the guest hung: under TCG a KASAN kernel is
#   slow (stress.sh's 90 s take about 4 min).
if [ "${DEBUG:-0}" = 1 ] || [ "${KCSAN:-0}" = 1 ]; then
	dflt="io_max_interface.sh stress.sh"
	[ ! -f "$KSFT/blk-throttle/hung_task.sh" ] || dflt="$dflt hung_task.sh"
	TESTS=${TESTS-$dflt}
	timeout=1200
	[ "${DEBUG:-0}" = 1 ] &&
		export BOOT_APPEND="${BOOT_APPEND:+$BOOT_APPEND }no5lvl"
	export BOOT_TIMEOUT=${BOOT_TIMEOUT:-2400}
fi
# on the virtual clock a kselftest's limit runs out in seconds (see the
# top): none there, boot.sh's BOOT_TIMEOUT holds. It is an hour there:
# such a guest's host time says nothing of the kernel, only of the
# host's load (make test runs two guests and a build on two cores), and
# a loaded or stolen-from host has taken the 30 minutes of boot.sh's
# default with every test still passing.
if [ "${CLOCK:-host}" = virtual ]; then
	timeout=0
	export BOOT_TIMEOUT=${BOOT_TIMEOUT:-3600}
	# a deterministic clock: the timing bounds' tight strength
	export BLK_THROTTLE_BOUNDS=${BLK_THROTTLE_BOUNDS:-tight}
fi
[ -n "${timeout:-}" ] && genv+=("KSFT_OVERRIDE_TIMEOUT=$timeout")
for v in BLK_THROTTLE_RUNTIME BLK_THROTTLE_STRESS_SECS BLK_THROTTLE_STRESS_SEED \
	BLK_THROTTLE_IO_MAX_SEED BLK_THROTTLE_IO_MAX_V1_ONLY BLK_THROTTLE_BOUNDS \
	BLK_THROTTLE_TEST_DEV BLK_THROTTLE_NULLB_MIB KCSAN_IGNORE; do
	[ -n "${!v:-}" ] && genv+=("$v=${!v}")
done
# boot the kernel, run the kselftests (TESTS, or all) and keep what they
# print in OUT
"$TOP/scripts/pipeline/boot.sh" "$image" "$OUT" "${genv[@]}" ${TESTS:+"TESTS=$TESTS"} \
	"$TOP/scripts/pipeline/test-guest.sh" "$KSFT" "$OUT"
guest_rc=$?
# each kselftest's own lines, cut from what the runner printed
# (test-guest.sh) into OUT/kselftest/TEST, and the host's seconds each
# took (boot.sh's timestamps before each line).
# Where virtme-ng could not find its virtio-serial ports for the script's
# output ("console fallback": udev did not settle in time, seen on the
# virtual clock, whose time leaps while a loaded host serves the guest's
# root filesystem) that output goes to the console, and the host's copy
# has none of it: the runner's own copy (kselftest.ktap, written by the
# guest) then has it all, without the host's seconds.
lines=$OUT/guest-host-times.log
if ! grep -q '^[0-9]* # selftests: blk-throttle: ' "$lines" 2>/dev/null &&
   grep -q '^# selftests: blk-throttle: ' "$OUT/kselftest.ktap" 2>/dev/null; then
	grep -F 'console fallback' "$OUT/console.log" | head -n 1
	echo "the tests' lines are taken from the runner's own copy, $OUT/kselftest.ktap"
	lines=$OUT/kselftest-lines.log
	sed 's/^/0 /' "$OUT/kselftest.ktap" >"$lines"
fi
mkdir -p "$OUT/kselftest"
per_test=$(awk -v dir="$OUT/kselftest" '
	{ t = $1; sub(/^[0-9]+ /, "") }
	/^# selftests: blk-throttle: / { name = $4; f = dir "/" name; s = t; printf "" >f; next }
	/^(not )?ok [0-9]+ selftests: blk-throttle: / && f != "" {
		close(f); f = ""; printf " %s %ds,", name, t - s; next }
	f != "" { print >f }' "$lines" 2>/dev/null)

# the results kunit.py counts as passed that the harness does not:
# counted before the judging below writes its .parsed files beside them
# (the tests' own from their logs; the runner's from its unprefixed
# lines, since its output holds the tests' lines too, each once)
excused=$({ cat "$OUT"/kselftest/*.sh; grep -v '^#' "$OUT/kselftest.ktap"; } 2>/dev/null |
	sed -nE 's/^(# )?ok [0-9]+ (.*) # (SKIP|XFAIL)(.*)$/\3: \2\4/p')
t2=$(date +%s)

# Judge (lib.sh's kunit_parse): KTAP from KUnit (the boot log) and from
# kselftest (each test's own log, and the runner's summary).

fail=0
exec > >(tee "$OUT/summary.txt")
echo
echo "$VARIANT HZ=$HZ, $(cat "$OUT/accel")${CLOCK:+, $CLOCK clock}, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "KUnit (from the boot log):"
if grep -qE '^\[ *[0-9.]+\] *(K)?TAP version' "$OUT/dmesg-boot.log" &&
   ! grep -qE '^\[ *[0-9.]+\] 1\.\.0$' "$OUT/dmesg-boot.log"; then
	kunit_parse "$OUT/dmesg-boot.log" || fail=1
else
	echo "    no KUnit suites in this kernel"
fi
echo "kselftest blk-throttle:"
for log in "$OUT"/kselftest/*.sh; do
	[ -f "$log" ] || continue
	echo "  $(basename "$log"):"
	kunit_parse "$log" || fail=1
	# the figures the test printed for the record
	sed -n 's/^# # /      # /p' "$log" | grep -v Totals
done
echo "  runner summary:"
kunit_parse "$OUT/kselftest.ktap" || fail=1
# every test the runner ran has its own log: its lines reached the host
for t in $(sed -nE 's/^(not )?ok [0-9]+ selftests: blk-throttle: (\S+).*/\2/p' \
	"$OUT/kselftest.ktap" 2>/dev/null); do
	grep -q 'Totals:' "$OUT/kselftest/$t" 2>/dev/null && continue
	echo "  $t: the runner ran it, but its lines, totals and all, are not in $lines (it died, or they were lost)"
	fail=1
done
if [ -n "$excused" ]; then
	echo "  SKIP and XFAIL (kunit.py says PASSED or SKIPPED):"
	printf '%s\n' "$excused" | sed 's/^/    /'
	[ "${ALLOW_SKIP:-0}" = 1 ] || fail=1
fi
[ "$guest_rc" = 0 ] || { echo "guest command exited $guest_rc"; fail=1; }

echo
[ -z "$per_test" ] || echo "host seconds per test:${per_test%,}"
echo "times: build $((t1 - t0))s, boot and tests $((t2 - t1))s ($(cat "$OUT/accel"), guest $(cat "$OUT/boot-seconds")s); logs in $OUT"
[ $fail = 0 ] || die "tests failed on $VARIANT HZ=$HZ (KTAP and console in $OUT)"
say "all tests passed on $VARIANT HZ=$HZ"
