# SPDX-License-Identifier: GPL-2.0
# Shared paths and messages for the harness scripts. Sourced, not run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
LINUX=$BUILD/linux
DL=$BUILD/dl
IMAGES=$BUILD/images
LOGS=$BUILD/logs
NPROC=$(nproc)

# One ccache for every checkout on the machine, paths taken relative to
# the checkout (CCACHE_BASEDIR): a fresh clone rebuilds what another
# clone built in a minute or two, not cold
export CCACHE_DIR=${CCACHE_DIR:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/blk-throttle-ccache}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$TOP}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-time_macros}

mkdir -p "$BUILD" "$LOGS"

# QEMU's virtual clock (TCG only): the guest's clock advances one ns per
# instruction and, when the guest idles, jumps to its next timer, so no
# host load, steal or emulator latency reaches what the guest measures;
# TCG then runs the vCPUs on one thread. For use_clock and
# insn-count.sh.
ICOUNT_OPTS="-icount shift=0,sleep=off"

# The scenarios of bench/ that make bench runs by default: the seed
# scenario, an odd rate, bps pacing, sixteen readers, a hundred groups,
# high rates, far above the limits and none, eight buffered readers, the
# writeback stall, and the stall behind writeback a writer starts itself
BENCH_HEADLINE="seed000 riops37 rbps4k readers16 groups100 riops2000-psync
	riops20000-psync qd32-highlimit qd32-nolimit rbps1g-psync ra1m-8r
	wb1m-others-ext4 wb1m-sfr-others-ext4"

# kernel_tree REV - an id of what REV's kernel image is built from: its
# tree but tools/ and Documentation/, so that a selftest or a document
# changed after a benchmark leaves its figures those of the tree
kernel_tree() {
	git -C "$LINUX" ls-tree -r "$1" | grep -vP '\t(tools|Documentation)/' |
		sha1sum | cut -d' ' -f1
}

# robot_tree REV - what the robot's checks read of REV: its tree without
# tools/testing/selftests/, which none of them reads (their configs are
# kconfig/'s, the boot runs KUnit), and without the text of the .rst files
# of Documentation/, of which a build may check the names alone
# (CONFIG_WARN_MISSING_DOCUMENTS) and make check the text, so that a patch
# whose selftests or prose alone change keeps the robot's cells
robot_tree() {
	git -C "$LINUX" rev-parse -q --verify "$1^{commit}" >/dev/null || return 1
	git -C "$LINUX" ls-tree -r "$1" | grep -vP '\ttools/testing/selftests/' |
		sed -E 's/^([0-7]+ blob) [0-9a-f]+(\tDocumentation\/.*\.rst)$/\1\2/' |
		sha1sum | cut -d' ' -f1
}

# use_clock - set the guest up for CLOCK: host (the default) leaves
# boot.sh's choices; virtual is TCG, ICOUNT_OPTS and one vCPU, or
# CLOCK_CPUS (the vCPUs take turns on the one thread)
use_clock() {
	case ${CLOCK:-host} in
	host) ;;
	virtual)
		export ACCEL=tcg GUEST_CPUS=${CLOCK_CPUS:-1}
		export BOOT_QEMU_OPTS="${BOOT_QEMU_OPTS:+$BOOT_QEMU_OPTS }$ICOUNT_OPTS" ;;
	*) die "CLOCK must be host or virtual" ;;
	esac
}

# check_disk VAR - die unless $VAR names a disk use_disk knows: nothing
# (null_blk) or virtio
check_disk() {
	case ${!1:-} in
	'' | virtio) ;;
	*) die "$1: virtio or nothing" ;;
	esac
}

# use_disk KIND DIR - the disk the guest's tests and benchmarks read.
# KIND "" leaves it to the selftests' library (null_blk); virtio makes a
# sparse 1 GiB raw image, DIR/disk.img, that boot.sh attaches as a
# virtio-blk disk (BOOT_DISK, exported), and sets DISK_ENV to the env
# assignment that points the library at it (/dev/vda in the guest).
use_disk() {
	DISK_ENV=()
	[ -n "$1" ] || return 0
	truncate -s 1G "$2/disk.img"
	export BOOT_DISK=$2/disk.img
	DISK_ENV=(BLK_THROTTLE_TEST_DEV=/dev/vda)
}

# With SAY_SINCE set (epoch seconds, .ci/run sets it), each message
# carries the minutes and seconds since then, so that a CI log shows
# where the time went.
say() {
	if [ -n "${SAY_SINCE:-}" ]; then
		local s=$(($(date +%s) - SAY_SINCE))
		printf '==> [%d:%02d] %s\n' $((s / 60)) $((s % 60)) "$*" >&2
	else
		printf '==> %s\n' "$*" >&2
	fi
}

# kunit_parse LOG - judge the KTAP in LOG (KUnit's in a boot log, or a
# kselftest's) with the kernel's own parser: its whole output in
# LOG.parsed, the suites and results on stdout; non-zero if a test
# failed or crashed, or LOG holds no KTAP it can read
kunit_parse() {
	python3 "$LINUX/tools/testing/kunit/kunit.py" parse "$1" >"$1.parsed" 2>&1
	local rc=$?
	sed -e 's/\x1b\[[0-9;]*m//g' "$1.parsed" |
		grep -E '^\[[0-9:]+\] (=|\[(PASSED|FAILED|SKIPPED|CRASHED)\]|Testing complete)' |
		sed 's/^\[[0-9:]*\] /    /'
	return $rc
}

warn() { printf '\n!!! WARNING: %s\n\n' "$*" >&2; }
die()  { printf '\nFAILED: %s\n' "$*" >&2; exit 1; }

# lock KEY: a value from base.lock, or from the lock file LOCK names
# (at the top: LOCK=stable.lock)
lock() { sed -n "s/^$1=//p" "$TOP/${LOCK:-base.lock}"; }

# unpack_base TARBALL VERSION - make LINUX a git repository of the
# tarball's source, its first commit the pristine tree (tag "base"), by
# the harness; nothing to do if LINUX already holds VERSION
unpack_base() {
	[ "$(cat "$LINUX/.git/base-version" 2>/dev/null)" != "$2" ] || return 0
	say "unpacking Linux $2 into $LINUX (about a minute)"
	rm -rf "$LINUX"
	mkdir -p "$LINUX"
	tar -xJf "$1" -C "$LINUX" --strip-components=1
	git -C "$LINUX" init -q
	git -C "$LINUX" config gc.auto 0
	git -C "$LINUX" config core.untrackedCache true
	say "committing the pristine base"
	git -C "$LINUX" add -A -f .
	GIT_AUTHOR_NAME="blk-throttle harness" GIT_AUTHOR_EMAIL=harness@localhost \
	GIT_COMMITTER_NAME="blk-throttle harness" GIT_COMMITTER_EMAIL=harness@localhost \
	GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z \
		git -C "$LINUX" commit -q -m "Linux $(make -s -C "$LINUX" kernelversion) (Debian $(lock package) $2)"
	git -C "$LINUX" tag -f base >/dev/null
	echo "$2" >"$LINUX/.git/base-version"
}

# am PATCH WHY [OPTION...] - git am PATCH (with OPTIONs) onto LINUX's
# HEAD, or die with git's reasons and WHY
am() {
	local patch=$1 why=$2

	shift 2
	if ! git -C "$LINUX" am -q --whitespace=nowarn "$@" "$patch" \
		>"$LOGS/git-am.log" 2>&1; then
		cat "$LOGS/git-am.log" >&2
		git -C "$LINUX" am --abort 2>/dev/null || true
		die "$why"
	fi
}

# stable_tree VARIANT - for stable-X.Y, the tree scripts/pipeline/stable.sh
# prepares for it (build/linux-X.Y) becomes LINUX; any other VARIANT is
# build/linux's
stable_tree() {
	case $1 in stable-*) LINUX=$BUILD/linux-${1#stable-} ;; esac
}

# run_logged LOG CMD...: run CMD with its output in LOG, print the tail
# and the log's path if it fails.
run_logged() {
	local log=$1; shift
	if ! "$@" >"$log" 2>&1; then
		tail -n 40 "$log" >&2
		die "$* (full log: $log)"
	fi
}

# install_kselftests DIR - the blk-throttle kselftests, installed the
# kernel's way from the patched tree into DIR (emptied first)
install_kselftests() {
	rm -rf "$1"
	run_logged "$LOGS/kselftest-install.log" \
		make -C "$LINUX/tools/testing/selftests" TARGETS=blk-throttle \
		INSTALL_PATH="$1" install
}

# image_flavour HZ - the name of a build's configuration: hzHZ, then
# -debug with DEBUG=1 and -NAME with EXTRA_CONFIG=.../NAME.config; its
# objects are build/obj/FLAVOUR, its images build/images/VARIANT-FLAVOUR
image_flavour() {
	local flavour=hz$1

	[ "${DEBUG:-0}" = 1 ] && flavour=$flavour-debug
	[ -n "${EXTRA_CONFIG:-}" ] &&
		flavour=$flavour-$(basename "$EXTRA_CONFIG" .config)
	echo "$flavour"
}

# kernel_image VARIANT HZ - print the path of VARIANT's bzImage at HZ
# (and DEBUG, EXTRA_CONFIG: image_flavour): built by build.sh
# (incrementally), or with NO_BUILD=1 the one already in build/images,
# for a machine whose one build slot is taken
kernel_image() {
	local img

	img=$IMAGES/$1-$(image_flavour "$2")/bzImage

	if [ "${NO_BUILD:-0}" != 1 ]; then
		"$TOP/scripts/pipeline/build.sh" "$1" "$2"
	elif [ -f "$img" ]; then
		echo "$img"
	else
		die "NO_BUILD=1, and $1 has no image in $(dirname "$img")"
	fi
}
