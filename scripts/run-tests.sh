#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build VARIANT at HZ, boot it, run the blk-throttle kselftests and the
# KUnit suites built into the kernel, and judge the KTAP with the
# kernel's own parser (tools/testing/kunit/kunit.py parse). Exits non-zero
# if any test failed or the guest misbehaved.
#
#   run-tests.sh [VARIANT [HZ]]    (default: patched 1000)
#
# TESTS="tail_latency.sh regressions.sh" runs only those kselftests;
# BLK_THROTTLE_RUNTIME=N sets the seconds of each fio run in them.
#
# CLOCK=virtual runs the guest on QEMU's virtual clock (lib.sh's
# ICOUNT_OPTS; TCG, one vCPU): a time measured inside the guest, such as
# fio's latencies on null_blk, is the kernel's own, with none of the
# emulator's interrupt latency or the host's steal in it. The timing
# checks are then judged without the steal rule, since the guest's clock
# does not stall with the host, and results go to
# build/out/test-VARIANT-hzHZ-virtual. But while the guest waits for the
# host (its root filesystem, to start a program) its clock leaps from
# timer to timer: a kselftest's time limit runs out in seconds, so there
# is none (boot.sh's BOOT_TIMEOUT, on the host's clock, still holds), and
# a check that times a program's start with the IO it paces means
# nothing there. Without CLOCK, the guest runs on the host's clock with
# two vCPUs, as a machine would.
set -u
. "$(dirname "$0")/lib.sh"

VARIANT=${1:-patched}
HZ=${2:-${HZ:-1000}}
flavour=hz$HZ
[ "${DEBUG:-0}" = 1 ] && flavour=$flavour-debug
case ${CLOCK:-host} in
host) ;;
virtual)
	flavour=$flavour-virtual
	export ACCEL=tcg GUEST_CPUS=1
	export BOOT_QEMU_OPTS="${BOOT_QEMU_OPTS:+$BOOT_QEMU_OPTS }$ICOUNT_OPTS" ;;
*) die "CLOCK must be host or virtual" ;;
esac
OUT=$BUILD/out/test-$VARIANT-$flavour
t0=$(date +%s)

# The kselftests are installed the kernel's way, from the patched tree
# (they are part of the series), whichever kernel they will run on.
"$TOP/scripts/prepare-tree.sh" patched >/dev/null || exit 1
KSFT=$BUILD/kselftest
rm -rf "$KSFT"
run_logged "$LOGS/kselftest-install.log" \
	make -C "$LINUX/tools/testing/selftests" TARGETS=blk-throttle \
	INSTALL_PATH="$KSFT" install

image=$("$TOP/scripts/build-kernel.sh" "$VARIANT" "$HZ") || exit 1
t1=$(date +%s)

rm -rf "$OUT"
mkdir -p "$OUT"
# the guest starts with a clean environment: hand these over
genv=(env)
# The debug variant (KASAN, lockdep):
# - KSFT_MACHINE_SLOW, the kselftest convention for a kernel too slow for
#   timing bounds: the tests report a missed bound as XFAIL (see
#   bt_timed_result).
# - no5lvl: under 5-level paging, identify_cpu() clears boot_cpu_data's
#   feature bits, LA57 among them, with interrupts on; KASAN takes its
#   shadow bounds from that bit, so an interrupt in the window is reported
#   as a wild access to the irq_desc in the direct map ("BUG: KASAN:
#   wild-memory-access in do_raw_spin_lock", at 0.004 s, before any of the
#   series runs). TCG makes the window wide.
# - 10 s fio runs unless BLK_THROTTLE_RUNTIME says otherwise, 20 min for
#   each test instead of the settings file's 10, and 40 min before
#   boot.sh calls the guest hung: under TCG its tests took 1528 s in one
#   fresh-clone CI, and readahead.sh alone went past 600 s in another
#   (the debug variant is there for splats, not for times).
if [ "${DEBUG:-0}" = 1 ]; then
	genv+=("KSFT_MACHINE_SLOW=yes" "KSFT_OVERRIDE_TIMEOUT=1200")
	BLK_THROTTLE_RUNTIME=${BLK_THROTTLE_RUNTIME:-10}
	export BOOT_APPEND="${BOOT_APPEND:+$BOOT_APPEND }no5lvl"
	export BOOT_TIMEOUT=${BOOT_TIMEOUT:-2400}
fi
[ "${CLOCK:-host}" = virtual ] && genv+=("KSFT_OVERRIDE_TIMEOUT=0")
[ -n "${BLK_THROTTLE_RUNTIME:-}" ] &&
	genv+=("BLK_THROTTLE_RUNTIME=$BLK_THROTTLE_RUNTIME")
# guest DIR [TESTS] - boot the kernel, run the kselftests (TESTS, or all)
# and keep what they print in DIR; on the host's clock the tests read the
# host's steal time from the copy boot.sh keeps there (see
# bt_timed_result), on the virtual clock the guest's own (none)
guest() {
	local stat=()

	[ "${CLOCK:-host}" = host ] && stat=("BLK_THROTTLE_STAT=$1/host-stat")
	"$TOP/scripts/boot.sh" "$image" "$1" "${genv[@]}" "${stat[@]}" \
		${2:+"TESTS=$2"} "$TOP/scripts/guest-test.sh" "$KSFT" "$1"
}
guest "$OUT" "${TESTS:-}"
guest_rc=$?

# A test with a timing check not judged, because the host's CPU time was
# stolen while it was measured, runs once more in a new guest, and that
# run's log stands (the first is kept in OUT/stolen). Once only: a check
# that misses with steal again stays SKIP, and a miss without steal
# fails either time.
NOT_JUDGED=': not judged, .* stolen meanwhile # SKIP'
again=$(grep -l "$NOT_JUDGED" "$OUT"/kselftest/* 2>/dev/null |
	xargs -r -n 1 basename | paste -sd ' ')
if [ -n "$again" ] && [ "$guest_rc" = 0 ]; then
	warn "not judged in $again: the host's CPU time was stolen (this boot: $(cat "$OUT/host-steal-percent")%); running them once more"
	guest "$OUT/again" "$again"
	guest_rc=$?
	mkdir -p "$OUT/stolen"
	for t in $again; do
		mv "$OUT/kselftest/$t" "$OUT/stolen/$t"
		cp "$OUT/again/kselftest/$t" "$OUT/kselftest/$t" 2>/dev/null
	done
fi
# counted before the judging below writes its .parsed files beside them
unjudged=$(cat "$OUT"/kselftest/* 2>/dev/null | grep -c "$NOT_JUDGED")
# and the bounds missed on a KSFT_MACHINE_SLOW kernel, which kunit.py
# counts as passed: named below, so that no summary hides them
xfailed=$(cat "$OUT"/kselftest/* 2>/dev/null |
	sed -nE 's/^(# )?ok [0-9]+ (.*) # XFAIL.*$/\2/p')
t2=$(date +%s)

# Judge. kunit.py parse reads KTAP from KUnit (the boot log) and from
# kselftest (each test's own log, and the runner's summary).
parse() {
	python3 "$LINUX/tools/testing/kunit/kunit.py" parse "$1" >"$1.parsed" 2>&1
	local rc=$?
	sed -e 's/\x1b\[[0-9;]*m//g' "$1.parsed" | grep -E '^\[[0-9:]+\] (=|\[(PASSED|FAILED|SKIPPED|CRASHED)\]|Testing complete)' | sed 's/^\[[0-9:]*\] /    /'
	return $rc
}

fail=0
exec > >(tee "$OUT/summary.txt")
echo
echo "$VARIANT HZ=$HZ, $(cat "$OUT/accel")${CLOCK:+, $CLOCK clock}, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "KUnit (from the boot log):"
if grep -qE '^\[ *[0-9.]+\] *(K)?TAP version' "$OUT/dmesg-boot.log" &&
   ! grep -qE '^\[ *[0-9.]+\] 1\.\.0$' "$OUT/dmesg-boot.log"; then
	parse "$OUT/dmesg-boot.log" || fail=1
else
	echo "    no KUnit suites in this kernel"
fi
echo "kselftest blk-throttle:"
for log in "$OUT"/kselftest/*; do
	[ -f "$log" ] || continue
	echo "  $(basename "$log"):"
	parse "$log" || fail=1
	# the figures the test printed for the record
	sed -n 's/^# # /      # /p' "$log" | grep -v Totals
done
echo "  runner summary:"
parse "$OUT/kselftest.ktap" || fail=1
if [ -n "$again" ]; then
	echo "  runner summary, once more:"
	parse "$OUT/again/kselftest.ktap" || fail=1
fi
if [ -n "$xfailed" ]; then
	echo "  XFAIL, a bound missed on a slow kernel (kunit.py says PASSED):"
	printf '%s\n' "$xfailed" | sed 's/^/    /'
fi
[ "$unjudged" = 0 ] ||
	warn "$unjudged timing check(s) not judged: the host's CPU time was stolen while they ran"
[ "$guest_rc" = 0 ] || { echo "guest command exited $guest_rc"; fail=1; }

echo
echo "times: build $((t1 - t0))s, boot and tests $((t2 - t1))s ($(cat "$OUT/accel"), guest $(cat "$OUT/boot-seconds")s); logs in $OUT"
[ $fail = 0 ] || die "tests failed on $VARIANT HZ=$HZ (KTAP and console in $OUT)"
say "all tests passed on $VARIANT HZ=$HZ"
