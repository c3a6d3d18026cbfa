#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare build/linux: a git repository whose first commit is the pristine
# base (tag "base") and whose branch "patched" is the series.
#
# patches/series lists the series in order, one commit a line:
#
#	NNNN-subject.patch [path ...]
#
# The patch (git format-patch) carries the commit message and the changes
# to upstream files; the paths after it are new files kept in this
# repository at their kernel paths, added to that same commit, so that
# every commit builds on its own. New files no line names go into a last
# commit named "overlay", which "make series" refuses to export.
#
# A patch kept in a directory (fixes/NNNN-subject.patch) belongs to the
# series of that name, posted on its own: the tag of that name marks the
# last commit of its series, and each series applies on top of the one
# before it.
#
# An experiment is the series with a patch of bench/ on top, never
# exported: the variant NAME for which bench/NAME.patch exists has that
# patch (window-4ms: the series with a dispatch window of 4 ms); the
# variant core+NAME has bench/core/NAME.patch on the pacing core alone,
# an idea parked as a follow-up (core+lockfree: v2's lock-free path).
# The variant "patch-N" is the series up to its N-th patch (the N-th line
# of patches/series): the kernel a patch's own figures are measured on.
# The variants "fixes" and "core" are the series up to the end of that
# series (its tag): "core" is the kernel each follow-up is compared with.
#
# Usage: tree.sh [vanilla|patched|fixes|core|patch-N|NAME]
set -eu
. "$(dirname "$0")/lib.sh"

VARIANT=${1:-patched}
TARBALL=$("$TOP/scripts/pipeline/fetch.sh")
VERSION=$(cat "$DL/version")
OVERLAY_DIRS="block Documentation include lib mm tools"

g() { git -C "$LINUX" "$@"; }
# The harness commits as itself; git am keeps each patch's author.
export GIT_COMMITTER_NAME="blk-throttle harness" GIT_COMMITTER_EMAIL="harness@localhost"
harness_commit() {
	GIT_AUTHOR_NAME="$GIT_COMMITTER_NAME" GIT_AUTHOR_EMAIL="$GIT_COMMITTER_EMAIL" \
		g commit -q "$@"
}

unpack_base "$TARBALL" "$VERSION"

# Overlay files: tracked and untracked-but-not-ignored files of this repo
# under the kernel's top-level directories.
overlay_files() {
	local d
	for d in $OVERLAY_DIRS; do
		[ -d "$TOP/$d" ] || continue
		git -C "$TOP" ls-files -co --exclude-standard -- "$d"
	done | sort -u
}

# SERIES=NAME stops the series after the series NAME (SERIES=core: the
# core without its follow-ups); the new files of the lines after it are
# left out.
# The stamp says what "patched" was built from; skip the work if unchanged.
stamp=$( (echo "$VERSION ${SERIES:-}"; cat "$TOP/patches/series" 2>/dev/null
	  for f in "$TOP"/patches/*.patch "$TOP"/patches/*/*.patch "$TOP"/patches/*/*/*.patch $(overlay_files | sed "s|^|$TOP/|"); do
		[ -f "$f" ] && sha256sum "$f" && stat -c %a "$f"
	  done) | sha256sum | cut -d' ' -f1)

if [ "$(cat "$LINUX/.git/patched-stamp" 2>/dev/null)" != "$stamp" ] ||
   ! g rev-parse -q --verify patched >/dev/null; then
	say "applying the series onto base"
	g checkout -q -f -B patched base
	g tag -l | grep -vx base | xargs -r git -C "$LINUX" tag -d >/dev/null
	g clean -q -fdx -e /.git
	assigned=$(mktemp)
	if [ -f "$TOP/patches/series" ]; then
		seen=
		while read -r patch paths; do
			case $patch in ''|'#'*) continue ;; esac
			if [ -n "${SERIES:-}" ]; then
				[ "${patch%/*}" != "$SERIES" ] || seen=1
				if [ -n "$seen" ] && [ "${patch%/*}" != "$SERIES" ]; then
					printf '%s\n' $paths >>"$assigned"
					continue
				fi
			fi
			[ -f "$TOP/patches/$patch" ] || die "patches/series names $patch, which does not exist"
			am "$TOP/patches/$patch" "patch $patch does not apply to $(lock package) $VERSION"
			for p in $paths; do
				[ -f "$TOP/$p" ] || die "patches/series: $patch adds $p, which is not in the repository"
				mkdir -p "$LINUX/$(dirname "$p")"
				cp -p "$TOP/$p" "$LINUX/$p"
				g add -f "$p"
				echo "$p" >>"$assigned"
			done
			[ -z "$paths" ] || g commit -q --amend --no-edit --allow-empty --no-verify
			[ "${patch%/*}" = "$patch" ] || g tag -f "${patch%/*}" >/dev/null
		done <"$TOP/patches/series"
		[ -z "${SERIES:-}" ] || [ -n "$seen" ] ||
			die "SERIES=$SERIES: patches/series has no series of that name"
	fi
	rest=$(overlay_files | grep -vxF -f "$assigned" || true)
	rm -f "$assigned"
	if [ -n "$rest" ]; then
		for p in $rest; do
			mkdir -p "$LINUX/$(dirname "$p")"
			cp -p "$TOP/$p" "$LINUX/$p"
			g add -f "$p"
		done
		harness_commit -m "overlay: files not yet assigned to a patch" \
			-m "$(echo "$rest" | sed 's/^/  /')"
	fi
	echo "$stamp" >"$LINUX/.git/patched-stamp"
	say "series: $(g rev-list --count base..patched) commit(s) on base"
fi

want=patched
case $VARIANT in
vanilla) want=base ;;
patched) ;;
patch-[1-9]*)
	want=$(g rev-list --reverse base..patched | sed -n "${VARIANT#patch-}p")
	[ -n "$want" ] || die "the series has no patch ${VARIANT#patch-}"
	;;
fixes|core)
	g rev-parse -q --verify "refs/tags/$VARIANT" >/dev/null ||
		die "patches/series has no series $VARIANT"
	want=$VARIANT
	;;
*)
	on=patched xpatch=$TOP/bench/$VARIANT.patch
	case $VARIANT in core+*) on=core xpatch=$TOP/bench/core/${VARIANT#core+}.patch ;; esac
	[ -f "$xpatch" ] ||
		die "usage: tree.sh [vanilla|patched|fixes|core|patch-N|core+NAME|NAME] (bench/NAME.patch, bench/core/NAME.patch)"
	want=$VARIANT
	xstamp=$(cat "$LINUX/.git/patched-stamp" "$xpatch" | sha256sum | cut -d' ' -f1)
	if [ "$(cat "$LINUX/.git/$VARIANT-stamp" 2>/dev/null)" != "$xstamp" ] ||
	   ! g rev-parse -q --verify "$VARIANT" >/dev/null; then
		g checkout -q -f -B "$VARIANT" "$on"
		g clean -q -fdx -e /.git
		am "$xpatch" "bench/${xpatch##*/} does not apply on $on"
		echo "$xstamp" >"$LINUX/.git/$VARIANT-stamp"
	fi
	;;
esac
if [ "$(g rev-parse HEAD)" != "$(g rev-parse "$want^{commit}")" ]; then
	g checkout -q -f "$want"
	g clean -q -fdx -e /.git
fi
say "tree: $VARIANT at $(g log -1 --format='%h %s')"
