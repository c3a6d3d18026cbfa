#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Check the documentation the series touches, without a full Sphinx run:
# every .rst file the series adds or changes must parse with docutils
# with no warning (Sphinx-only roles aside), and kernel-doc -Wall must
# find nothing in the series' C files that it does not find in the base.
set -u
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/pipeline/tree.sh" patched >/dev/null || exit 1
files=$(git -C "$LINUX" diff --name-only --diff-filter=AM base..patched)
fail=0

for f in $(echo "$files" | grep '\.rst$'); do
	out=$(python3 - "$LINUX/$f" <<'PY'
import sys
import docutils.core
import docutils.utils
from docutils.parsers.rst import Directive, roles, directives

# Sphinx roles and directives the kernel docs use; docutils lacks them.
def generic(name, rawtext, text, lineno, inliner, options={}, content=[]):
    return [], []
for r in ("ref", "doc", "c:func", "c:type", "c:macro", "manpage"):
    roles.register_local_role(r, generic)

class Skip(Directive):
    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = None
    def run(self):
        return []
Skip.option_spec = {"maxdepth": directives.unchanged,
                    "numbered": directives.unchanged,
                    "caption": directives.unchanged,
                    "hidden": directives.flag, "glob": directives.flag}
for d in ("toctree", "kernel-doc", "kernel-feat", "only"):
    directives.register_directive(d, Skip)
src = open(sys.argv[1]).read()
docutils.core.publish_doctree(src, source_path=sys.argv[1],
                              settings_overrides={"report_level": 2,
                                                  "halt_level": 5,
                                                  "warning_stream": sys.stdout})
PY
)
	if [ -n "$out" ]; then
		echo "$f:"; echo "$out" | sed 's/^/    /'
		fail=1
	else
		echo "docutils: $f clean"
	fi
done

kdoc() {
	"$LINUX/scripts/kernel-doc" -none -Wall "$@" 2>&1 |
		sed 's/\(\.[ch]\):[0-9][0-9]* /\1 /' | sort -u
}
tmp=$(mktemp -d)
for f in $(echo "$files" | grep -E '\.[ch]$'); do
	mkdir -p "$tmp/base/$(dirname "$f")" "$tmp/new/$(dirname "$f")"
	git -C "$LINUX" show "base:$f" >"$tmp/base/$f" 2>/dev/null || : >"$tmp/base/$f"
	git -C "$LINUX" show "patched:$f" >"$tmp/new/$f"
	new=$(comm -13 <(cd "$tmp/base" && kdoc "$f") <(cd "$tmp/new" && kdoc "$f"))
	if [ -n "$new" ]; then
		echo "kernel-doc: $f has new warnings:"; echo "$new" | sed 's/^/    /'
		fail=1
	else
		echo "kernel-doc: $f adds no warnings"
	fi
done
rm -rf "$tmp"
[ $fail = 0 ] || die "documentation checks failed"
say "documentation checks: clean"
