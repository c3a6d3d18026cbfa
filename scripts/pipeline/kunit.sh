#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# KUnit the way kernel developers run it: the kernel's own
# tools/testing/kunit/kunit.py with the series' block/.kunitconfig, on
# UML and on a 32-bit kernel (i386) under QEMU, where u64 division and
# arithmetic in a 32-bit long break first. Each architecture builds in a
# directory of its own (build/obj/kunit-ARCH); writes results/kunit.md.
#
#   kunit.sh [ARCH...]    (default: um i386)
set -u
. "$(dirname "$0")/lib.sh"

ARCHS=${*:-um i386}
"$TOP/scripts/pipeline/tree.sh" patched >/dev/null || exit 1
cd "$LINUX" || exit 1

# kunit.py boots QEMU with "-accel kvm -accel hvf -accel tcg", the first
# that starts; where /dev/kvm opens but KVM guests hang after
# decompression (see detect-accel.sh), it hangs. The suite runs in
# seconds under TCG, so unless ACCEL=kvm a wrapper first on PATH leaves
# "-accel kvm" out of the QEMU an architecture's qemu_config names.
wrap=$BUILD/kunit-bin
rm -rf "$wrap"
mkdir -p "$wrap"
wrap_qemu() {
	local q
	q=$(sed -n "s/.*qemu_arch='\([^']*\)'.*/\1/p" \
		"tools/testing/kunit/qemu_configs/$1.py" 2>/dev/null)
	[ -n "$q" ] || return 0 # UML runs no QEMU
	q=$(PATH=${PATH#"$wrap:"} command -v "qemu-system-$q") || die "kunit.py --arch=$1 needs qemu-system-$q"
	cat >"$wrap/${q##*/}" <<-EOF
	#!/bin/bash
	args=()
	while [ \$# -gt 0 ]; do
		if [ "\$1" = -accel ] && [ "\$2" = kvm ]; then shift 2; continue; fi
		args+=("\$1"); shift
	done
	exec $q "\${args[@]}"
	EOF
	chmod +x "$wrap/${q##*/}"
}
[ "${ACCEL:-tcg}" = kvm ] || export PATH=$wrap:$PATH

fail=0
rows=
for arch in $ARCHS; do
	log=$LOGS/kunit-$arch.log
	say "kunit.py run --arch=$arch (log: $log)"
	[ "${ACCEL:-tcg}" = kvm ] || wrap_qemu "$arch"
	start=$(date +%s)
	python3 tools/testing/kunit/kunit.py run --arch="$arch" \
		--kunitconfig=block/.kunitconfig --jobs="$NPROC" \
		--build_dir="$BUILD/obj/kunit-$arch" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	# "Testing complete. Ran 11 tests: passed: 11"
	summary=$(sed -n 's/.*Testing complete\. //p' "$log" | tail -n 1)
	if [ "$rc" != 0 ] || [ -z "$summary" ] ||
	   ! grep -q "Ran [1-9][0-9]* tests: passed: [0-9]*$" <<<"$summary"; then
		tail -n 30 "$log" >&2
		fail=1
		verdict=FAIL
	else
		verdict=PASS
	fi
	say "$arch: ${summary:-no result} ($verdict, ${secs}s)"
	rows+="| $arch | ${summary:-no result} | $verdict | $secs |"$'\n'
done

{
	echo "# KUnit under kunit.py: $ARCHS"
	echo
	echo "\`scripts/pipeline/kunit.sh\` (\`make kunit\`): \`tools/testing/kunit/kunit.py run"
	echo "--kunitconfig=block/.kunitconfig --arch=ARCH\` on the patched tree"
	echo "($(git log -1 --format=%h patched)), $(date -u +%Y-%m-%d). Seconds include the build."
	echo
	echo "| arch | kunit.py | verdict | seconds |"
	echo "|---|---|---|---|"
	printf '%s' "$rows"
} >"$TOP/results/kunit.md"
[ "$fail" = 0 ] || die "KUnit failed (results/kunit.md, logs in $LOGS)"
