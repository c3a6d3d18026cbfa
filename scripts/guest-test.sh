#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest: saves the KUnit results the kernel printed at
# boot, then runs the installed blk-throttle kselftests.
#
#   guest-test.sh KSELFTEST_DIR OUTDIR
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

# run_kselftest.sh writes only its per-test logs, into OUT
cd "$KSFT" || exit 1
args=()
for t in ${TESTS:-}; do
	args+=(-t "blk-throttle:$t")
done
[ -n "${KSFT_OVERRIDE_TIMEOUT:-}" ] && args+=(-o "$KSFT_OVERRIDE_TIMEOUT")
# show_failures - pass the runner's lines through, and after a test that
# failed, its own lines: a log that keeps only the lines around a failure
# still tells which check failed, and with what figures
show_failures() {
	local line t

	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		"not ok "*" selftests: blk-throttle: "*)
			t=${line#*blk-throttle: }
			cat "$OUT/kselftest/${t%% *}"
			;;
		esac
	done
}

./run_kselftest.sh -p "$OUT/kselftest" "${args[@]}" 2>&1 |
	tee "$OUT/kselftest.ktap" | show_failures
rc=${PIPESTATUS[0]}
dmesg >"$OUT/dmesg.log"
exit "$rc"
