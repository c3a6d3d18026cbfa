# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the blk-throttle selftests: a test device, test cgroups with
# io.max limits, and fio runs whose JSON results are summarised by
# fio_summary.py. Sourced by the tests after ktap_helpers.sh.
#
# Environment:
#   BLK_THROTTLE_TEST_DEV=/dev/sdX  run on this block device instead of a
#                                   null_blk device made through configfs.
#                                   The tests only read from it.
#   BLK_THROTTLE_RUNTIME=N          seconds each fio run lasts (default 20)
#   BLK_THROTTLE_KEEP=1             keep fio's JSON results in
#                                   BLK_THROTTLE_OUTDIR (default /tmp)
#   BLK_THROTTLE_BOUNDS=tight       the tight strength of every timing
#                                   bound (see bt_bound; default wide)
#   BLK_THROTTLE_NULLB_MIB=N        the size of the null_blk devices
#                                   made, in MiB (default 1024)
#
# Every bound on a time or a rate is reported the same way (bt_at_most,
# bt_within, bt_between, bt_equal): "DESC: VALUE UNIT <= BOUND UNIT" and
# the like, so that a reader, or a script, can see by how far it was met
# or missed. The tests leave the machine as they found it: the cgroup v2
# and configfs mounts, the root's cgroup.subtree_control, null_blk.

BT_DIR="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
# numbers with a decimal point, in what dd prints and awk reads
export LC_ALL=C
BT_RUNTIME=${BLK_THROTTLE_RUNTIME:-20}
BT_OUTDIR=${BLK_THROTTLE_OUTDIR:-/tmp}
BT_NAME="blkthrtest$$"
BT_NULLB=	# the test device in configfs, if null_blk
BT_NULLBS=	# every null_blk device made, in configfs
BT_LINEAR=	# the dm-linear device made
BT_CGROOT=
BT_DEV=
BT_MAJMIN=
# where a test mounts a filesystem it makes ("$BT_MNT-2" and so on for
# more), and the tasks it starts in the background that use it: bt_cleanup
# kills those tasks, then unmounts and removes each such directory
BT_MNT=$BT_OUTDIR/$BT_NAME-mnt
BT_PIDS=
# what bt_cleanup undoes: mounts made, the io controller enabled, the
# null_blk module loaded by this test
BT_UNDO_CGMOUNT=
BT_UNDO_IO=
BT_UNDO_CFSMOUNT=
BT_UNDO_MODULE=

# bt_require - skip the whole test unless root, fio and python3 are there
bt_require() {
	if [ "$(id -u)" != 0 ]; then
		ktap_skip_all "must be run as root"
		exit "$KSFT_SKIP"
	fi
	for cmd in fio python3; do
		if ! command -v "$cmd" >/dev/null; then
			ktap_skip_all "$cmd is not installed"
			exit "$KSFT_SKIP"
		fi
	done
}

# bt_cgroup_root - find (or mount) cgroup v2 and enable the io controller
# in its root; bt_cleanup undoes what this did
bt_cgroup_root() {
	BT_CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -z "$BT_CGROOT" ]; then
		BT_CGROOT=/sys/fs/cgroup
		mount -t cgroup2 none "$BT_CGROOT" 2>/dev/null || {
			ktap_skip_all "cgroup v2 is not available"
			exit "$KSFT_SKIP"
		}
		BT_UNDO_CGMOUNT=$BT_CGROOT
	fi
	if ! grep -qw io "$BT_CGROOT/cgroup.controllers"; then
		ktap_skip_all "the io controller is not available (CONFIG_BLK_CGROUP)"
		exit "$KSFT_SKIP"
	fi
	if ! grep -qw io "$BT_CGROOT/cgroup.subtree_control"; then
		echo +io >"$BT_CGROOT/cgroup.subtree_control" ||
			ktap_exit_fail_msg "cannot enable the io controller"
		BT_UNDO_IO=1
	fi
}

# bt_require_nullb - skip the whole test if BLK_THROTTLE_TEST_DEV names a
# device: the test writes, formats or powers off its device, which it
# does only to a null_blk device of its own
bt_require_nullb() {
	if [ -n "${BLK_THROTTLE_TEST_DEV:-}" ]; then
		ktap_skip_all "$1: needs a null_blk device of its own, not" \
			"BLK_THROTTLE_TEST_DEV"
		exit "$KSFT_SKIP"
	fi
}

# bt_setup_dev [MBPS] - make the test device; MBPS > 0 caps null_blk's
# own bandwidth (it throttles in 20 ms ticks: use it only when a scenario
# asks for it). Sets BT_DEV and BT_MAJMIN.
bt_setup_dev() {
	local mbps=${1:-0} cfs=/sys/kernel/config

	bt_cgroup_root
	if [ -n "${BLK_THROTTLE_TEST_DEV:-}" ]; then
		BT_DEV=$BLK_THROTTLE_TEST_DEV
		[ -b "$BT_DEV" ] || ktap_exit_fail_msg "$BT_DEV is not a block device"
		BT_MAJMIN=$(lsblk -dno MAJ:MIN "$BT_DEV" 2>/dev/null | tr -d ' ')
		[ -n "$BT_MAJMIN" ] ||
			BT_MAJMIN=$(printf '%d:%d' "0x$(stat -c %t "$BT_DEV")" \
					   "0x$(stat -c %T "$BT_DEV")")
		[ "$mbps" = 0 ] || ktap_print_msg "ignoring mbps=$mbps on $BT_DEV"
		return
	fi

	if ! grep -qw configfs /proc/mounts; then
		mount -t configfs none "$cfs" 2>/dev/null && BT_UNDO_CFSMOUNT=$cfs
	fi
	if [ ! -d "$cfs/nullb" ] && ! grep -q '^null_blk ' /proc/modules; then
		modprobe null_blk nr_devices=0 2>/dev/null && BT_UNDO_MODULE=1
	fi
	if [ ! -d "$cfs/nullb" ]; then
		ktap_skip_all "null_blk with configfs is not available" \
			"(CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
		exit "$KSFT_SKIP"
	fi
	BT_NULLB=$cfs/nullb/$BT_NAME
	bt_make_nullb "$BT_NAME" "$mbps"
	BT_DEV=/dev/$BT_NAME
	BT_MAJMIN=$(cat "/sys/block/$BT_NAME/dev")
}

# bt_make_nullb NAME [MBPS] - make and power on the null_blk device
# /dev/NAME through configfs (bt_setup_dev has made configfs ready):
# BLK_THROTTLE_NULLB_MIB MiB (default 1024) of 4 KiB blocks, memory-backed
# if BT_MEMORY_BACKED=1, BT_MAX_SECTORS and MBPS as bt_setup_dev says.
# bt_cleanup removes it.
bt_make_nullb() {
	local nb=/sys/kernel/config/nullb/$1 mbps=${2:-0}

	mkdir "$nb" || ktap_exit_fail_msg "cannot create $nb"
	BT_NULLBS="$BT_NULLBS $nb"
	echo "${BLK_THROTTLE_NULLB_MIB:-1024}" >"$nb/size"
	echo 4096 >"$nb/blocksize"
	echo "${BT_MEMORY_BACKED:-0}" >"$nb/memory_backed"
	[ -z "${BT_MAX_SECTORS:-}" ] ||
		echo "$BT_MAX_SECTORS" >"$nb/max_sectors"
	[ "$mbps" = 0 ] || echo "$mbps" >"$nb/mbps"
	echo 1 >"$nb/power" || ktap_exit_fail_msg "cannot power on $nb"
	bt_wait_bdev "/dev/$1" || ktap_exit_fail_msg "/dev/$1 did not appear"
}

# bt_make_linear DEV MAJMIN - make a dm-linear device over all of DEV
# (MAJMIN), as LVM makes them; sets BT_LINEAR_DEV and BT_LINEAR_MAJMIN.
# False if dmsetup or device-mapper is not there. bt_cleanup removes it,
# or bt_remove_linear before.
bt_make_linear() {
	BT_LINEAR=$BT_NAME-linear
	if ! command -v dmsetup >/dev/null ||
	   ! dmsetup create --noudevsync "$BT_LINEAR" \
		--table "0 $(blockdev --getsz "$1") linear $2 0" 2>/dev/null; then
		BT_LINEAR=
		return 1
	fi
	BT_LINEAR_DEV=/dev/$(dmsetup info -c --noheadings -o blkdevname "$BT_LINEAR")
	BT_LINEAR_MAJMIN=$(dmsetup info -c --noheadings -o major,minor \
			   --separator : "$BT_LINEAR")
	bt_wait_bdev "$BT_LINEAR_DEV" ||
		ktap_exit_fail_msg "$BT_LINEAR_DEV did not appear"
}

# bt_remove_linear - remove bt_make_linear's device, if there is one
bt_remove_linear() {
	[ -z "$BT_LINEAR" ] && return
	dmsetup remove --noudevsync "$BT_LINEAR" ||
		ktap_exit_fail_msg "cannot remove $BT_LINEAR"
	BT_LINEAR=
}

# bt_ms_to_s MS - whole seconds, rounded as blktests rounds them
bt_ms_to_s() {
	awk -v ms="$1" 'BEGIN { printf "%.0f\n", ms / 1000 }'
}

# bt_wait_bdev DEV - wait up to 5 s for the block device node DEV
bt_wait_bdev() {
	for _ in $(seq 50); do
		[ -b "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# bt_cgroup NAME - create a test cgroup, print its path. Every cgroup is
# named after the test run, so that bt_cleanup finds it (this usually runs
# in a command substitution, whose variables do not reach the caller).
bt_cgroup() {
	local cg="$BT_CGROOT/$BT_NAME-$1"

	mkdir "$cg" || ktap_exit_fail_msg "cannot create cgroup $cg"
	echo "$cg"
}

# The command prefix that runs a command in a cgroup:
#   "${BT_IN_CGROUP[@]}" CGROUP CMD...
# An array rather than a function, so that with "&" $! is CMD's own pid
# (sh execs it), not that of a subshell running the function.
BT_IN_CGROUP=(sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh)

# bt_move_procs FROM TO - move every process of cgroup FROM to cgroup TO
# (the list is read in full first: it changes as they move); prints how
# many moved
bt_move_procs() {
	local pid n=0
	for pid in $(cat "$1/cgroup.procs"); do
		echo "$pid" >"$2/cgroup.procs" 2>/dev/null && n=$((n + 1))
	done
	echo "$n"
}

# bt_fio CGROUP OUT.json FIO-ARGS... - run fio inside CGROUP, JSON results
# to OUT.json, fio's complaints to OUT.json.err; a new measurement window
bt_fio() {
	local cg=$1 out=$2
	shift 2
	"${BT_IN_CGROUP[@]}" "$cg" fio --output-format=json --output="$out" \
		"$@" >/dev/null 2>"$out.err"
}

# bt_iostat CGROUP KEY - the value of KEY (rbytes, wbytes, rios, ...) in
# CGROUP's io.stat line for the test device; empty if it has none
bt_iostat() {
	awk -v dev="$BT_MAJMIN" -v key="$2=" '$1 == dev {
		for (i = 2; i <= NF; i++)
			if (index($i, key) == 1)
				print substr($i, length(key) + 1)
	}' "$1/io.stat"
}

# bt_timer_softirqs - the timer softirqs run so far, TIMER and HRTIMER on
# all CPUs: each is a CPU woken to expire timers, the throttle's among
# them (a soft hrtimer, or a timer_list in kernels before the hrtimer).
# Read by the shell itself: no program is started while it is counted.
bt_timer_softirqs() {
	local name rest n t=0

	while read -r name rest; do
		case $name in
		TIMER: | HRTIMER:)
			for n in $rest; do
				t=$((t + n))
			done ;;
		esac
	done </proc/softirqs
	echo "$t"
}

# bt_charged CGROUP - "SECONDS RBYTES WBYTES": the time, and the bytes of
# reads and of writes CGROUP has been charged on the test device, read
# together by the shell itself (no program is started between them)
bt_charged() {
	local dev rest kv rb=0 wb=0

	while read -r dev rest; do
		[ "$dev" = "$BT_MAJMIN" ] || continue
		for kv in $rest; do
			case $kv in
			rbytes=*) rb=${kv#rbytes=} ;;
			wbytes=*) wb=${kv#wbytes=} ;;
			esac
		done
	done <"$1/io.stat"
	echo "$EPOCHREALTIME $rb $wb"
}

# bt_started CGROUP - true once CGROUP has been charged for a read or a
# write on the test device
bt_started() {
	local rb wb

	read -r _ rb wb < <(bt_charged "$1")
	[ "$rb" != 0 ] || [ "$wb" != 0 ]
}

# bt_wait_started CGROUP SECONDS - wait until CGROUP has been charged on
# the test device, at most SECONDS: a program's first IO can come seconds
# after its start on a slow machine. False if none came.
bt_wait_started() {
	local i

	for ((i = 0; i < $2 * 10; i++)); do
		bt_started "$1" && return 0
		bt_sleep 0.1
	done
	bt_started "$1"
}

# bt_mean_read_kib CGROUP - the mean size of CGROUP's device reads on the
# test device, in KiB to a tenth (0.0 if it has none)
bt_mean_read_kib() {
	awk -v b="$(bt_iostat "$1" rbytes)" -v n="$(bt_iostat "$1" rios)" \
		'BEGIN { printf "%.1f", n ? b / n / 1024 : 0 }'
}

# bt_ms_since T0 - milliseconds since $EPOCHREALTIME was T0
bt_ms_since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", (b - a) * 1000 }'
}

# bt_dd_time FILE - the copy time dd reported in FILE (its stderr): from
# its first IO to its last, without the start-up of its process, which
# on a slow debug kernel can take half a second. Printed in
# whole seconds, rounded as blktests rounds them, and in ms.
bt_dd_time() {
	awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i - 1) }
	     END { printf "%.0f %.0f\n", s, s * 1000 }' "$1"
}

# bt_sleep SECONDS - sleep without starting a program: the shell's read
# with a time-out, on a pipe that never has data. Starting /bin/sleep
# costs a program's start-up, which on a slow machine is part of the
# wait.
bt_sleep() {
	read -rt "$1" <> <(:) || :
}

# bt_io_start CGROUP read|write PATH BYTES [fdatasync] - start one
# O_DIRECT IO (direct_io.py) in CGROUP, in the background, and return
# once it is about to be submitted: a wait counted from here counts from
# the IO, not from the start of a program. bt_io_end reads its result.
bt_io_start() {
	local cg=$1 fifo=$BT_OUTDIR/$BT_NAME-io.fifo line

	shift
	rm -f "$fifo"
	mkfifo "$fifo" || ktap_exit_fail_msg "cannot make $fifo"
	"${BT_IN_CGROUP[@]}" "$cg" python3 "$BT_DIR/direct_io.py" "$@" \
		>"$fifo" 2>"$fifo.err" &
	BT_IO_PID=$!
	exec {BT_IO_FD}<"$fifo"
	rm -f "$fifo"
	read -r -u "$BT_IO_FD" line
	[ "$line" = ready ] ||
		ktap_exit_fail_msg "direct_io.py $*: $(cat "$fifo.err")"
}

# bt_io_end - wait for bt_io_start's IO: sets BT_IO_MS (from submission
# to completion, by the IO's own clock) and BT_IO_RES (OK or an errno)
bt_io_end() {
	read -r -u "$BT_IO_FD" BT_IO_MS BT_IO_RES _
	exec {BT_IO_FD}<&-
	wait "$BT_IO_PID"
	rm -f "$BT_OUTDIR/$BT_NAME-io.fifo.err"
}

# bt_io_together CGROUP N read|write PATH BYTES - N O_DIRECT IOs
# (direct_io.py) in CGROUP at once; sets BT_IO_ENDS to when each of them
# completed, in ms from the first submission of any, by the clock the
# IOs read as they are submitted and complete, earliest first; empty if
# one of them failed
bt_io_together() {
	local cg=$1 n=$2 t=$BT_OUTDIR/$BT_NAME-together i pids=()

	shift 2
	for i in $(seq "$n"); do
		"${BT_IN_CGROUP[@]}" "$cg" python3 "$BT_DIR/direct_io.py" "$@" \
			>"$t.$i" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"
	# "ready", then "MS RESULT START END" from each
	BT_IO_ENDS=$(cat "$t".* | awk -v n="$n" '
		$2 == "OK" { k++; s[k] = $3; e[k] = $4 }
		END {
			if (k != n)
				exit 1
			first = s[1]
			for (i = 2; i <= k; i++)
				if (s[i] < first)
					first = s[i]
			for (i = 1; i <= k; i++)
				printf "%.0f\n", (e[i] - first) * 1000
		}' | sort -n | paste -sd ' ')
	[ -n "$BT_IO_ENDS" ] || ktap_print_msg "IOs: $(cat "$t".* | paste -sd ' ')"
	rm -f "$t".*
}

# bt_paced IOS SIZE LIMIT - the rate of IOS IOs of SIZE each (1 for IOPS,
# KiB for KiB/s) over BT_RUNTIME seconds, less the burst of one bucket
# (100 ms of the LIMIT) that a group with a fresh limit takes at once
bt_paced() {
	awk -v n="$1" -v s="$2" -v r="$3" -v t="$BT_RUNTIME" \
		'BEGIN { printf "%.3f", (n * s - r / 10) / t }'
}

# bt_stats OUT.json [--per-job] - the run's metrics as shell variables
bt_stats() {
	python3 "$BT_DIR/fio_summary.py" "$@"
}

# bt_bound TIGHT WIDE - the bound in force on a time or a rate. Each
# timing check has two strengths. The wide one, the default, is met with
# a wide margin by a correct kernel on any machine, a loaded one or a
# debug kernel among them, and missed by far by the 100 ms slices of
# Linux 7.3 and before: it is what a user runs on their own machine.
# The tight one (BLK_THROTTLE_BOUNDS=tight) sits a little above the
# ideal, for a deterministic clock such as QEMU's -icount, where the
# project's CI judges. A miss fails in either strength.
bt_bound() {
	case ${BLK_THROTTLE_BOUNDS:-wide} in
	tight) echo "$1" ;;
	wide) echo "$2" ;;
	*) ktap_exit_fail_msg "BLK_THROTTLE_BOUNDS must be tight or wide" ;;
	esac
}

# bt_judge DESC CMD... - ktap_test_result for a bound on a time or a rate
bt_judge() {
	local desc=$1

	shift
	if "$@"; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
}

# bt_at_most DESC VALUE BOUND UNIT - VALUE must be at most BOUND
bt_at_most() {
	bt_judge "$1: $2 $4 <= $3 $4" at_most "$2" "$3"
}

# bt_within DESC VALUE TARGET PCT UNIT - VALUE within PCT% of TARGET
bt_within() {
	bt_judge "$1: $2 $5 within $4% of $3 $5" within_pct "$2" "$3" "$4"
}

# bt_between DESC VALUE LOW HIGH UNIT - LOW <= VALUE <= HIGH
bt_between() {
	bt_judge "$1: $2 $5 in $3..$4 $5" in_range "$2" "$3" "$4"
}

# bt_equal DESC VALUE WANT UNIT - VALUE must be WANT (a whole number)
bt_equal() {
	bt_judge "$1: $2 $4 = $3 $4" [ "$2" = "$3" ]
}

# within_pct VALUE TARGET PCT - true if |VALUE - TARGET| <= PCT% of TARGET
within_pct() {
	awk -v v="$1" -v t="$2" -v p="$3" \
		'BEGIN { d = v - t; if (d < 0) d = -d; exit !(d <= t * p / 100) }'
}

# in_range VALUE LOW HIGH - true if LOW <= VALUE <= HIGH (floating point)
in_range() {
	awk -v v="$1" -v l="$2" -v h="$3" 'BEGIN { exit !(l <= v && v <= h) }'
}

# at_most VALUE BOUND - true if VALUE <= BOUND (floating point)
at_most() {
	awk -v v="$1" -v b="$2" 'BEGIN { exit !(v <= b) }'
}

# bt_stop_tasks - kill the tasks in BT_PIDS, wait for every task the
# test left in the background, and empty BT_PIDS
bt_stop_tasks() {
	kill $BT_PIDS 2>/dev/null
	wait
	BT_PIDS=
}

bt_cleanup() {
	local cg nb m

	[ -z "$BT_PIDS" ] || bt_stop_tasks
	for m in "$BT_MNT" "$BT_MNT"-*; do
		mountpoint -q "$m" && umount "$m"
		[ -d "$m" ] && rmdir "$m"
	done
	for cg in "$BT_CGROOT/$BT_NAME"-*; do
		[ -d "$cg" ] || continue
		bt_move_procs "$cg" "$BT_CGROOT" >/dev/null
		rmdir "$cg" 2>/dev/null
	done
	[ -n "$BT_LINEAR" ] && dmsetup remove --noudevsync "$BT_LINEAR" 2>/dev/null
	BT_LINEAR=
	for nb in $BT_NULLBS; do
		[ -d "$nb" ] || continue
		echo 0 >"$nb/power" 2>/dev/null
		rmdir "$nb"
	done
	BT_NULLBS=
	[ -n "$BT_UNDO_MODULE" ] && modprobe -r null_blk 2>/dev/null
	[ -n "$BT_UNDO_CFSMOUNT" ] && umount "$BT_UNDO_CFSMOUNT" 2>/dev/null
	[ -n "$BT_UNDO_IO" ] &&
		echo -io >"$BT_CGROOT/cgroup.subtree_control" 2>/dev/null
	[ -n "$BT_UNDO_CGMOUNT" ] && umount "$BT_UNDO_CGMOUNT" 2>/dev/null
	BT_UNDO_MODULE= BT_UNDO_CFSMOUNT= BT_UNDO_IO= BT_UNDO_CGMOUNT=
	if [ "${BLK_THROTTLE_KEEP:-0}" != 1 ]; then
		rm -f "$BT_OUTDIR/$BT_NAME"-*.json "$BT_OUTDIR/$BT_NAME"-*.json.err
	fi
}
trap bt_cleanup EXIT
