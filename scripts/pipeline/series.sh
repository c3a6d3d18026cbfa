#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the series for posting: git format-patch files with a cover
# letter into OUTDIR/NAME (default out/series/NAME) for each series that
# patches/series names, in order, but prereq/: patches posted upstream by
# others, which the series after them apply on and name in their cover
# letter (@@PREREQ@@), but which are never exported. A cover letter is
# series/NAME.txt with the benchmark tables generated from results/, what
# each patch builds with (@@BUILDS@@, from the robot's cells on record
# for exactly these commits' trees: robot_tree, robot-claim.py) and the base it
# applies to. Before writing anything the series
# must be clean under checkpatch --strict (check-series.sh); after, it is
# applied with git am to a pristine checkout of the base and must give
# exactly the tree that was built and tested. get_maintainer.pl names the
# recipients.
#
#   series.sh [OUTDIR]     (DRY_RUN=1: allow a placeholder identity)
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
checks=$("$TOP/scripts/pipeline/check-series.sh" "$BUILD/series" 2>&1) || {
	echo "$checks" >&2
	die "the series is not checkpatch-clean"
}

# the tables must be of the tree being exported (bench.sh records it)
tree=$(kernel_tree patched)
of_tree() {
	[ -f "$1" ] && [ "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1])).get("patched_tree"))' "$1")" = "$tree" ]
}
of_tree "$TOP/results/bench.json" ||
	die "results/bench.json is not of this series: run make bench first"
# the core's cover letter: the core's figures beside 7.3's
tables=$(python3 "$TOP/scripts/analysis/bench-table.py" --kernel=core \
		--scenarios=seed000,rbps4k,readers16 "$TOP/results/bench.json"
	 if of_tree "$TOP/results/hz250/bench.json"; then
		echo
		python3 "$TOP/scripts/analysis/bench-table.py" --kernel=core \
			--scenarios=seed000 "$TOP/results/hz250/bench.json" |
			sed '/^rate:/,$d'
	 fi
	 echo
	 echo "What pacing costs: 4 KiB direct reads at high rates and in 100 groups:"
	 echo
	 python3 "$TOP/scripts/analysis/bench-table.py" --costs --kernel=core \
		--scenarios=riops2000-psync,riops20000-psync,rbps1g-psync,groups100,qd32-highlimit \
		"$TOP/results/bench.json" | sed 1,2d)
base="Linux $(make -s -C "$LINUX" kernelversion) as shipped in Debian's $(lock package)
$(cat "$DL/version"), source tarball sha256
$(lock tarball_sha256)"

# The series, each in OUT/NAME with its cover letter series/NAME.txt
# (first line the subject, second "Prefix: PATCH vN"); each applies on
# top of the one before it.
mapfile -t groups < <(sed -n 's|^\([A-Za-z0-9_/-]*\)/[^/ ]*\.patch.*|\1|p' "$TOP/patches/series" | uniq)
[ ${#groups[@]} -gt 0 ] || die "patches/series names no series (fixes/..., core/...)"
rm -rf "$OUT" "$BUILD/prereq"
prev=base
prevsubj=
# as_me PATCH... - your name on every From: and Signed-off-by: that the
# placeholder held
as_me() {
	python3 - "$PLACEHOLDER" "$me" "$@" <<-'PY'
	import sys
	old, new = sys.argv[1], sys.argv[2]
	for path in sys.argv[3:]:
	    text = open(path).read()
	    for tag in ("From: ", "Signed-off-by: "):
	        text = text.replace("\n" + tag + old + "\n", "\n" + tag + new + "\n")
	    open(path, "w").write(text)
	PY
	! grep -l "$PLACEHOLDER" "$@" >/dev/null ||
		die "the placeholder identity is still in the export"
}

prereq=
all=()
for grp in "${groups[@]}"; do
	if [ "$grp" = prereq ]; then
		# applied, named, never exported
		prereq=$(git -C "$LINUX" log --reverse --format='  "%s"' base..prereq)
		git -C "$LINUX" format-patch -q --no-signature -o "$BUILD/prereq" \
			base..prereq
		all+=("$BUILD"/prereq/0*.patch)
		prev=prereq
		continue
	fi
	tmpl=$TOP/series/$grp.txt
	[ -f "$tmpl" ] || die "no cover letter for the $grp series: $tmpl"
	subject=$(sed -n 1p "$tmpl")
	prefix=$(sed -n 's/^Prefix: //p' "$tmpl" | head -n 1)
	o=$OUT/$grp
	mkdir -p "$o"
	git -C "$LINUX" -c user.name="$name" -c user.email="$email" format-patch \
		-q --no-signature --cover-letter --subject-prefix="${prefix:-PATCH}" \
		-o "$o" "$prev..$grp"
	as_me "$o"/0*.patch
	if [ "$prev" = base ] || [ "$prev" = prereq ]; then
		applies="The series applies to $base."
	else
		applies="The series applies on top of \"$prevsubj\", posted with it, on
$base."
	fi
	builds=$(python3 "$TOP/scripts/analysis/robot-claim.py" \
		"$TOP/results/robot-cells.tsv" \
		$(for c in $(git -C "$LINUX" rev-list "$prev..$grp"); do robot_tree "$c"; done)) || {
		[ "${DRY_RUN:-0}" = 1 ] ||
			die "$grp: the robot's cells do not cover these commits: run make robot"
		warn "$grp: no robot claim; the cover letter says so"
		builds="[NOT BUILT: run make robot]"
	}
	python3 - "$o/0000-cover-letter.patch" "$tmpl" "$tables" "$applies" "$prereq" "$builds" <<-'PY'
	import sys
	path, tmpl, tables, base, prereq, builds = sys.argv[1:7]
	text = open(path).read()
	lines = open(tmpl).read().split("\n")
	body = "\n".join(l for l in lines[1:] if not l.startswith("Prefix: "))
	body = body.strip("\n").replace("@@TABLES@@", "\n".join(
	    ("  " + l).rstrip() for l in tables.split("\n")))
	body = body.replace("@@BASE@@", base).replace("@@PREREQ@@", prereq)
	body = body.replace("@@BUILDS@@", builds)
	text = text.replace("*** SUBJECT HERE ***", lines[0])
	text = text.replace("*** BLURB HERE ***", body)
	open(path, "w").write(text)
	PY
	mapfile -t patches < <(ls "$o"/0*.patch | grep -v 0000-cover-letter)
	all+=("${patches[@]}")
	# get_maintainer.pl: who gets it
	(cd "$LINUX" && scripts/get_maintainer.pl --no-git --no-git-fallback \
		--no-rolestats "${patches[@]}" 2>/dev/null) |
		sort -u >"$o/recipients.txt"
	[ -s "$o/recipients.txt" ] || die "get_maintainer.pl named no one for $grp"
	prev=$grp
	prevsubj=$subject
done

# git am of the series, in order, on a pristine checkout of the base
# gives the tested tree
wt=$BUILD/am-check
git -C "$LINUX" worktree remove --force "$wt" 2>/dev/null
rm -rf "$wt"
git -C "$LINUX" worktree add -q --detach "$wt" base ||
	die "cannot check out the base in $wt"
if ! git -C "$wt" -c user.name=check -c user.email=check@localhost \
	am -q "${all[@]}" >"$LOGS/am-check.log" 2>&1; then
	cat "$LOGS/am-check.log" >&2
	die "the exported series do not apply with git am on the base"
fi
[ "$(git -C "$wt" rev-parse 'HEAD^{tree}')" = "$(git -C "$LINUX" rev-parse 'patched^{tree}')" ] ||
	die "git am of the export does not give the tree that was tested"
git -C "$LINUX" worktree remove --force "$wt"

# the blktests cases: a series for blktests, posted on its own
rm -rf "$OUT/blktests"
mkdir -p "$OUT/blktests"
cp "$TOP"/blktests/*.patch "$OUT/blktests/"
as_me "$OUT"/blktests/*.patch

echo
echo "checkpatch --strict, per patch:"
echo "$checks" | grep -v '^==>'
echo
echo "git am on $(lock package) $(cat "$DL/version"): applies, same tree as tested"
echo "from and signed off by: $me"
for grp in "${groups[@]}"; do
	[ "$grp" != prereq ] || continue
	echo "$grp: $(ls "$OUT/$grp"/0*.patch | grep -vc 0000-cover-letter) patches, \"$(sed -n 1p "$TOP/series/$grp.txt")\"; recipients (get_maintainer.pl):"
	sed 's/^/  /' "$OUT/$grp/recipients.txt"
done
echo "blktests: $(ls "$OUT"/blktests/*.patch | wc -l) patches for blktests' throtl group (linux-block@vger.kernel.org, blktests' maintainer)"
say "series and cover letters in $OUT/ ($(printf "%s " "${groups[@]}" | sed "s/prereq //")blktests)"
