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
#   BLK_THROTTLE_STAT=FILE          where to read the CPU time stolen from
#                                   this machine, a "cpu" line in the
#                                   format of /proc/stat (default
#                                   /proc/stat; see bt_timed_result)

BT_DIR="$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")"
# numbers with a decimal point, in what dd prints and awk reads
export LC_ALL=C
BT_RUNTIME=${BLK_THROTTLE_RUNTIME:-20}
BT_OUTDIR=${BLK_THROTTLE_OUTDIR:-/tmp}
BT_NAME="blkthrtest$$"
BT_NULLB=
BT_CGROOT=
BT_DEV=
BT_MAJMIN=

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
bt_cgroup_root() {
	BT_CGROOT=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	if [ -z "$BT_CGROOT" ]; then
		BT_CGROOT=/sys/fs/cgroup
		mount -t cgroup2 none "$BT_CGROOT" 2>/dev/null || {
			ktap_skip_all "cgroup v2 is not available"
			exit "$KSFT_SKIP"
		}
	fi
	if ! grep -qw io "$BT_CGROOT/cgroup.controllers"; then
		ktap_skip_all "the io controller is not available (CONFIG_BLK_CGROUP)"
		exit "$KSFT_SKIP"
	fi
	echo +io >"$BT_CGROOT/cgroup.subtree_control" 2>/dev/null
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

	[ -d "$cfs/nullb" ] || modprobe null_blk nr_devices=0 2>/dev/null
	grep -qw configfs /proc/mounts || mount -t configfs none "$cfs" 2>/dev/null
	if [ ! -d "$cfs/nullb" ]; then
		ktap_skip_all "null_blk with configfs is not available" \
			"(CONFIG_BLK_DEV_NULL_BLK, CONFIG_CONFIGFS_FS)"
		exit "$KSFT_SKIP"
	fi
	BT_NULLB=$cfs/nullb/$BT_NAME
	mkdir "$BT_NULLB" || ktap_exit_fail_msg "cannot create $BT_NULLB"
	echo 1024 >"$BT_NULLB/size"
	echo 4096 >"$BT_NULLB/blocksize"
	echo "${BT_MEMORY_BACKED:-0}" >"$BT_NULLB/memory_backed"
	[ "$mbps" = 0 ] || echo "$mbps" >"$BT_NULLB/mbps"
	echo 1 >"$BT_NULLB/power" || ktap_exit_fail_msg "cannot power on $BT_NULLB"
	BT_DEV=/dev/$BT_NAME
	bt_wait_bdev "$BT_DEV" || ktap_exit_fail_msg "$BT_DEV did not appear"
	BT_MAJMIN=$(cat "/sys/block/$BT_NAME/dev")
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
	bt_window
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

# bt_drop_caches - write back and drop the page cache, so that the reads
# that follow go to the device
bt_drop_caches() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

# bt_ms_since T0 - milliseconds since $EPOCHREALTIME was T0
bt_ms_since() {
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", (b - a) * 1000 }'
}

# bt_dd_time FILE - the copy time dd reported in FILE (its stderr): from
# its first IO to its last, without the start-up of its process, which
# on a debug kernel under emulation can take half a second. Printed in
# whole seconds, rounded as blktests rounds them, and in ms.
bt_dd_time() {
	awk '/copied/ { for (i = 1; i <= NF; i++) if ($i == "s,") s = $(i - 1) }
	     END { printf "%.0f %.0f\n", s, s * 1000 }' "$1"
}

# bt_wait_exec PID COMM - wait up to 2 s for process PID to run COMM (to
# count a wait from when a command runs, not from when it was started)
bt_wait_exec() {
	local comm

	for _ in $(seq 200); do
		read -r comm <"/proc/$1/comm" 2>/dev/null
		[ "$comm" = "$2" ] && return 0
		sleep 0.01
	done
	return 1
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

# bt_steal - "STOLEN TOTAL": the clock ticks stolen from this machine's
# CPUs by the hypervisor it runs on, and all ticks, so far (the "cpu" line
# of BLK_THROTTLE_STAT); nothing if that cannot be read
bt_steal() {
	awk '$1 == "cpu" && NF >= 9 {
		for (i = 2; i <= 9; i++)
			t += $i
		print $9, t
		exit
	}' "${BLK_THROTTLE_STAT:-/proc/stat}" 2>/dev/null
}

# bt_window - a measurement begins: bt_timed_result judges its times
# against what was stolen from here on
bt_window() {
	BT_STEAL0=$(bt_steal)
}
bt_window

# bt_stolen_pct - the percentage of CPU time stolen since bt_window, to
# a tenth; nothing if it cannot be told
bt_stolen_pct() {
	local now

	now=$(bt_steal)
	[ -n "$now" ] && [ -n "$BT_STEAL0" ] || return 0
	echo "$BT_STEAL0 $now" | awk '$4 > $2 {
		printf "%.1f", ($3 - $1) * 100 / ($4 - $2)
	}'
}

# The share of CPU time, in percent, stolen during a measurement above
# which a missed bound is not judged
BT_STEAL_MAX=1

# bt_timed_result DESC CMD... - ktap_test_result for a bound on a time or
# a rate, measured since the last bt_window (bt_fio opens one).
#
# A miss is not always the kernel's. On a machine the runner marks slow
# (KSFT_MACHINE_SLOW=yes, the kselftest convention; the harness sets it
# for its KASAN and lockdep kernel) a miss is reported as XFAIL, with its
# figures: there the kernel's own work is part of every time measured.
# In a virtual machine whose hypervisor took its CPUs away for more than
# BT_STEAL_MAX percent of the measurement (steal time, which KVM, Xen and
# Hyper-V guests see in /proc/stat), the guest stood still for part of
# it, fio and the timers with it: a miss then is reported as SKIP, not
# judged, with the share stolen. Without steal, a miss fails. A guest
# under an emulator with no steal clock sees none; its runner can pass
# its host's in BLK_THROTTLE_STAT.
bt_timed_result() {
	local desc=$1 stolen

	shift
	if "$@"; then
		ktap_test_pass "$desc"
		return
	fi
	stolen=$(bt_stolen_pct)
	if [ "${KSFT_MACHINE_SLOW:-}" = yes ]; then
		ktap_test_xfail "$desc (KSFT_MACHINE_SLOW)"
	elif [ -n "$stolen" ] && ! at_most "$stolen" "$BT_STEAL_MAX"; then
		ktap_test_skip "$desc: not judged, $stolen% of the CPU time was stolen meanwhile"
	else
		ktap_test_fail "$desc${stolen:+ ($stolen% stolen)}"
	fi
}

# within_pct VALUE TARGET PCT - true if |VALUE - TARGET| <= PCT% of TARGET
within_pct() {
	awk -v v="$1" -v t="$2" -v p="$3" \
		'BEGIN { d = v - t; if (d < 0) d = -d; exit !(d <= t * p / 100) }'
}

# at_most VALUE BOUND - true if VALUE <= BOUND (floating point)
at_most() {
	awk -v v="$1" -v b="$2" 'BEGIN { exit !(v <= b) }'
}

bt_cleanup() {
	local cg
	for cg in "$BT_CGROOT/$BT_NAME"-*; do
		[ -d "$cg" ] || continue
		bt_move_procs "$cg" "$BT_CGROOT" >/dev/null
		rmdir "$cg" 2>/dev/null
	done
	if [ -n "$BT_NULLB" ] && [ -d "$BT_NULLB" ]; then
		echo 0 >"$BT_NULLB/power" 2>/dev/null
		rmdir "$BT_NULLB"
	fi
	if [ "${BLK_THROTTLE_KEEP:-0}" != 1 ]; then
		rm -f "$BT_OUTDIR/$BT_NAME"-*.json "$BT_OUTDIR/$BT_NAME"-*.json.err
	fi
}
trap bt_cleanup EXIT
