#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the kernel test robot checks when a series is posted, at the base
# and at every patch of ours: one row a commit, one column a check,
# printed and written to results/robot.md. A cell is green when the
# commit builds and its build prints no warning that the base's does not
# (W=1, line numbers ignored); the .c files the series touches are
# rebuilt at every commit, so that their warnings are counted in every
# row, not only in the row of the patch that changed them.
#
#   robot.sh [CHECK ...]     (default: every check, in this order)
#
#   gcc         x86_64, gcc, W=1, the test config with blktrace on
#   boot        gcc's kernel booted (QEMU), KUnit judged by kunit.py
#   sparse      make C=2 on the .c files the series touches, in gcc's tree
#   i386        i386, gcc, W=1
#   clang       x86_64, clang and LLVM tools (LLVM=-19), W=1
#   arm32       32-bit arm (ARMv7, virt machine), Debian's cross gcc, W=1
#   nothrottle  gcc with CONFIG_BLK_DEV_THROTTLING=n
#   noblkcg     gcc with CONFIG_BLK_CGROUP=n
#   notrace     gcc with CONFIG_BLK_DEV_IO_TRACE=n
#   rand1-rand3 gcc, seeded random choices of 24 block, cgroup, timer,
#               preemption and debug symbols; the block layer and the
#               throttle stay on
#   kunit       at the last commit only: kunit.py run on UML and i386
#               (scripts/pipeline/kunit.sh, results/kunit.md)
#
# Each check has its own object directory under build/robot and builds
# incrementally from one commit to the next; a cell's result is kept,
# keyed by the commit's tree (but tools/testing/selftests/, which no
# check reads: robot_tree) and the check's config, so that a second run
# does only what changed. Every result is also recorded in
# results/robot-cells.tsv (check, tree, config's sha256, result, time),
# which the repository keeps: a run on another machine skips the cells
# on record for the same tree and config, and the table shows, for a
# check that has not run here, its latest result on record for the
# row's tree. Slow (a full build per check the first time) and not part
# of "make test". REV=branch checks base..branch of build/linux instead
# of the series.
set -u
. "$(dirname "$0")/lib.sh"

R=$BUILD/robot
WT=$R/src
REV=${REV:-patched}
ALL="gcc boot sparse i386 clang arm32 nothrottle noblkcg notrace rand1 rand2 rand3 kunit"
CHECKS=${*:-$ALL}

"$TOP/scripts/pipeline/setup.sh" robot || exit 1
"$TOP/scripts/pipeline/tree.sh" patched >/dev/null || exit 1
mkdir -p "$R"
if [ ! -e "$WT/.git" ]; then
	git -C "$LINUX" worktree add -q --detach "$WT" base ||
		die "cannot create the worktree $WT"
fi
commits=(base $(git -C "$LINUX" rev-list --reverse "base..$REV"))
trees=($(for c in "${commits[@]}"; do robot_tree "$c"; done))
touched=$(git -C "$LINUX" diff --name-only "base..$REV" -- '*.c')

# what each check adds to tinyconfig and the guest's fragments (all of
# kconfig/ but the debug, KCSAN, blktests and syscalls ones: what make
# test boots, but fadvise(2) and madvise(2))
extra() {
	case $1 in
	gcc|i386|clang|arm32) printf '%s\n' CONFIG_FTRACE=y CONFIG_BLK_DEV_IO_TRACE=y ;;
	nothrottle) echo "CONFIG_BLK_DEV_THROTTLING=n" ;;
	noblkcg) echo "CONFIG_BLK_CGROUP=n" ;;
	notrace) printf '%s\n' CONFIG_FTRACE=y CONFIG_BLK_DEV_IO_TRACE=n ;;
	rand*)
		python3 - "${1#rand}" <<-'PY'
		import random, sys
		rnd = random.Random(int(sys.argv[1]))
		syms = """BLK_CGROUP_IOCOST BLK_CGROUP_IOLATENCY BLK_CGROUP_IOPRIO
		BLK_WBT BLK_DEV_ZONED BLK_INLINE_ENCRYPTION BLK_DEV_INTEGRITY
		BLK_DEBUG_FS DEBUG_FS SMP HIGH_RES_TIMERS NO_HZ_IDLE MEMCG
		CGROUP_WRITEBACK TRANSPARENT_HUGEPAGE KUNIT PROVE_LOCKING
		DEBUG_ATOMIC_SLEEP DEBUG_OBJECTS_TIMERS FTRACE BLK_DEV_IO_TRACE
		PRINTK""".split()
		for s in syms:
		    print("CONFIG_%s=%s" % (s, rnd.choice("yn")))
		print("CONFIG_HZ_%s=y" % rnd.choice(["100", "250", "300", "1000"]))
		print("CONFIG_%s=y" % rnd.choice(["PREEMPT_NONE", "PREEMPT_VOLUNTARY", "PREEMPT"]))
		PY
		;;
	esac
}

# make arguments of each check
margs() {
	case $1 in
	i386) echo "ARCH=i386 CC=ccache\ gcc" ;;
	clang) echo "LLVM=-19 CC=ccache\ clang-19" ;;
	arm32) echo "ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf- CC=ccache\ arm-linux-gnueabihf-gcc" ;;
	*) echo "CC=ccache\ gcc" ;;
	esac
}

# config CHECK - write build/robot/CHECK.config, made on the
# series' last commit (a symbol a later patch adds would be dropped at
# the earlier ones; make brings it back in line at each commit)
config() {
	local c=$1 frags=()
	local cfg=$R/cfg-$c
	rm -rf "$cfg"
	mkdir -p "$cfg"
	extra "$c" >"$cfg/extra.config"
	frags=("$TOP/kconfig/distro.config" "$TOP/kconfig/blk-throttle.config"
		"$TOP/kconfig/series.config")
	if [ "$c" = arm32 ]; then
		# base.config is the x86 guest's; of it, the cgroups that
		# blk-cgroup and so blk-throttle depend on
		printf '%s\n' CONFIG_MMU=y CONFIG_ARCH_MULTI_V7=y CONFIG_ARCH_VIRT=y \
			CONFIG_AEABI=y CONFIG_BINFMT_ELF=y CONFIG_PRINTK=y \
			CONFIG_SYSFS=y CONFIG_PROC_FS=y CONFIG_CGROUPS=y \
			>"$cfg/arm.config"
		frags+=("$cfg/arm.config")
	else
		frags=("$TOP/kconfig/base.config" "${frags[@]}")
	fi
	frags+=("$cfg/extra.config")
	git -C "$WT" checkout -q --detach "${commits[-1]}" || return 1
	eval "make -C '$WT' O='$cfg' -s $(margs "$c") tinyconfig" &&
	"$WT/scripts/kconfig/merge_config.sh" -m -O "$cfg" "$cfg/.config" "${frags[@]}" >"$cfg/merge.log" &&
	eval "make -C '$WT' O='$cfg' -s $(margs "$c") olddefconfig" || return 1
	# the lines that make the check what it is must have survived (a
	# random choice may be dropped for a dependency: that is randconfig),
	# and every check but two builds the throttle: a config that lost it
	# would pass without compiling a line of the series
	while read -r line; do
		case $line in
		*=n) ! grep -q "^${line%=n}=" "$cfg/.config" ;;
		*) grep -qxF "$line" "$cfg/.config" ;;
		esac || { echo "$c: $line did not survive olddefconfig" >&2; return 1; }
	done < <(case $c in rand*) ;; *) grep -v '^$' "$cfg/extra.config" ;; esac
		 case $c in nothrottle|noblkcg) ;; *) echo CONFIG_BLK_DEV_THROTTLING=y ;; esac)
	mkdir -p "$R/obj-$c"
	cp "$cfg/.config" "$R/$c.config"
}

# warnings, and errors, without line and column numbers; not W=1's
# scripts/misc-check, which lists every tracked file a .gitignore
# matches: the base is committed whole from the tarball, and upstream's
# git tree tracks none of them
warnings() {
	grep -E '(warning|error):|undefined reference|undefined symbol' "$1" |
		grep -v ': warning: ignored by one of the .gitignore files$' |
		sed -E "s|$WT/||g; s/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/" | sort -u
}

CELLS=$TOP/results/robot-cells.tsv
sha() { sha256sum <"$R/$1.config" | cut -c1-12; } # sha CHECK: its config's
key() { echo "${trees[$2]}-$(sha "$1")"; } # key CHECK I: tree and config
# recorded CHECK I [SHA]: the latest result on record for the commit's
# tree, with that config if SHA is given
recorded() {
	[ -f "$CELLS" ] || return 1
	awk -F '\t' -v c="$1" -v t="${trees[$2]}" -v s="${3:-}" \
		'$1 == c && $2 == t && (s == "" || $3 == s) { r = $4 }
		 END { if (r == "") exit 1; print r }' "$CELLS"
}
# done_cell CHECK I: judged here, or on record for its tree and config;
# the base is judged here, as its warnings are what the rows are judged by
done_cell() {
	[ -f "$R/$1/$(key "$1" "$2").res" ] ||
		{ [ "$2" != 0 ] && recorded "$1" "$2" "$(sha "$1")" >/dev/null; }
}
# result CHECK I: the cell's result, or "-" where none is on record
result() {
	if [ -f "$R/$1.config" ]; then
		if [ -f "$R/$1/$(key "$1" "$2").res" ]; then
			cat "$R/$1/$(key "$1" "$2").res"
		else
			recorded "$1" "$2" "$(sha "$1")" || echo -
		fi
	else
		recorded "$1" "$2" || echo -
	fi
}
# record CHECK I: put the cell's result on record
record() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "${trees[$2]}" "$(sha "$1")" \
		"$(cat "$R/$1/$(key "$1" "$2").res")" \
		"$(date -u +%Y-%m-%dT%H:%MZ)" >>"$CELLS"
}

# judge CHECK I RC: the cell's result from its build's status and log
judge() {
	local c=$1 i=$2 rc=$3 k
	k=$R/$c/$(key "$c" "$i")
	warnings "$k.log" >"$k.w"
	if [ "$i" = 0 ]; then
		cp "$k.w" "$R/$c/base.w"
		: >"$k.new"
	else
		comm -13 "$R/$c/base.w" "$k.w" >"$k.new"
	fi
	if [ "$rc" != 0 ]; then
		echo FAILED
	elif [ -s "$k.new" ]; then
		echo "$(wc -l <"$k.new") new"
	else
		echo ok
	fi >"$k.res"
	record "$c" "$i"
}

# build CHECK I - build commit I in the check's objects; judge it
build() {
	local c=$1 i=$2 obj=$R/obj-$1 f
	git -C "$WT" checkout -q --detach "${commits[$i]}" || die "cannot check out ${commits[$i]}"
	cmp -s "$R/$c.config" "$obj/.config" || cp "$R/$c.config" "$obj/.config"
	for f in $touched; do [ -f "$WT/$f" ] && touch "$WT/$f"; done
	eval "make -C '$WT' O='$obj' -j$NPROC $(margs "$c") W=1 \
		KBUILD_BUILD_TIMESTAMP=2026-01-01 all" >"$R/$c/$(key "$c" "$i").log" 2>&1
	local rc=$?
	judge "$c" "$i" "$rc"
	return $rc
}

# sparse I - make C=2 on the touched .c files, in gcc's objects at I
sparse() {
	local i=$1 objs=() f k
	k=$R/sparse/$(key sparse "$i")
	for f in $touched; do
		[ -f "$WT/$f" ] && [ -f "$R/obj-gcc/${f%.c}.o" ] && objs+=("${f%.c}.o")
	done
	eval "make -C '$WT' O='$R/obj-gcc' -j$NPROC $(margs gcc) W=1 C=2 ${objs[*]}" >"$k.make" 2>&1
	local rc=$?
	grep -E '^[^ ]+: (warning|error):' "$k.make" >"$k.log"
	judge sparse "$i" "$rc"
}

# boot I - boot gcc's kernel at I; KUnit's results judged by kunit.py
boot() {
	local i=$1 k out rc=0
	k=$R/boot/$(key boot "$i")
	out=$k.guest
	rm -rf "$out"
	mkdir -p "$out"
	BOOT_TIMEOUT=300 "$TOP/scripts/pipeline/boot.sh" "$R/obj-gcc/arch/x86/boot/bzImage" \
		"$out" true >"$k.boot" 2>&1 || rc=1
	# before the series adds its suite the kernel runs none ("1..0"),
	# which kunit.py calls an error; from then on the suite must run
	if [ $rc = 0 ] && grep -q '^CONFIG_BLK_THROTTLE_KUNIT_TEST=y' "$R/obj-gcc/.config"; then
		kunit_parse "$out/console.log" >"$k.kunit" || rc=1
		grep -q 'blk-throttle-bucket' "$k.kunit" || rc=1
		! grep -qE 'SKIPPED|XFAIL' "$k.kunit" || rc=1
	fi
	: >"$k.log"
	judge boot "$i" "$rc"
}

for c in $CHECKS; do
	case " $ALL " in *" $c "*) ;; *) die "no check \"$c\" (checks: $ALL)" ;; esac
done
# boot and sparse run in gcc's tree, with it
CHECKS=$(for c in $CHECKS; do case $c in boot|sparse) echo gcc ;; *) echo "$c" ;; esac; done | awk '!s[$0]++')
for c in $CHECKS; do
	if [ "$c" = kunit ]; then
		# kunit.sh runs on the series as prepared in build/linux
		[ "$REV" = patched ] || { warn "kunit runs on the series only"; continue; }
		i=$((${#commits[@]} - 1))
		git -C "$LINUX" diff --name-only base..patched -- block/Kconfig block/.kunitconfig >"$R/kunit.config"
		mkdir -p "$R/kunit"
		k=$R/kunit/$(key kunit "$i")
		say "robot: kunit"
		if "$TOP/scripts/pipeline/kunit.sh" >"$k.log" 2>&1; then
			echo ok
		else
			echo FAILED
		fi >"$k.res"
		: >"$k.new"
		record kunit "$i"
		[ "$(cat "$k.res")" = ok ] || say "kunit: $(cat "$k.res") (log: $k.log)"
		continue
	fi
	config "$c" || { warn "cannot configure the $c check"; continue; }
	with=$c
	if [ "$c" = gcc ]; then
		with="gcc sparse boot"
		cp "$R/gcc.config" "$R/sparse.config"
		cp "$R/gcc.config" "$R/boot.config"
	fi
	for x in $with; do mkdir -p "$R/$x"; done
	need=
	for i in "${!commits[@]}"; do
		[ "$i" = 0 ] && continue
		for x in $with; do done_cell "$x" "$i" || need=1; done
	done
	if [ -z "$need" ]; then
		say "robot: $with: every row on record"
		continue
	fi
	say "robot: $with"
	start=$(date +%s)
	for i in "${!commits[@]}"; do
		todo=
		for x in $with; do done_cell "$x" "$i" || todo="$todo $x"
		done
		if [ -n "$todo" ]; then
			build "$c" "$i"
			built=$?
			case " $todo " in *" sparse "*) sparse "$i" ;; esac
			case " $todo " in *" boot "*)
				if [ $built = 0 ]; then boot "$i"; else
					: >"$R/boot/$(key boot "$i").log"; judge boot "$i" 1; fi ;;
			esac
		fi
		for x in $with; do
			res=$(result "$x" "$i")
			[ "$res" = ok ] || say "$x at $(git -C "$LINUX" log -1 --format=%s "${commits[$i]}"): $res"
		done
	done
	say "robot: $with done in $(( $(date +%s) - start ))s"
done

# the table, from every cell on record for the commits of now
{
	echo "# The kernel test robot's checks, at every patch"
	echo
	echo "\`scripts/pipeline/robot.sh\` ($(date -u +%Y-%m-%d)) on $(lock package) $(cat "$DL/version"):"
	echo "\"ok\": builds, and no warning the base's build does not print; \"N new\":"
	echo "warnings (or errors) the base does not have; \"-\": not run. See the"
	echo "script's header for what each check builds; configs in build/robot."
	echo "When each cell ran: results/robot-cells.tsv; what each run was:"
	echo "results/README.md."
	echo
	printf '| commit |'
	for c in $ALL; do printf ' %s |' "$c"; done
	echo
	printf '|---|'
	for c in $ALL; do printf -- '---|'; done
	echo
	for i in "${!commits[@]}"; do
		printf '| %s |' "$(git -C "$LINUX" log -1 --format=%s "${commits[$i]}")"
		for c in $ALL; do printf ' %s |' "$(result "$c" "$i")"; done
		echo
	done
	new=$(for c in $ALL; do for i in "${!commits[@]}"; do
		[ -f "$R/$c.config" ] && cat "$R/$c/$(key "$c" "$i").new" 2>/dev/null
	done; done | sort -u)
	if [ -n "$new" ]; then
		echo
		echo "New warnings:"
		echo
		echo "$new" | sed 's/^/    /'
	fi
} >"$R/robot.md"
cat "$R/robot.md"
cp "$R/robot.md" "$TOP/results/robot.md"
! grep -qE '\| ([0-9]+ new|FAILED) ' "$R/robot.md" ||
	die "a check failed or found new warnings (logs in $R/CHECK/)"
say "robot: every cell run is green"
