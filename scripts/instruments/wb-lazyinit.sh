#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Does ext4's lazyinit thread, zeroing inode tables while a scenario
# runs, delay the other group's fsync beside the throttled writer? It
# zeroes each group's inode table holding a journal handle, which a
# commit may wait for. Runs writeback.sh's ext4 case under memory.max=256M
# as the kselftest makes ext4 (mkfs zeroes the tables), then twice with
# mkfs's defaults (lazyinit zeroes them as the test runs), under
# memory.max and without, on QEMU's virtual clock, for each of KERNELS
# (default "vanilla patched"), and writes what the cases printed to
# results/wb-lazyinit.md.
#
#   wb-lazyinit.sh
set -u
. "$(dirname "$0")/../pipeline/lib.sh"

KERNELS=${KERNELS:-vanilla patched}
R=$BUILD/out/wb-lazyinit
OUT=$TOP/results/wb-lazyinit.md
declare -A image
for v in $KERNELS; do
	[ "$v" = patched ] || image[$v]=$("$TOP/scripts/pipeline/build.sh" "$v") || exit 1
done
# the kselftests of the patched tree, which build.sh leaves in place last
image[patched]=$("$TOP/scripts/pipeline/build.sh" patched) || exit 1
install_kselftests "$R/ksft"
python3 - "$R/ksft/blk-throttle/writeback.sh" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
def cut(old, new):
    global s
    assert s.count(old) == 1, "writeback.sh changed: " + old
    s = s.replace(old, new)
cut('\text4) mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 -F "$BT_DEV" ;;',
    '\text4) if [[ "$label" == *lazyinit* ]]; then mkfs.ext4 -q -F "$BT_DEV"\n'
    '\t\telse mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 -F "$BT_DEV"; fi ;;')
a = s.index('beside ext4 256M "$NULLB_DEV" "$NULLB_MAJMIN"\n')
b = s.index('\n', s.index('scale wb16-j128')) + 1
s = s[:a] + '''beside ext4 256M "$NULLB_DEV" "$NULLB_MAJMIN"
beside ext4 256M "$NULLB_DEV" "$NULLB_MAJMIN" "ext4 lazyinit"
beside ext4 max "$NULLB_DEV" "$NULLB_MAJMIN" "ext4 lazyinit without memory.max"
''' + s[b:]
cut("ktap_set_plan 27", "ktap_set_plan 14")
open(p, "w").write(s)
PY
{
	echo "# ext4's lazyinit beside the throttled writer (virtual clock)"
	echo
	echo "\`scripts/instruments/wb-lazyinit.sh\`, $(date -u +%Y-%m-%dT%H:%M:%SZ)," \
		"$(git -C "$TOP" describe --always --dirty): writeback.sh's ext4 case" \
		"(a writer at wbps=1MiB/s, a group with no limit beside it that" \
		"fsyncs), with ext4 made as the kselftest makes it and with mkfs's" \
		"defaults (lazyinit), on QEMU's virtual clock; what each case printed:"
	for v in $KERNELS; do
		# its status is not the question (vanilla fails the case
		# without memory.max); what each case printed is
		ktap=$BUILD/out/test-$v-hz1000-virtual-lazyinit/kselftest/writeback.sh
		rm -f "$ktap"
		IMAGE=${image[$v]} KSFT_DIR=$R/ksft CLOCK=virtual RUN=lazyinit \
			TESTS=writeback.sh "$TOP/scripts/pipeline/test.sh" "$v" \
			>"$R/$v.log" 2>&1
		[ "$(grep -c '^# # ext4' "$ktap")" = 3 ] ||
			die "writeback.sh did not run its three cases on $v ($R/$v.log)"
		echo
		echo "$v:"
		echo
		grep -h '^# # ext4' "$ktap" | sed 's/^# # /    /'
	done
} >"$OUT"
cat "$OUT"
