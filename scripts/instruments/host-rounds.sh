#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The timing kselftests as a user runs them: at their default, wide
# bounds, on the host's clock (under QEMU's TCG, the noisiest machine the
# project has), N rounds of the series, of its debug variant and of
# vanilla, each round judged by control.py --wide: every check must pass
# on both builds of the series, and those the series exists for must
# fail on vanilla. Then one round of the tests that can read a disk of
# their own on a virtio-blk disk (BLK_THROTTLE_TEST_DEV), the series and
# vanilla. results/host-clock.md; make test judges the tight bounds on
# the virtual clock instead.
#
#   host-rounds.sh [N [HZ]]    (default: 5 1000)
#
# BLK_THROTTLE_RUNTIME (default 10) sets each fio run's seconds.
set -u
. "$(dirname "$0")/../pipeline/lib.sh"

N=${1:-5}
HZ=${2:-${HZ:-1000}}
R=$BUILD/out/host-rounds
export BLK_THROTTLE_BOUNDS=wide
export BLK_THROTTLE_RUNTIME=${BLK_THROTTLE_RUNTIME:-10}
# regressions.sh's bounds are whole seconds in both strengths, and
# blktests' own cases of it run on the host's clock (make blktests)
TIMING="tail_latency.sh pacing.sh stacked.sh waits.sh cpus.sh"
DISKTESTS="tail_latency.sh pacing.sh waits.sh cpus.sh"
rm -rf "$R"
mkdir -p "$R"

VIMAGE=$("$TOP/scripts/pipeline/build.sh" vanilla "$HZ") || exit 1
PIMAGE=$("$TOP/scripts/pipeline/build.sh" patched "$HZ") || exit 1
DIMAGE=$(DEBUG=1 "$TOP/scripts/pipeline/build.sh" patched "$HZ") || exit 1
install_kselftests "$R/ksft"
export KSFT_DIR=$R/ksft

# judge NAME PATCHED VANILLA TESTS - control.py --wide on two runs
judge() {
	python3 "$TOP/scripts/analysis/control.py" "$2" --vanilla "$3" \
		--tests "$4" --wide --md "$R/$1.md" >"$R/$1.log" 2>&1
	echo "$?" >"$R/$1.rc"
	say "$1: $(tail -n 1 "$R/$1.log")"
}

start=$(date +%s)
for i in $(seq "$N"); do
	say "round $i of $N"
	RUN=host-$i IMAGE=$PIMAGE TESTS=$TIMING \
		"$TOP/scripts/pipeline/test.sh" patched "$HZ" >"$R/patched-$i.log" 2>&1
	DEBUG=1 RUN=host-$i IMAGE=$DIMAGE TESTS=$TIMING \
		"$TOP/scripts/pipeline/test.sh" patched "$HZ" >"$R/debug-$i.log" 2>&1
	RUN=host-$i IMAGE=$VIMAGE TESTS=$TIMING \
		"$TOP/scripts/pipeline/test.sh" vanilla "$HZ" >"$R/vanilla-$i.log" 2>&1
	v=$BUILD/out/test-vanilla-hz$HZ-host-$i
	judge "normal-$i" "$BUILD/out/test-patched-hz$HZ-host-$i" "$v" "$TIMING"
	judge "debug-$i" "$BUILD/out/test-patched-hz$HZ-debug-host-$i" "$v" "$TIMING"
done
for k in patched vanilla; do
	use_disk virtio "$R"
	RUN=host-virtio IMAGE=$([ $k = patched ] && echo "$PIMAGE" || echo "$VIMAGE") \
		TESTS=$DISKTESTS env "${DISK_ENV[@]}" \
		"$TOP/scripts/pipeline/test.sh" "$k" "$HZ" >"$R/$k-virtio.log" 2>&1
	rm -f "$R/disk.img"
done
judge virtio "$BUILD/out/test-patched-hz$HZ-host-virtio" \
	"$BUILD/out/test-vanilla-hz$HZ-host-virtio" "$DISKTESTS"
mins=$((($(date +%s) - start + 59) / 60))

python3 "$TOP/scripts/analysis/rounds.py" host "$R" "$N" "$HZ" "$mins" \
	"$BLK_THROTTLE_RUNTIME" >"$TOP/results/host-clock.md"
cat "$TOP/results/host-clock.md"
