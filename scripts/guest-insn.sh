#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest, under the insn-count plugin (insn-count.sh): fio
# runs of a fixed number of 4 KiB random direct reads, each between two
# markers (MARK, scripts/insn-mark.c) so that the plugin dumps the
# instructions of that run alone. For each limit on the reading cgroup
#
#   nolimit     no io.max at all (throttling never enabled on the disk)
#   highlimit   riops=100000000 rbps=100000000000, far above the load
#   throttled   riops=2000, far below what the guest can do: held to
#               2000 IOPS (how: see the report's pacing table)
#
# and each engine (psync QD1, libaio QD32), fio runs N IOs and 2N IOs,
# ROUNDS times: what a 2N run costs over an N run is the cost of N IOs,
# fio's own start and exit cancelling out. The order alternates (N then
# 2N, 2N then N, ...) so that what the first run of a pair leaves behind
# (page allocator and LRU state) does not always land on the same one.
#
# OUTDIR/windows gets a line per measured run, "K LIMIT ENGINE ROUND N
# IOS": the plugin's window K (its dump after the K-th marker) is that
# run, and IOS the bios the cgroup's io.stat counted for it.
#
#   guest-insn.sh OUTDIR N ROUNDS MARK
set -eu
OUT=${1:?usage: guest-insn.sh OUTDIR N ROUNDS MARK}
N=${2:?}
ROUNDS=${3:?}
MARK=${4:?}
CFS=/sys/kernel/config/nullb
marks=0

mark() {
	"$MARK"
	marks=$((marks + 1))
}

# cgroup v2 with the io controller for children, as bt_cgroup_root does
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -z "$CG" ]; then
	CG=/sys/fs/cgroup
	mount -t cgroup2 none "$CG"
fi
echo +io >"$CG/cgroup.subtree_control"
grep -qw configfs /proc/mounts || mount -t configfs none /sys/kernel/config

# rios of cgroup $1 on disk $2 (MAJ:MIN), from io.stat
rios() {
	awk -v dev="$2" '$1 == dev { for (i = 2; i <= NF; i++)
		if ($i ~ /^rios=/) print substr($i, 6) }' "$1/io.stat"
}

# fio in cgroup $1: $2 IOs on $3 with engine $4 at depth $5. --thread
# and no ETA or disk-util sampling keep fio's own work small and the same
# from run to run; the JSON goes to /tmp (tmpfs), not to the host's
# filesystem, whose replies would come at host-dependent moments.
run_fio() {
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$1" \
		fio --name=insn --filename="$3" --rw=randread --bs=4k \
		--direct=1 --ioengine="$4" --iodepth="$5" --number_ios="$2" \
		--norandommap --randrepeat=1 --thread --eta=never \
		--disk_util=0 --output-format=json --output=/tmp/fio.json
}

# measure LIMIT ENGINE ROUND N CGROUP DISK MAJMIN QD: one run between
# markers, and its line in OUTDIR/windows
measure() {
	local before after
	# idle first: the throttled group's budget fills up again, so that
	# each run starts with the same burst, and what the last run left
	# to do (RCU callbacks, deferred work) is done before the marker
	sleep 1
	before=$(rios "$5" "$7")
	mark
	run_fio "$5" "$4" "$6" "$2" "$8"
	mark
	after=$(rios "$5" "$7")
	echo "$marks $1 $2 $3 $4 $((after - before))" >>"$OUT/windows"
	cp /tmp/fio.json "$OUT/$1-$2-r$3-$4.json"
	echo "$1 $2 round $3: $4 IOs asked, $((after - before)) bios"
}

for limit in nolimit highlimit throttled; do
	# a fresh null_blk disk per limit, as bt_setup_dev makes them, so
	# that "nolimit" is a disk on which no group ever had a limit
	dev=insn-$limit
	mkdir "$CFS/$dev"
	echo 1024 >"$CFS/$dev/size"
	echo 4096 >"$CFS/$dev/blocksize"
	echo 0 >"$CFS/$dev/memory_backed"
	echo 1 >"$CFS/$dev/power"
	for _ in $(seq 50); do
		[ -b "/dev/$dev" ] && break
		sleep 0.1
	done
	majmin=$(cat "/sys/block/$dev/dev")
	cg=$CG/insn-$limit
	mkdir "$cg"
	case $limit in
	highlimit) echo "$majmin riops=100000000 rbps=100000000000" >"$cg/io.max" ;;
	throttled) echo "$majmin riops=2000" >"$cg/io.max" ;;
	esac
	# udev probes the new disk, then its idle workers exit after 3 s:
	# let all of that happen before, not during, the measured runs
	udevadm settle
	sleep 5

	for engine in psync libaio; do
		qd=1
		[ "$engine" = libaio ] && qd=32
		# unmeasured warm-up: the group's first bio on the disk makes
		# its blkg, fio's first run faults its pages in, its second
		# moves them to the active LRU list
		run_fio "$cg" 256 "/dev/$dev" "$engine" "$qd"
		run_fio "$cg" 256 "/dev/$dev" "$engine" "$qd"
		for round in $(seq "$ROUNDS"); do
			if [ $((round % 2)) = 1 ]; then
				sizes="$N $((2 * N))"
			else
				sizes="$((2 * N)) $N"
			fi
			for n in $sizes; do
				measure "$limit" "$engine" "$round" "$n" "$cg" \
					"/dev/$dev" "$majmin" "$qd"
			done
		done
	done
	echo 0 >"$CFS/$dev/power"
	rmdir "$CFS/$dev" "$cg"
done
