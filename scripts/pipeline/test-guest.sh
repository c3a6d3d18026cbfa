#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest: saves the KUnit results the kernel printed at
# boot, then runs the installed blk-throttle kselftests.
#
#   test-guest.sh KSELFTEST_DIR OUTDIR
#
# TESTS, if set, names the tests to run (default: all of them);
# KSFT_OVERRIDE_TIMEOUT, if set, replaces the settings file's timeout.
# KCSAN_IGNORE, if set, names functions whose data races a KCSAN kernel
# is not to report (its debugfs filter, by the function an access is in).
set -u
KSFT=${1:?}
OUT=${2:?}

# the kernel's log from boot, for the KUnit suites built into it
dmesg >"$OUT/dmesg-boot.log"

if [ -n "${KCSAN_IGNORE:-}" ]; then
	[ -e /sys/kernel/debug/kcsan ] || mount -t debugfs none /sys/kernel/debug
	for f in $KCSAN_IGNORE; do
		echo "!$f" >/sys/kernel/debug/kcsan || exit 1
	done
	echo "KCSAN does not report races in: $KCSAN_IGNORE"
fi

# The runner prints each test's own lines among its own, and they go out
# on stdout as they are printed: test.sh cuts them into per-test
# logs on the host. Not the runner's per-test log files (-p): on the
# guest's 9p mount they fall behind, since the runner's prefix writes a
# byte at a time, each a round trip to the host, and a kernel that dies
# in a test took the last lines before its death with it.
cd "$KSFT" || exit 1
args=()
for t in ${TESTS:-}; do
	args+=(-t "blk-throttle:$t")
done
[ -n "${KSFT_OVERRIDE_TIMEOUT:-}" ] && args+=(-o "$KSFT_OVERRIDE_TIMEOUT")
./run_kselftest.sh "${args[@]}" 2>&1 | tee "$OUT/kselftest.ktap"
rc=${PIPESTATUS[0]}
dmesg >"$OUT/dmesg.log"
exit "$rc"
