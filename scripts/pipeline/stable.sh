#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fixes for stable on Debian stable's kernel, Linux 6.12 (an LTS):
# fetch linux-source-6.12 as stable.lock pins it (fetch.sh with
# LOCK=stable.lock, into build/dl-6.12), unpack it into build/linux-6.12,
# a git repository whose first commit is the pristine base (tag "base",
# as tree.sh does), and git am onto it, on branch "stable", each
# patch of patches/fixes/ whose message has "Cc: stable", or in its place
# its backport patches/stable-6.12/NAME (same name) if there is one. A
# patch that does not apply fails the run.
#
# Then build that tree (build.sh stable-6.12), boot it and run the
# cgroup v1 cases of io_max_interface.sh there (test.sh,
# BLK_THROTTLE_IO_MAX_V1_ONLY=1: 6.12 does not have the io.max fix that
# is not for stable), among them blkio.throttle.read_iops_device set to
# 2^32, on which an unpatched 6.12 divides by zero. The kselftests are
# this repository's, installed with the 6.12 tree's kselftest runner.
# The patches applied and each case's result go to results/stable-6.12.md.
#
#   stable.sh [HZ]    (default 1000)
#
# STABLE_NO_BUILD=1 stops once the patches are applied: no build, no
# guest, no results. NO_BUILD=1 boots the image already built (lib.sh's
# kernel_image).
set -eu
. "$(dirname "$0")/lib.sh"

HZ=${1:-${HZ:-1000}}
LOCK=stable.lock
LINE=$(lock package)
LINE=${LINE#linux-source-}
VARIANT=stable-$LINE
stable_tree "$VARIANT"
BACKPORTS=patches/$VARIANT
RESULT=$TOP/results/$VARIANT.md

TARBALL=$(LOCK=$LOCK "$TOP/scripts/pipeline/fetch.sh")
VERSION=$(cat "$(dirname "$TARBALL")/version")

g() { git -C "$LINUX" "$@"; }
# The harness commits as itself; git am keeps each patch's author.
export GIT_COMMITTER_NAME="blk-throttle harness" GIT_COMMITTER_EMAIL="harness@localhost"

unpack_base "$TARBALL" "$VERSION"

# A backport stands in for a patch of patches/fixes/ of the same name
for b in "$TOP/$BACKPORTS"/*.patch; do
	[ -f "$b" ] || continue
	[ -f "$TOP/patches/fixes/${b##*/}" ] ||
		die "$BACKPORTS/${b##*/} is the backport of no patch of patches/fixes/"
done

# The patches for stable, in the order of their names: each one, or its
# backport
picked=()
for p in "$TOP"/patches/fixes/*.patch; do
	sed '/^---$/q' "$p" | grep -qiE '^Cc: *([^<]*<)?stable@vger\.kernel\.org' || continue
	name=${p##*/}
	if [ -f "$TOP/$BACKPORTS/$name" ]; then
		picked+=("$BACKPORTS/$name")
	else
		picked+=("patches/fixes/$name")
	fi
done
[ ${#picked[@]} -gt 0 ] || die "no patch of patches/fixes/ has Cc: stable"

# The stamp says what "stable" was made from; unchanged, it is left as it
# is (a checkout would touch the files the patches change, and make
# would rebuild them)
stamp=$( (echo "$VERSION"; cd "$TOP" && sha256sum "${picked[@]}") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$LINUX/.git/stable-stamp" 2>/dev/null)" != "$stamp" ] ||
   [ "$(g rev-parse -q --verify HEAD)" != "$(g rev-parse -q --verify stable)" ]; then
	say "applying ${#picked[@]} patch(es) for stable onto $(lock package) $VERSION"
	g checkout -q -f -B stable base
	g clean -q -fdx -e /.git
	for p in "${picked[@]}"; do
		am "$TOP/$p" "$p does not apply to $(lock package) $VERSION: write its backport, $BACKPORTS/${p##*/}" \
			--committer-date-is-author-date
	done
	echo "$stamp" >"$LINUX/.git/stable-stamp"
fi
rows=
i=${#picked[@]}
for p in "${picked[@]}"; do
	case $p in
	"$BACKPORTS"/*) how="backport, $BACKPORTS/" ;;
	*) how="as is" ;;
	esac
	i=$((i - 1))
	commit=$(g log -1 --format=%h "stable~$i")
	say "applied ${p##*/} ($how): $commit"
	rows+="| ${p##*/} | $how | $commit |"$'\n'
done

if [ "${STABLE_NO_BUILD:-0}" = 1 ]; then
	say "STABLE_NO_BUILD=1: $LINUX is at $(g log -1 --format='%h %s'), not built"
	exit 0
fi

image=$(kernel_image "$VARIANT" "$HZ")

# the kselftests: this repository's blk-throttle directory, in the 6.12
# tree (untracked) beside that tree's runner and KTAP helpers
git -C "$TOP" ls-files -co --exclude-standard -- tools/testing/selftests/blk-throttle |
	while read -r f; do
		mkdir -p "$LINUX/$(dirname "$f")"
		cp -p "$TOP/$f" "$LINUX/$f"
	done
KSFT=$BUILD/kselftest-$LINE
install_kselftests "$KSFT"

say "booting $VARIANT: io_max_interface.sh, its cgroup v1 cases"
rc=0
IMAGE=$image KSFT_DIR=$KSFT TESTS=io_max_interface.sh BLK_THROTTLE_IO_MAX_V1_ONLY=1 \
	"$TOP/scripts/pipeline/test.sh" "$VARIANT" "$HZ" || rc=$?
# test.sh's results directory
flavour=hz$HZ
[ "${DEBUG:-0}" = 1 ] && flavour=$flavour-debug
[ "${CLOCK:-host}" = virtual ] && flavour=$flavour-virtual
OUT=$BUILD/out/test-$VARIANT-$flavour
log=$OUT/kselftest/io_max_interface.sh

cases=$(sed -nE 's/^# (ok|not ok) [0-9]+ (.*)$/| \2 | \1 |/p' "$log" 2>/dev/null || true)
n=$(printf '%s' "$cases" | grep -c '| ok |$' || true)
splat=$(grep -m1 -E 'divide error|Oops|BUG:|WARNING:|Kernel panic' "$OUT/console.log" 2>/dev/null || true)
if [ "$rc" = 0 ]; then
	verdict="PASS: $n of 9 cgroup v1 cases passed, no splat"
else
	verdict="FAIL: $n of 9 cgroup v1 cases passed${splat:+; the console: \`$splat\`} (logs: ${OUT#$TOP/})"
fi

{
	echo "# The fixes for stable on Linux $LINE"
	echo
	echo "\`scripts/pipeline/stable.sh\` (\`make $VARIANT\`): Debian $(lock package) $VERSION"
	echo "(\`stable.lock\`), the patches of \`patches/fixes/\` tagged Cc: stable applied"
	echo "with git am, built at HZ=$HZ and booted ($(cat "$OUT/accel" 2>/dev/null || echo '?')),"
	echo "\`io_max_interface.sh\`'s cgroup v1 cases run (\`BLK_THROTTLE_IO_MAX_V1_ONLY=1\`),"
	echo "$(date -u +%Y-%m-%d)."
	echo
	echo "| patch | applied | commit |"
	echo "|---|---|---|"
	printf '%s' "$rows"
	echo
	echo "| cgroup v1 case | result |"
	echo "|---|---|"
	[ -z "$cases" ] || printf '%s\n' "$cases"
	echo
	echo "$verdict"
} >"$RESULT"
say "$verdict (${RESULT#$TOP/})"
[ "$rc" = 0 ] || die "$VARIANT: the cgroup v1 cases failed (${RESULT#$TOP/})"
