#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest: saves the KUnit results the kernel printed at
# boot, then runs the installed blk-throttle kselftests.
#
#   guest-test.sh KSELFTEST_DIR OUTDIR
#
# TESTS, if set, names the tests to run (default: all of them).
set -u
KSFT=${1:?}
OUT=${2:?}

# the kernel's log from boot, for the KUnit suites built into it
dmesg >"$OUT/dmesg-boot.log"

# run_kselftest.sh writes only its per-test logs, into OUT
cd "$KSFT" || exit 1
only=()
for t in ${TESTS:-}; do
	only+=(-t "blk-throttle:$t")
done
./run_kselftest.sh -p "$OUT/kselftest" "${only[@]}" 2>&1 | tee "$OUT/kselftest.ktap"
rc=${PIPESTATUS[0]}
dmesg >"$OUT/dmesg.log"
exit "$rc"
