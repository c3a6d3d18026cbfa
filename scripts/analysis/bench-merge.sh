#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two runs of make bench DEV=... (bench-here.sh), under the kernel before
# and the kernel after, as one before/after table and plots, the same as
# make bench's: OUT/bench.md, bench.json and a PNG per scenario.
#
#   bench-merge.sh BEFORE AFTER [OUT]    (default OUT: results/here)
set -u
. "$(dirname "$0")/../pipeline/lib.sh"

B=${1:?usage: bench-merge.sh BEFORE AFTER [OUT]}
A=${2:?usage: bench-merge.sh BEFORE AFTER [OUT]}
OUT=${3:-$TOP/results/here}
for d in "$B" "$A"; do
	[ -f "$d/runs" ] && [ -f "$d/kernel" ] || die "$d is not a run of make bench DEV=..."
done
# the scenarios a run ran, in its order
names() { xargs -n1 basename <"$1/runs" | awk '!seen[$0]++'; }
[ "$(names "$B" | sort)" = "$(names "$A" | sort)" ] ||
	die "$B and $A ran different scenarios"
[ "$(cat "$B/device")" = "$(cat "$A/device")" ] ||
	warn "the runs read different devices: $(cat "$B/device") and $(cat "$A/device")"
hz=$(cat "$A/hz")
[ "$hz" = "$(cat "$B/hz")" ] || hz=0
python3 "$TOP/scripts/analysis/analyze.py" --hz "${hz:-0}" --out "$OUT" \
	--base-version "$(cat "$B/label") ($(cat "$B/kernel")) before, $(cat "$A/label") ($(cat "$A/kernel")) after" \
	--accel native --runtime "$(cat "$A/runtime")" --date "$(cat "$A/date")" \
	--rerun "make bench DEV=$(cat "$A/device") under each kernel, then make bench-merge" \
	--device "$(cat "$A/device") on this machine" \
	vanilla="$B" patched="$A" $(names "$A" | sed "s|^|$TOP/bench/|")
