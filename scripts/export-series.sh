#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the series for posting: git format-patch files with a cover
# letter into OUTDIR (default out/series). The cover letter is
# series/cover-letter.txt with the benchmark tables generated from
# results/ and the base it applies to. Before writing anything the series
# must be clean under checkpatch --strict (check-series.sh); after, it is
# applied with git am to a pristine checkout of the base and must give
# exactly the tree that was built and tested. get_maintainer.pl names the
# recipients.
#
#   export-series.sh [OUTDIR]     (DRY_RUN=1: allow a placeholder identity)
set -u
. "$(dirname "$0")/lib.sh"

OUT=${1:-$TOP/out/series}
# The patches in patches/ are signed with a placeholder; the exported
# series carries the identity of whoever exports it (git config).
PLACEHOLDER="Blk Throttle Dev <dev@blk-throttle.invalid>"
name=$(git -C "$TOP" config user.name) && email=$(git -C "$TOP" config user.email) ||
	die "set git config user.name and user.email: the series is posted as you"
me="$name <$email>"
# A Signed-off-by certifies the Developer's Certificate of Origin: it
# needs a person who can be reached. DRY_RUN=1 exports anyway, to look.
# The domains RFC 2606 reserves never receive mail.
domain=${email##*@}
if [ "$me" = "$PLACEHOLDER" ] || [[ "$email" != *@*.* ]] ||
   [[ ".$domain" =~ \.(invalid|example|test|localhost|example\.(com|net|org))$ ]]; then
	[ "${DRY_RUN:-0}" = 1 ] ||
		die "\"$me\" cannot sign off a patch: set git config user.name and user.email to your own (or DRY_RUN=1 to look at the export)"
	warn "dry run: the export is signed by \"$me\"; do not post it"
fi
checks=$("$TOP/scripts/check-series.sh" "$BUILD/series" 2>&1) || {
	echo "$checks" >&2
	die "the series is not checkpatch-clean"
}

n=$(git -C "$LINUX" rev-list --count base..patched)
subject=$(head -n 1 "$TOP/series/cover-letter.txt")
tables=$(python3 "$TOP/scripts/bench-table.py" \
		--scenarios=seed000,rbps4k,readers16 "$TOP/results/bench.json"
	 if [ -f "$TOP/results/hz250/bench.json" ]; then
		echo
		python3 "$TOP/scripts/bench-table.py" --scenarios=seed000 \
			"$TOP/results/hz250/bench.json" | sed '/^rate:/,$d'
	 fi
	 ra=$(cd "$TOP/bench" && ls ra*.fio | sed 's/\.fio$//' | paste -sd,)
	 echo
	 echo "Buffered sequential 4 KiB readers on ext4 (patches 10-11):"
	 echo
	 python3 "$TOP/scripts/bench-table.py" --rates --scenarios="$ra" \
		"$TOP/results/bench.json" | sed 1,2d)
base="The series applies to Linux $(make -s -C "$LINUX" kernelversion) as shipped in Debian's
$(lock package) $(cat "$DL/version"), source tarball sha256
$(lock tarball_sha256)."

rm -rf "$OUT"
mkdir -p "$OUT"
git -C "$LINUX" -c user.name="$name" -c user.email="$email" format-patch \
	-q --no-signature --cover-letter --subject-prefix=PATCH -o "$OUT" \
	base..patched
# your name on every From: and Signed-off-by: the placeholder held
python3 - "$PLACEHOLDER" "$me" "$OUT"/0*.patch <<'PY'
import sys
old, new = sys.argv[1], sys.argv[2]
for path in sys.argv[3:]:
    text = open(path).read()
    for tag in ("From: ", "Signed-off-by: "):
        text = text.replace("\n" + tag + old + "\n", "\n" + tag + new + "\n")
    open(path, "w").write(text)
PY
! grep -l "$PLACEHOLDER" "$OUT"/0*.patch >/dev/null ||
	die "the placeholder identity is still in the export"
cover=$OUT/0000-cover-letter.patch
mapfile -t patches < <(ls "$OUT"/0*.patch | grep -v 0000-cover-letter)
python3 - "$cover" "$TOP/series/cover-letter.txt" "$tables" "$base" <<'PY'
import sys
path, tmpl, tables, base = sys.argv[1:5]
text = open(path).read()
lines = open(tmpl).read().split("\n")
subject, body = lines[0], "\n".join(lines[1:]).strip("\n")
body = body.replace("@@TABLES@@", "\n".join(
    ("  " + l).rstrip() for l in tables.split("\n")))
body = body.replace("@@BASE@@", base)
text = text.replace("*** SUBJECT HERE ***", subject)
text = text.replace("*** BLURB HERE ***", body)
open(path, "w").write(text)
PY

# get_maintainer.pl: who gets it
(cd "$LINUX" && scripts/get_maintainer.pl --no-git --no-git-fallback \
	--no-rolestats "${patches[@]}" 2>/dev/null) |
	sort -u >"$OUT/recipients.txt"
[ -s "$OUT/recipients.txt" ] || die "get_maintainer.pl named no one"

# git am on a pristine checkout of the base gives the tested tree
wt=$BUILD/am-check
git -C "$LINUX" worktree remove --force "$wt" 2>/dev/null
rm -rf "$wt"
git -C "$LINUX" worktree add -q --detach "$wt" base ||
	die "cannot check out the base in $wt"
if ! git -C "$wt" -c user.name=check -c user.email=check@localhost \
	am -q "${patches[@]}" >"$LOGS/am-check.log" 2>&1; then
	cat "$LOGS/am-check.log" >&2
	die "the exported series does not apply with git am on the base"
fi
[ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$(git -C "$LINUX" rev-parse 'patched^{tree}')" ] ||
	die "git am of the export does not give the tree that was tested"
git -C "$LINUX" worktree remove --force "$wt"

echo
echo "checkpatch --strict, per patch:"
echo "$checks" | grep -v '^==>'
echo
echo "git am on $(lock package) $(cat "$DL/version"): applies, same tree as tested"
echo "from and signed off by: $me"
echo "recipients (get_maintainer.pl):"
sed 's/^/  /' "$OUT/recipients.txt"
say "series of $n patches and a cover letter in $OUT"
