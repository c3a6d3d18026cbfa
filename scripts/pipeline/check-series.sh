#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the series from build/linux (base..patched) and check each
# patch with the kernel's scripts/checkpatch.pl --strict. Prints a table;
# exits non-zero if any patch has an error or a warning, if the series
# still has files no patch owns ("overlay" commit), or if an experiment
# patch of bench/ no longer applies on it.
#
#   check-series.sh [OUTDIR]   (default build/series)
set -u
. "$(dirname "$0")/lib.sh"

OUT=${1:-$BUILD/series}
"$TOP/scripts/pipeline/tree.sh" patched >/dev/null || exit 1
if git -C "$LINUX" log --format=%s base..patched | grep -q '^overlay:'; then
	die "new files not yet assigned to a patch in patches/series: $(git -C "$LINUX" show --format= --name-only patched | tr '\n' ' ')"
fi
rm -rf "$OUT"
git -C "$LINUX" format-patch -q --no-signature -o "$OUT" base..patched

fail=0
printf '%-70s %6s %8s %6s\n' patch errors warnings checks
for p in "$OUT"/*.patch; do
	# The base is a release tarball without upstream history, so Fixes:
	# ids cannot be looked up here (UNKNOWN_COMMIT_ID); they are checked
	# against upstream by hand.
	# FILE_PATH_CHANGES asks whether MAINTAINERS covers an added file:
	# answered for every file below, from the tree's MAINTAINERS
	res=$(cd "$LINUX" && scripts/checkpatch.pl --strict --no-summary --terse \
		--show-types --ignore UNKNOWN_COMMIT_ID,FILE_PATH_CHANGES "$p" 2>&1)
	e=$(grep -c ': ERROR:' <<<"$res")
	w=$(grep -c ': WARNING:' <<<"$res")
	c=$(grep -c ': CHECK:' <<<"$res")
	printf '%-70s %6d %8d %6d\n' "$(basename "$p")" "$e" "$w" "$c"
	[ $((e + w)) = 0 ] || { grep -E ': (ERROR|WARNING):' <<<"$res" | sed 's/^/    /'; fail=1; }
	[ "$c" = 0 ] || grep ': CHECK:' <<<"$res" | sed 's/^/    /'
done
[ $fail = 0 ] || die "checkpatch --strict found errors or warnings (patches in $OUT)"

# Every file the series adds is in a MAINTAINERS section of its own (an
# F: pattern that names it or its directory), not only THE REST's.
unowned=
for f in $(git -C "$LINUX" diff --name-only --diff-filter=A base..patched); do
	git -C "$LINUX" show patched:MAINTAINERS | awk -v f="$f" '
		/^F:\t/ { p = $2; if (p == f || (p ~ /\/$/ && index(f, p) == 1)) ok = 1 }
		END { exit !ok }' || unowned="$unowned $f"
done
[ -z "$unowned" ] || die "files the series adds that no MAINTAINERS section names:$unowned"
echo "MAINTAINERS: names every file the series adds"

# MAINTAINERS stays in the order scripts/parse-maintainers.pl keeps: the
# series may not add a line it would move.
disorder() {
	git -C "$LINUX" show "$1:MAINTAINERS" >"$OUT/M.$1"
	(cd "$LINUX" && perl scripts/parse-maintainers.pl --input="$OUT/M.$1" \
		--output="$OUT/M.$1.sorted" >/dev/null 2>&1)
	diff "$OUT/M.$1" "$OUT/M.$1.sorted" | grep -c '^[<>]'
}
[ "$(disorder base)" = "$(disorder patched)" ] ||
	die "MAINTAINERS: the series adds lines out of parse-maintainers.pl order"
rm -f "$OUT"/M.*
echo "MAINTAINERS: in parse-maintainers.pl order"

# Every experiment of bench/ is the series with a patch on top, and of
# bench/core/ the pacing core alone (tree.sh): each must still apply,
# or its figures in results/ could not be rerun.
# stale_on REV DIR: the patches of DIR that do not apply on REV
stale_on() {
	local idx=$OUT/index.$1 p
	GIT_INDEX_FILE=$idx git -C "$LINUX" read-tree "$1"
	for p in "$2"/*.patch; do
		GIT_INDEX_FILE=$idx git -C "$LINUX" apply --cached --check "$p" \
			2>/dev/null || printf ' %s' "${p#"$TOP"/bench/}"
	done
	rm -f "$idx"
}
stale=$(stale_on patched "$TOP/bench"; stale_on core "$TOP/bench/core")
[ -z "$stale" ] || die "bench/ patches that no longer apply on the series:$stale"
echo "bench/: $(ls "$TOP"/bench/*.patch "$TOP"/bench/core/*.patch | wc -l) experiment patches apply on the series or its core"
say "checkpatch --strict: clean ($OUT)"
