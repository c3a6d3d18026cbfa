#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Judge rates and latencies where time is deterministic, with a negative
# control: the kselftests that time IO run on QEMU's virtual clock
# (run-tests.sh CLOCK=virtual) on the patched kernel and on vanilla, and
# control.py puts both in one table. It passes only if every check passes
# on the patched kernel and the checks the series exists for fail on
# vanilla by a wide margin: proof, on every run, that the tests can tell
# a kernel without the series from one with it.
#
#   control.sh [HZ]    (default 1000)
#
# Vanilla's io.max parsing cases run in a guest of their own, after its
# timing tests: writing 2^32 to a cgroup v1 iops file makes vanilla
# divide by zero with the queue lock held, and the guest hangs. That
# guest boots with oops=panic, so that it ends at the oops instead.
# The table: build/out/control-hzHZ.md; RUN=NAME names another set of
# runs (as repeat.sh does).
set -u
. "$(dirname "$0")/lib.sh"

HZ=${1:-${HZ:-1000}}
export CLOCK=virtual
TIMING="tail_latency.sh pacing.sh regressions.sh readahead.sh"
sfx=${RUN:+-$RUN}
OUT=$BUILD/out
mkdir -p "$OUT"

RUN=${RUN:-} TESTS="io_max_interface.sh $TIMING" \
	"$TOP/scripts/run-tests.sh" patched "$HZ"
patched_rc=$?

# vanilla fails, as it should: only control.py judges it
say "vanilla on the virtual clock (log: $OUT/control-vanilla-hz$HZ$sfx.log)"
{
	RUN=control$sfx TESTS="$TIMING" "$TOP/scripts/run-tests.sh" vanilla "$HZ"
	RUN=control-iomax$sfx TESTS=io_max_interface.sh BOOT_TIMEOUT=600 \
		BOOT_APPEND="oops=panic panic=-1" \
		"$TOP/scripts/run-tests.sh" vanilla "$HZ"
} >"$OUT/control-vanilla-hz$HZ$sfx.log" 2>&1

echo
echo "The negative control, HZ=$HZ on the virtual clock: patched and vanilla"
python3 "$TOP/scripts/control.py" "$OUT/test-patched-hz$HZ-virtual$sfx" \
	"$OUT/test-vanilla-hz$HZ-virtual-control$sfx" \
	"$OUT/test-vanilla-hz$HZ-virtual-control-iomax$sfx" \
	--md "$OUT/control-hz$HZ$sfx.md"
control_rc=$?
[ $patched_rc = 0 ] || die "tests failed on the patched kernel (above)"
[ $control_rc = 0 ] || die "the negative control failed (above)"
say "the timing checks pass on the patched kernel and fail on vanilla"
