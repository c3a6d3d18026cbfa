#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest, under the insn-count plugin (insn-count.sh): fio
# runs of a fixed number of 4 KiB random direct reads, each between two
# markers (MARK, scripts/instruments/insn-mark.c) so that the plugin dumps the
# instructions of that run alone. For each limit on the reading cgroup
#
#   nolimit     no io.max at all (throttling never enabled on the disk)
#   highlimit   riops=100000000 rbps=100000000000, far above the load
#   throttled   riops=2000, far below what the guest can do: held to
#               2000 IOPS (how: see the report's pacing table)
#   paced       riops=500: 2 ms a bio, two jiffies at HZ=1000, so that
#               each bio waits for a timer of its own whatever the
#               throttle's clock (at riops=2000 a jiffies clock lets
#               bios go in pairs)
#   riops20000  riops=20000: ten bios a jiffy
#   rbps1g      rbps=1GiB/s alone: 262144 4 KiB bios a second, more than
#               one vCPU under TCG submits, so a bps bucket always in use
#               and never short
#
# and each engine (psync QD1, libaio QD32), fio runs N IOs and 2N IOs,
# ROUNDS times: what a 2N run costs over an N run is the cost of N IOs,
# fio's own start and exit cancelling out. The order alternates (N then
# 2N, 2N then N, ...) so that what the first run of a pair leaves behind
# (page allocator and LRU state) does not always land on the same one.
#
# Then 100 groups, each with one reader, dd of 4 KiB direct reads (engine
# "dd"; fio is too big to run 100 of), N IOs in all, N/100 each: with no
# limit (nolimit), far above the load (highlimit, as above) and each
# group at riops=200 (groups100).
#
# Last, buffered: dd of N (and 2N) 4 KiB sequential reads of the disk
# through its page cache, the cache dropped before each run, so that
# readahead reads the disk in windows of read_ahead_kb: with no limit on
# the disk (nolimit), with an rbps limit on a sibling group only (sibling:
# throttling is on, the reader's group has no limit) and with rbps far
# above the load (highlimit). What it costs a reader that no limit holds
# back that readahead asks for its budget.
#
# INSN_RA_KB=K sets the disk's read_ahead_kb to K for them: on a disk
# that reads ahead megabytes, so that N reads are enough readahead bios
# to count.
#
# OUTDIR/windows gets a line per measured run, "K LIMIT ENGINE ROUND N
# IOS NS": the plugin's window K (its dump after the K-th marker) is that
# run, IOS the bios the cgroups' io.stat counted for it, and NS the
# guest's ns between the markers (one instruction each, see
# insn-count.sh).
#
#   insn-guest.sh OUTDIR N ROUNDS MARK [PARTS]
#
# PARTS (default "direct groups buffered") picks which of the three to run.
set -eu
OUT=${1:?usage: insn-guest.sh OUTDIR N ROUNDS MARK [PARTS]}
N=${2:?}
ROUNDS=${3:?}
MARK=${4:?}
PARTS=" ${5:-direct groups buffered} "
TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/build/linux/tools/testing/selftests/kselftest/ktap_helpers.sh"
. "$TOP/tools/testing/selftests/blk-throttle/blk_throttle_lib.sh"
marks=0

mark() {
	"$MARK"
	marks=$((marks + 1))
}

# fio in cgroup $1: $2 IOs on the test disk with engine $3 at depth $4. --thread
# and no ETA or disk-util sampling keep fio's own work small and the same
# from run to run; the JSON goes to /tmp (tmpfs), not to the host's
# filesystem, whose replies would come at host-dependent moments.
run_fio() {
	"${BT_IN_CGROUP[@]}" "$1" fio --name=insn --filename="$BT_DEV" \
		--rw=randread --bs=4k --direct=1 --ioengine="$3" --iodepth="$4" \
		--number_ios="$2" \
		--norandommap --randrepeat=1 --thread --eta=never \
		--disk_util=0 --output-format=json --output=/tmp/fio.json
}

# measure LIMIT ENGINE QD ROUND N CGROUP...: one run between markers,
# on the test disk, and its line in OUTDIR/windows; engine dd reads from
# each CGROUP, the others from the one
measure() {
	local before after
	# idle first: the throttled group's budget fills up again, so that
	# each run starts with the same burst, and what the last run left
	# to do (RCU callbacks, deferred work) is done before the marker
	local limit=$1 engine=$2 qd=$3 round=$4 n=$5 before after t0 t1

	shift 5
	[ "$engine" != buffered ] || { sync; echo 3 >/proc/sys/vm/drop_caches; }
	sleep 1
	before=$(rios "$@")
	mark
	t0=$(date +%s%N)
	if [ "$engine" = dd ]; then
		run_groups "$n" "$@"
	elif [ "$engine" = buffered ]; then
		"${BT_IN_CGROUP[@]}" "$1" dd if="$BT_DEV" of=/dev/null bs=4k \
			count="$n" status=none
	else
		run_fio "$1" "$n" "$engine" "$qd"
	fi
	t1=$(date +%s%N)
	mark
	after=$(rios "$@")
	echo "$marks $limit $engine $round $n $((after - before)) $((t1 - t0))" \
		>>"$OUT/windows"
	[ "$engine" = dd ] || [ "$engine" = buffered ] || cp /tmp/fio.json "$OUT/$limit-$engine-r$round-$n.json"
	echo "$limit $engine round $round: $n IOs asked, $((after - before)) bios"
}

# rios CGROUP... - the reads the groups' io.stat counted, in all
rios() {
	local cg n=0

	for cg in "$@"; do
		n=$((n + $(bt_iostat "$cg" rios)))
	done
	echo "$n"
}

# run_groups N CGROUP... - N 4 KiB direct reads in all, an equal share
# by one dd in each CGROUP, all at once
run_groups() {
	local n=$(($1 / ($# - 1))) cg pids=()

	shift
	for cg in "$@"; do
		"${BT_IN_CGROUP[@]}" "$cg" dd if="$BT_DEV" of=/dev/null bs=4k \
			iflag=direct count="$n" status=none &
		pids+=($!)
	done
	wait "${pids[@]}"
}

# rounds LIMIT ENGINE QD CGROUP... - ROUNDS pairs of N and 2N runs, the
# order alternating
rounds() {
	local limit=$1 engine=$2 qd=$3 round n sizes

	shift 3
	for round in $(seq "$ROUNDS"); do
		sizes="$N $((2 * N))"
		[ $((round % 2)) = 1 ] || sizes="$((2 * N)) $N"
		for n in $sizes; do
			measure "$limit" "$engine" "$qd" "$round" "$n" "$@"
		done
	done
}

# set_limit LIMIT CGROUP - give CGROUP the direct reads' LIMIT on the
# test disk (nolimit: none)
set_limit() {
	case $1 in
	highlimit) echo "$BT_MAJMIN riops=100000000 rbps=100000000000" >"$2/io.max" ;;
	throttled) echo "$BT_MAJMIN riops=2000" >"$2/io.max" ;;
	paced) echo "$BT_MAJMIN riops=500" >"$2/io.max" ;;
	riops20000) echo "$BT_MAJMIN riops=20000" >"$2/io.max" ;;
	rbps1g) echo "$BT_MAJMIN rbps=1073741824" >"$2/io.max" ;;
	groups100) echo "$BT_MAJMIN riops=200" >"$2/io.max" ;;
	esac
}

if [[ $PARTS == *" direct "* ]]; then
	for limit in nolimit highlimit throttled paced riops20000 rbps1g; do
		# a fresh null_blk disk per limit, so that "nolimit" is a disk on
		# which no group ever had a limit
		BT_NAME=insn-$limit
		bt_setup_dev
		cg=$(bt_cgroup reader)
		set_limit "$limit" "$cg"
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
			run_fio "$cg" 256 "$engine" "$qd"
			run_fio "$cg" 256 "$engine" "$qd"
			rounds "$limit" "$engine" "$qd" "$cg"
		done
		bt_cleanup
		BT_NULLB=
	done
fi

if [[ $PARTS == *" groups "* ]]; then
	for limit in nolimit highlimit groups100; do
		BT_NAME=insn-groups-$limit
		bt_setup_dev
		cgs=()
		for g in $(seq 100); do
			cg=$(bt_cgroup "r$g")
			set_limit "$limit" "$cg"
			cgs+=("$cg")
		done
		udevadm settle
		sleep 5
		run_groups 10000 "${cgs[@]}"
		rounds "$limit" dd 1 "${cgs[@]}"
		bt_cleanup
		BT_NULLB=
	done
fi

if [[ $PARTS == *" buffered "* ]]; then
	for limit in nolimit sibling highlimit; do
		BT_NAME=insn-buffered-$limit
		bt_setup_dev
		cg=$(bt_cgroup reader)
		case $limit in
		sibling) echo "$BT_MAJMIN rbps=1048576" >"$(bt_cgroup sibling)/io.max" ;;
		highlimit) echo "$BT_MAJMIN rbps=100000000000" >"$cg/io.max" ;;
		esac
		[ -z "${INSN_RA_KB:-}" ] ||
			echo "$INSN_RA_KB" >"/sys/dev/block/$BT_MAJMIN/queue/read_ahead_kb"
		udevadm settle
		sleep 5
		"${BT_IN_CGROUP[@]}" "$cg" dd if="$BT_DEV" of=/dev/null bs=4k \
			count=256 status=none
		rounds "$limit" buffered 1 "$cg"
		bt_cleanup
		BT_NULLB=
	done
fi
