#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bisectability: build the kernel with W=1 at the base and at every patch
# of the series, in a worktree of its own (build/each), and report the
# warnings each patch adds to those of the base. Fails if a build fails or
# a patch adds a warning. Slow (the first W=1 build is a full one), so it
# is not part of "make test".
#
#   build-each.sh [HZ]
set -u
. "$(dirname "$0")/lib.sh"

HZ=${1:-${HZ:-1000}}
WT=$BUILD/each
OBJ=$BUILD/obj/each-w1

# the patched config of build-kernel.sh; it is put back before every
# build, or a symbol that a later patch adds (the KUnit test's) would be
# dropped while building the commits before it
"$TOP/scripts/build-kernel.sh" patched "$HZ" >/dev/null || exit 1
CONFIG=$IMAGES/patched-hz$HZ/config
mkdir -p "$OBJ"

if [ ! -d "$WT/.git" ] && [ ! -f "$WT/.git" ]; then
	git -C "$LINUX" worktree add -q --detach "$WT" base ||
		die "cannot create the worktree $WT"
fi

# warnings without line and column numbers, so that moved code compares
warnings() {
	grep -E 'warning:' "$1" | sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort -u
}

fail=0
printf '%-70s %6s %6s %s\n' commit build secs "new W=1 warnings"
for c in base $(git -C "$LINUX" rev-list --reverse base..patched); do
	git -C "$WT" checkout -q --detach "$c" || die "cannot check out $c"
	subj=$(git -C "$WT" log -1 --format=%s)
	log=$LOGS/each-$(git -C "$WT" rev-parse --short HEAD).log
	start=$(date +%s)
	cmp -s "$CONFIG" "$OBJ/.config" || cp "$CONFIG" "$OBJ/.config"
	if make -C "$WT" O="$OBJ" -j"$NPROC" CC="ccache gcc" W=1 \
		KBUILD_BUILD_TIMESTAMP="2026-01-01" bzImage >"$log" 2>&1; then
		ok=ok
	else
		ok=FAILED
		fail=1
	fi
	secs=$(( $(date +%s) - start ))
	warnings "$log" >"$log.w"
	if [ "$c" = base ]; then
		cp "$log.w" "$BUILD/each-base.w"
		new=-
	else
		new=$(comm -13 "$BUILD/each-base.w" "$log.w" | wc -l)
		[ "$new" = 0 ] || fail=1
	fi
	printf '%-70s %6s %6s %s\n' "${subj:0:70}" "$ok" "$secs" "$new"
	if [ "$c" != base ] && [ "$new" != 0 ]; then
		comm -13 "$BUILD/each-base.w" "$log.w" | sed 's/^/    /'
	fi
	[ "$ok" = ok ] || tail -n 20 "$log" | sed 's/^/    /'
done
[ $fail = 0 ] || die "a patch does not build, or adds W=1 warnings (logs in $LOGS/each-*.log)"
say "every patch builds with W=1 and adds no warning"
