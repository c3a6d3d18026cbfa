#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest: each bench/NAME.fio scenario on a fresh null_blk
# device in a fresh cgroup. A scenario's header comments say how:
#
#   ; nullb: mbps=4 memory_backed=1    null_blk configfs attributes (any
#                                      of them: irqmode=2, rotational=1)
#   ; io.max: riops=100 rbps=max       the cgroup's limit on the device
#   ; fs: ext4                         make this filesystem on the device
#                                      and mount it; the job reads files
#                                      in ${BENCH_DIR}, laid out before
#                                      the run and dropped from the cache
#   ; sibling io.max: rbps=1048576     a limit on a sibling cgroup (so
#                                      the device's throttling is active
#                                      while the job's group has none)
#   ; latlog: off                      no per-IO latency log (for
#                                      scenarios of many IOs, where
#                                      logging would cost throughput)
#
#   ; rounds: 2                        run it twice, the second time
#                                      after all the others (so that
#                                      pairs of scenarios alternate)
#   ; groups: 100                      give the job's io.max to each of
#                                      100 cgroups and run one fio job
#                                      in each (fio's cgroup option)
#   ; memory.max: 256M                 enable the memory controller (so
#                                      that cgroup writeback charges
#                                      the group's buffered writes to
#                                      it) and give the group this limit
#   ; others: on                       run the job [others] in a sibling
#                                      group with no limit, and beside
#                                      it bench-meta.py (mkdir, create,
#                                      rename, each fsynced), timed in
#                                      OUTDIR/NAME.rN.meta
#   ; others: job                      the job [others] alone, with no
#                                      metadata operations
#
# Results: OUTDIR/NAME.rN.json (fio JSON of round N),
# OUTDIR/NAME.rN_clat.*.log (per-IO completion latencies, for the plots),
# OUTDIR/NAME.rN.cost, what the middle half of the run cost the guest (see
# cost_snap; all of it for a job done in a quarter of BENCH_RUNTIME),
# OUTDIR/NAME.rN.iostat, "RIOS RBYTES WIOS WBYTES": the reads and writes
# the job's cgroup (with its child groups) issued to the device, from
# io.stat, OUTDIR/NAME.rN.disk, the device's "READS SECTORS WRITES
# SECTORS" before and after (/sys/block's stat: the requests it completed,
# every group's, after the IO scheduler merged bios into them), and
# OUTDIR/NAME.rN.charged, "SECONDS RBYTES WBYTES" a second
# from its first IO on: what the group was charged as the run went.
# OUTDIR/idle.cost is the cost of 5 s of an idle guest, first.
# BLK_THROTTLE_TEST_DEV=DEV runs them all on DEV instead of null_blk (the
# selftests' library; bench.sh's BENCH_DISK=virtio sets it).
#
# A buffered writer (a wbps limit) can be held in dirty throttling for
# minutes after its time is up, until what its group has dirty and under
# writeback drains at the limit. Five seconds after its time its limits
# are lifted, so that it ends: OUTDIR/NAME.rN.released holds that second,
# and its charge and io.stat are those it had then; a write(2) still held
# counts its latency to its release.
#
#   bench-guest.sh OUTDIR [SCENARIO.fio...]
#
# With no SCENARIO, those listed in OUTDIR/runs, one a line.
# It runs on your own machine too (bench-here.sh): BENCH_READONLY=1 then
# gives fio --readonly, and KSRC a kernel tree for the kselftests' KTAP
# helpers, if build/linux is not there.
# BENCH_PROGRESS="KERNEL DONE TOTAL": the kernel's name and where its runs
# stand in the whole benchmark, for the line each run prints as it ends
# (its headline figure; the time left at this guest's pace so far).
set -u
OUT=${1:?}
shift
if [ $# -eq 0 ]; then
	mapfile -t runs <"$OUT/runs"
	set -- "${runs[@]}"
fi
TOP=$(cd "$(dirname "$0")/../.." && pwd)
LINUX=$TOP/build/linux
. "${KSRC:-$LINUX}/tools/testing/selftests/kselftest/ktap_helpers.sh"
. "$TOP/tools/testing/selftests/blk-throttle/blk_throttle_lib.sh"
export BENCH_RUNTIME=${BENCH_RUNTIME:-20}

# lift CGROUP [MEMORY.MAX] - take the group's limits off (io.max, and
# memory.max if it was given one)
lift() {
	echo "$BT_MAJMIN rbps=max wbps=max riops=max wiops=max" >"$1/io.max"
	[ -z "${2:-}" ] || echo max >"$1/memory.max"
}

# ms US - microseconds as milliseconds, to two digits below 10 ms
ms() { awk -v us="$1" 'BEGIN { printf us < 10000 ? "%.2f" : "%.1f", us / 1000 }'; }

# iostat_snap CGROUP... - "RIOS RBYTES WIOS WBYTES" from the groups'
# io.stat, summed
iostat_snap() {
	local cg k sum out=()

	for k in rios rbytes wios wbytes; do
		sum=0
		for cg; do
			sum=$((sum + $(bt_iostat "$cg" "$k") + 0))
		done
		out+=("$sum")
	done
	echo "${out[*]}"
}

# disk_snap - "READS SECTORS WRITES SECTORS" the device completed (its
# /sys/block stat): requests, after the scheduler merged bios
disk_snap() {
	awk '{ print $1, $3, $5, $7 }' \
		"/sys/class/block/$(basename "$(readlink -f "$BT_DEV")")/stat"
}

# io_record STEM DISK0 CGROUP... - STEM.iostat, the groups' io.stat, and
# STEM.disk, the device's requests from DISK0 (a disk_snap) to now
io_record() {
	local stem=$1 disk0=$2

	shift 2
	iostat_snap "$@" >"$stem.iostat"
	echo "$disk0 $(disk_snap)" >"$stem.disk"
}

# cost_snap - "SECONDS TIMERS SYS TOTAL CTXT": the time; the timer
# softirqs run so far (bt_timer_softirqs: the throttle's dispatch timer
# is a timer_list in vanilla and a soft hrtimer in the series); the
# system (with irq and softirq) and the total CPU ticks, and the context
# switches, in /proc/stat
cost_snap() {
	echo "$EPOCHREALTIME" "$(bt_timer_softirqs)" "$(awk '
		$1 == "cpu" { t = $4 + $7 + $8 " " $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }
		$1 == "ctxt" { c = $2 }
		END { print t, c }' /proc/stat)"
}

bt_require
rc=0
read -r bkernel bdone btotal <<<"${BENCH_PROGRESS:-$(uname -r) 0 $#}"
t0=$EPOCHSECONDS
nth=0
before=$(cost_snap)
bt_sleep 5
echo "$before $(cost_snap)" >"$OUT/idle.cost"
nproc >"$OUT/vcpus"
for job in "$@"; do
	nth=$((nth + 1))
	name=$(basename "$job" .fio)
	nullb=$(sed -n 's/^; nullb: //p' "$job")
	limit=$(sed -n 's/^; io.max: //p' "$job")
	sibling=$(sed -n 's/^; sibling io.max: //p' "$job")
	groups=$(sed -n 's/^; groups: //p' "$job")
	fs=$(sed -n 's/^; fs: //p' "$job")
	memmax=$(sed -n 's/^; memory.max: //p' "$job")
	others=$(sed -n 's/^; others: //p' "$job")

	BT_NAME=bench-$name
	BT_MEMORY_BACKED=0
	mbps=0
	attrs=
	for kv in $nullb; do
		case $kv in
		mbps=*) mbps=${kv#mbps=} ;;
		memory_backed=*) BT_MEMORY_BACKED=${kv#memory_backed=} ;;
		*) attrs="$attrs $kv" ;;
		esac
	done
	bt_setup_dev "$mbps"
	if [ -n "$attrs" ] && [ -n "$BT_NULLB" ]; then
		# the library powers the device on with its size, block size,
		# mbps and memory_backed; null_blk takes the rest powered off
		echo 0 >"$BT_NULLB/power"
		for kv in $attrs; do
			echo "${kv#*=}" >"$BT_NULLB/${kv%%=*}"
		done
		echo 1 >"$BT_NULLB/power"
		bt_wait_bdev "$BT_DEV" || echo "   $BT_DEV did not come back"
		BT_MAJMIN=$(cat "/sys/block/$BT_NAME/dev")
	fi
	# the job file fio runs: the scenario's, with a section for each of
	# the groups and the neighbour's cgroup
	cg=$(bt_cgroup "$name")
	iocgs=("$cg")
	run=$job
	if [ -n "$groups" ] || [ -n "$others" ]; then
		run=/tmp/$BT_NAME.fio
		cp "$job" "$run"
	fi
	if [ -n "$groups" ]; then
		# fio runs in $cg, its jobs in the groups (whose paths fio
		# takes from the cgroup2 mount, $BT_CGROOT)
		for g in $(seq "$groups"); do
			gcg=$(bt_cgroup "g$g")
			iocgs+=("$gcg")
			echo "$BT_MAJMIN $limit" >"$gcg/io.max"
			printf '[g%d]\ncgroup=%s\n' "$g" "${gcg#"$BT_CGROOT"/}" >>"$run"
		done
	elif [ -n "$limit" ]; then
		echo "$BT_MAJMIN $limit" >"$cg/io.max"
	fi
	[ -z "$sibling" ] || echo "$BT_MAJMIN $sibling" >"$(bt_cgroup sibling)/io.max"
	if [ -n "$memmax" ]; then
		# the memory controller beside io, as systemd enables it: the
		# group's dirty pages are its own, and their writeback its
		grep -qw memory "$BT_CGROOT/cgroup.subtree_control" ||
			echo +memory >"$BT_CGROOT/cgroup.subtree_control"
		echo "$memmax" >"$cg/memory.max"
	fi
	ocg=
	if [ -n "$others" ]; then
		ocg=$(bt_cgroup others)
		sed -i "/^\[others\]/a cgroup=${ocg#"$BT_CGROOT"/}" "$run"
	fi
	export BENCH_DEV=$BT_DEV BENCH_DIR=
	mnt=
	if [ -n "$fs" ]; then
		mnt=/tmp/$BT_NAME-mnt
		mkdir -p "$mnt"
		# ext4's inode tables and journal zeroed now, not by
		# ext4lazyinit during the run: it zeroes a group's inode
		# table holding a journal handle, which a commit, so an
		# fsync, may wait for (the kselftests' mkfs, too)
		opts=(-F -E lazy_itable_init=0,lazy_journal_init=0)
		[ "$fs" != xfs ] || opts=(-f)
		if ! mkfs."$fs" -q "${opts[@]}" "$BT_DEV" >/dev/null ||
		   ! mount "$BT_DEV" "$mnt"; then
			echo "   cannot make $fs on $BT_DEV"
			rc=1
			bt_cleanup
			continue
		fi
		BENCH_DIR=$mnt
		# every job's files laid out, from here, not the groups
		grep -v '^cgroup=' "$run" | fio --create_only=1 - >/dev/null
		[ "$others" != on ] || mkdir -p "$mnt/meta"
		# written back and dropped: the reads go to the device, and no
		# writeback of the layout runs beside the scenario
		sync
		echo 3 >/proc/sys/vm/drop_caches
	fi

	# a scenario given twice runs twice: NAME.r1.json, NAME.r2.json, ...
	r=1
	while [ -e "$OUT/$name.r$r.json" ] || [ -e "$OUT/$name.r$r.oom" ]; do
		r=$((r + 1))
	done
	res=$OUT/$name.r$r.json
	latlog=(--write_lat_log="$OUT/$name.r$r" --log_avg_msec=0)
	grep -q '^; latlog: off' "$job" && latlog=()
	[ "${BENCH_READONLY:-0}" != 1 ] || latlog+=(--readonly)

	nb=" (null_blk: ${nullb:-defaults})"
	[ -z "${BLK_THROTTLE_TEST_DEV:-}" ] || nb=
	echo "== $name (round $r): io.max '$limit' on $BT_DEV${fs:+ ($fs)}$nb, ${BENCH_RUNTIME}s"
	# the costs over the middle half of the reads: not fio's start-up
	# (a hundred jobs take seconds to start) nor its exit; over all of
	# the reads for a job that is done before a quarter of the time.
	# fio's exit status comes down a pipe, whose read also waits for it
	disk0=$(disk_snap)
	exec {fiofd}< <(bt_fio "$cg" "$res" "${latlog[@]}" "$run"; echo "$?")
	reader=$cg
	[ -z "$groups" ] || reader=$BT_CGROOT/$BT_NAME-g1
	fiorc=
	while [ -z "$fiorc" ] && ! bt_started "$reader"; do
		# a read that fails within its time is at the end of the pipe
		read -rt 0.1 -u "$fiofd" fiorc || [ $? -gt 128 ] || fiorc=eof
	done
	metapid=
	[ -z "$ocg" ] || [ "$others" = job ] || {
		"${BT_IN_CGROUP[@]}" "$ocg" python3 "$TOP/scripts/pipeline/bench-meta.py" \
			"$mnt/meta" "$BENCH_RUNTIME" "$OUT/$name.r$r.meta" &
		metapid=$!
	}
	# a second at a time, what the group is charged; the costs from a
	# quarter of the run time to three quarters
	before=$(cost_snap)
	after=
	i=0
	release=
	released=
	[[ "$limit" != *wbps=* ]] || release=$((BENCH_RUNTIME + 5))
	while [ -z "$fiorc" ]; do
		[ -n "$released" ] || bt_charged "$cg"
		read -rt 1 -u "$fiofd" fiorc || [ $? -gt 128 ] || fiorc=eof
		i=$((i + 1))
		[ "$i" != "$((BENCH_RUNTIME / 4))" ] || before=$(cost_snap)
		[ "$i" != "$((BENCH_RUNTIME * 3 / 4))" ] || after=$(cost_snap)
		if [ -z "$fiorc" ] && [ "$i" = "$release" ]; then
			io_record "$OUT/$name.r$r" "$disk0" "${iocgs[@]}"
			lift "$cg" "$memmax"
			echo "$i" >"$OUT/$name.r$r.released"
			released=1
		fi
	done >"$OUT/$name.r$r.charged"
	echo "$before ${after:-$(cost_snap)}" >"$OUT/$name.r$r.cost"
	[ -z "$metapid" ] || wait "$metapid" || fiorc=meta
	# the memory controller's OOM kills in the group (memory.events):
	# an outcome the scenario measures, not a failure of the run; a
	# round whose fio they ended has no figures, only NAME.rN.oom
	kills=0
	[ -z "$memmax" ] ||
		kills=$(awk '$1 == "oom_kill" { print $2 }' "$cg/memory.events")
	if [ "${kills:-0}" -gt 0 ]; then
		echo "$kills" >"$OUT/$name.r$r.oom"
		echo "   the memory controller killed $kills of the group's tasks (memory.events oom_kill)"
		case $fiorc in
		0|meta) ;;
		*)	echo "   fio: $(cat "$res.err")"
			rm -f "$res" "$OUT/$name.r${r}_clat."*.log
			fiorc=oom ;;
		esac
	fi
	if [ "$fiorc" = 0 ]; then
		[ -n "$released" ] || io_record "$OUT/$name.r$r" "$disk0" "${iocgs[@]}"
		eval "$(bt_stats "$res")"
		spent=$((EPOCHSECONDS - t0))
		left=$(( spent * (btotal - bdone - nth) / nth ))
		printf 'bench: %s %d/%d %s: %s IOPS, %s KiB/s, p99 %s ms, max %s ms; %dm%02ds in this guest, about %dm left\n' \
			"$bkernel" $((bdone + nth)) "$btotal" "$name" "$iops" \
			"$bw_kib_s" "$(ms "$p99_us")" "$(ms "$max_us")" \
			$((spent / 60)) $((spent % 60)) $(( (left + 59) / 60 ))
	elif [ "$fiorc" != oom ]; then
		echo "   fio failed: $(cat "$res.err")"
		rc=1
	fi
	exec {fiofd}<&-
	rm -f "$OUT/$name.r${r}_lat."*.log "$OUT/$name.r${r}_slat."*.log
	# what the group left dirty goes at the device's speed
	lift "$cg" "$memmax"
	if [ -n "$mnt" ]; then
		# a task the memory controller killed may hold the mount a
		# while longer, until the writeback it waits for is done
		for _ in $(seq 59); do
			umount "$mnt" 2>/dev/null && break
			sleep 1
		done
		{ ! mountpoint -q "$mnt" || umount "$mnt"; } && rmdir "$mnt" || rc=1
	fi
	[ "$run" = "$job" ] || rm -f "$run"
	bt_cleanup
	BT_NULLB=
done
exit $rc
