#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What does an fsync beside sixteen limited writers wait for? Runs the
# scale cases of writeback.sh alone on VARIANT, on QEMU's virtual clock,
# with stack-sample.py beside the unlimited group's fsync_loop.py and
# the filesystem's journal thread, and prints where they slept, named
# from the kernel's System.map, most often first (a sample every 5 ms).
#
#   scale-stacks.sh [VARIANT [HZ]]    (default: patched 1000)
#
# On 2026-12-06 the series' fsyncs on the 1 GiB device's 32 MiB journal
# slept in jbd2's add_transaction_credits(), waiting for the reserved
# credits the sixteen's writeback extents hold until their IO completes
# (results/README.md, "What the fsync beside the sixteen waits for").
set -u
. "$(dirname "$0")/../pipeline/lib.sh"

VARIANT=${1:-patched}
HZ=${2:-1000}
R=$BUILD/out/scale-stacks
IMAGE=$("$TOP/scripts/pipeline/build.sh" "$VARIANT" "$HZ") || exit 1
install_kselftests "$R/ksft"

# writeback.sh with the scale cases only and the sampler beside the loop
python3 - "$R/ksft/blk-throttle/writeback.sh" "$TOP/scripts/instruments" <<'PY'
import sys
path, inst = sys.argv[1:]
s = open(path).read()
def cut(old, new):
    global s
    assert s.count(old) == 1, "writeback.sh changed: " + old
    s = s.replace(old, new)
first = s.index('beside ext4 256M "$NULLB_DEV"')
s = s[:first] + s[s.index("scale wb16 scale"):]
cut("ktap_set_plan 27", "ktap_set_plan 4")
cut('''	looppid=$!
	bt_sleep "$quarter"
	if [ -n "$other" ]; then
''', '''	looppid=$!
	python3 %s/stack-sample.py "$half" "$BT_OUTDIR/$tag-stacks" \\
		fsync_loop jbd2/ &
	sampler=$!
	bt_sleep "$quarter"
	if [ -n "$other" ]; then
''' % inst)
cut('''	wait "$looppid" || ktap_exit_fail_msg "fsync_loop.py failed on $label"
	if [ -n "$other" ]; then
		write_other "$o" later
''', '''	wait "$looppid" || ktap_exit_fail_msg "fsync_loop.py failed on $label"
	wait "$sampler"
	while read -r l; do
		ktap_print_msg "$label: stacks: $l"
	done <"$BT_OUTDIR/$tag-stacks"
	if [ -n "$other" ]; then
		write_other "$o" later
''')
open(path, "w").write(s)
PY

IMAGE=$IMAGE KSFT_DIR=$R/ksft RUN=scale-stacks NO_BUILD=1 CLOCK=virtual \
	TESTS=writeback.sh "$TOP/scripts/pipeline/test.sh" "$VARIANT" "$HZ" \
	>"$R/test.log" 2>&1
echo "test.sh exited $? (log: $R/test.log)"
grep -h "^# # scale\|^# \(not \)\?ok" "$R/test.log" |
	python3 "$TOP/scripts/instruments/stack-resolve.py" \
		"$(dirname "$IMAGE")/System.map"
