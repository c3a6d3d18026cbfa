#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run blktests' throtl group, the peer suite blk-throttle patches are
# judged by upstream, on vanilla, the core and the whole series, one
# after the other, and write results/blktests.md: one row a test, one
# column a kernel, from the guests' output kept in results/blktests/ (a
# run of some kernels replaces their logs there and keeps the others').
# The group runs with our own cases added, blktests/*.patch (throtl/009
# and after: the pacing the core brings, which slices miss), applied
# with git am on a copy of the checkout: they must fail on vanilla and
# pass on the others, and upstream's cases pass on all.
#
#   BLKTESTS=DIR blktests.sh [VARIANT ...]   (default: vanilla core patched)
#
# BLKTESTS_HZ: the tick rates to run each kernel at (default "100 1000":
# slices were counted in jiffies, and the group's cases in seconds).
#
# DIR is a checkout of https://github.com/linux-blktests/blktests; this
# project does not fetch it (make test cannot depend on the network), and
# the table names the commit it ran. The kernels are the guest's config
# plus kconfig/blktests.config (built-in scsi_debug, which the group's
# group_requires() checks for), in objects of their own, and the guest
# gets the module index (modules.builtin) an installed kernel has. The
# group runs unmodified, on null_blk (THROTL_BLKDEV_TYPES=nullb): built
# in, scsi_debug's dev_size_mb cannot be written, and the group's
# scsi_debug device needs it, so the "sdebug" cases want a modular
# scsi_debug, which this guest (no module tree) does not have. The guest
# runs on the host's clock with two vCPUs, as on a machine; the group's
# tests time their IO in whole seconds.
set -u
. "$(dirname "$0")/lib.sh"

BLKTESTS=${BLKTESTS:?set BLKTESTS to a blktests checkout (git clone https://github.com/linux-blktests/blktests)}
[ -x "$BLKTESTS/check" ] && [ -d "$BLKTESTS/tests/throtl" ] ||
	die "$BLKTESTS is not a blktests checkout"
VARIANTS=${*:-vanilla core patched}
export EXTRA_CONFIG=$TOP/kconfig/blktests.config
# throtl/006 makes ext4, inode tables and journal written out, on a
# memory-backed null_blk of the default 250 GiB: about 5 GiB, more than
# the guest's usual 4G (it panics, "System is deadlocked on memory")
export GUEST_MEM=${GUEST_MEM:-12G}
rev=$(git -C "$BLKTESTS" log -1 --format='%h (%cs)' 2>/dev/null || echo "unknown commit")

BLKTESTS_HZ=${BLKTESTS_HZ:-100 1000}
runs=
for hz in $BLKTESTS_HZ; do
	for v in $VARIANTS; do
		"$TOP/scripts/pipeline/build.sh" "$v" "$hz" >/dev/null || die "cannot build $v at HZ=$hz"
		runs="$runs $v-hz$hz"
	done
done
rc=0
for run in $runs; do
	v=${run%-hz*} hz=${run##*-hz}
	out=$BUILD/out/blktests-$run
	rm -rf "$out"
	mkdir -p "$out"
	# the guest writes its results beside the suite, in its one
	# writable directory; it gets the module index an installed kernel
	# has, so that modprobe knows ext4 and the others are built in (the
	# group's throtl/006 asks modprobe for ext4)
	cp -a "$BLKTESTS" "$out/blktests"
	# our cases, a series for blktests of its own (blktests/*.patch)
	GIT_COMMITTER_NAME=harness GIT_COMMITTER_EMAIL=harness@localhost \
		git -C "$out/blktests" am -q "$TOP"/blktests/*.patch ||
		die "blktests/*.patch do not apply to $BLKTESTS"
	cp "$BUILD/obj/hz$hz-blktests/modules.builtin" \
		"$BUILD/obj/hz$hz-blktests/modules.builtin.modinfo" "$out/"
	cat >"$out/run.sh" <<-EOF
	m=/lib/modules/\$(uname -r)
	mount -t tmpfs none /lib/modules && mkdir "\$m" &&
		cp "$out"/modules.builtin* "\$m" && : >"\$m/modules.order" &&
		depmod || exit 1
	cd "$out/blktests" || exit 1
	# the table below judges the cases (on vanilla ours must fail); the
	# guest's status says only whether the group ran
	THROTL_BLKDEV_TYPES=nullb ./check -o "$out/results" throtl
	echo "check exited \$?"
	EOF
	BOOT_TIMEOUT=1800 "$TOP/scripts/pipeline/boot.sh" "$IMAGES/$v-hz$hz-blktests/bzImage" "$out" \
		bash "$out/run.sh" ||
		rc=1
done

mkdir -p "$TOP/results/blktests"
for v in $runs; do
	cp "$BUILD/out/blktests-$v/guest.log" "$TOP/results/blktests/$v.log"
done
# every kernel with a log, by tick rate, then vanilla, core, patched
runs=$(cd "$TOP/results/blktests" && ls -- *.log | sed 's/\.log$//' |
	awk -F-hz '{ o = $1 == "vanilla" ? 0 : $1 == "core" ? 1 :
		     $1 == "patched" ? 2 : 3; print $2, o, $0 }' |
	sort -n -k1,1 -k2,2 | awk '{ print $3 }' | tr '\n' ' ')

# "throtl/001 (nullb) (basic functionality)   [passed]" -> one row a test
{
	echo "# blktests' throtl group"
	echo
	echo "\`scripts/pipeline/blktests.sh\` ($(date -u +%Y-%m-%d)), blktests $rev, on"
	echo "$(lock package) $(cat "$DL/version"), null_blk, the host's clock"
	echo "(QEMU TCG, two vCPUs). Rerun: \`make blktests BLKTESTS=DIR\`."
	echo "This run:$(printf ' %s' $VARIANTS) at HZ=${BLKTESTS_HZ// /, };"
	echo "any other column is from the log of an earlier run (\`git log"
	echo "results/blktests/\`). Output: blktests/KERNEL-hzHZ.log; consoles"
	echo "and blktests' own results in build/out/blktests-KERNEL-hzHZ/."
	echo
	python3 - "$TOP/results/blktests" $runs <<-'PY'
	import re, sys
	out, variants = sys.argv[1], sys.argv[2:]
	line = re.compile(r'^(throtl/\d+ \([^)]*\) \([^)]*\)) +\[([a-z ]+)\]')
	res = {}
	for v in variants:
	    with open('%s/%s.log' % (out, v), errors='replace') as f:
	        for l in f:
	            m = line.match(re.sub(r'\x1b\[[0-9;]*[A-Za-z]|\r', '', l))
	            if m:
	                res.setdefault(m.group(1), {})[v] = m.group(2)
	print('| test | %s |' % ' | '.join(variants))
	print('|---|%s' % ('---|' * len(variants)))
	for t, r in res.items():
	    print('| %s | %s |' % (t, ' | '.join(r.get(v, '-') for v in variants)))
	PY
} >"$BUILD/out/blktests.md"
cat "$BUILD/out/blktests.md"
cp "$BUILD/out/blktests.md" "$TOP/results/blktests.md"
# upstream's cases (up to throtl/008) pass everywhere; ours fail on
# vanilla and pass on the others
awk -F' [|] ' -v runs="$runs" '
	BEGIN { n = split(runs, r, " ") }
	/^[|] throtl\// {
		num = substr($1, 10, 3) + 0
		for (i = 1; i <= n; i++) {
			want = (num > 8 && r[i] ~ /^vanilla-/) ? "failed" : "passed"
			got = $(i + 1); sub(/ [|]$/, "", got)
			if (got != want) {
				print "blktests: " substr($1, 3) " on " r[i] ": " got ", not " want
				bad = 1
			}
		}
	}
	END { exit bad }' "$BUILD/out/blktests.md" || rc=1
exit $rc
