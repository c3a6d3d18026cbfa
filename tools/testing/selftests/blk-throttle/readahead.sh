#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Readahead within the reader's IO budget. A sequential buffered reader
# asks for 4 KiB and waits for the whole readahead window it starts, and
# a window its group's limit cannot issue at once waits at the limit:
# 128 KiB at rbps=1MiB/s is 125 ms, and eight readers' windows queue
# behind each other. Readahead cuts the window to what the limit lets
# through soon, 32 KiB at the least, and keeps one window per reader
# waiting, not two.
#
# On ext4 on the test device, caches dropped, 4 KiB buffered reads with
# no fadvise(2) hint, as most programs read, each run BT_RUNTIME
# seconds, the group's device reads counted in io.stat:
# - one reader at rbps=1MiB/s: its wait for a window (window() below:
#   p99 at most 60 ms, tight: slowest read at most 45 ms; a 32 KiB window
#   takes 31 ms, vanilla's 128 KiB ones 125 ms); device reads of at least
#   28 KiB on average (the cost: up to 4x a 128 KiB window's reads); the
#   rate within 5% (tight: 1%) over the middle half of the run;
# - eight readers in one group at rbps=1MiB/s: slowest read at most 800
#   ms (tight: 400 ms; eight 32 KiB windows take 250 ms); device reads
#   of at least 28 KiB; the rate;
# - rbps=10MiB/s riops=200, one reader: the rate. A window cut below
#   rbps/riops (52 KiB) would let the IO limit hold it under its rbps;
# - riops=100 alone: device reads of at least 56 KiB on average, as with
#   no limit: an IO waits as long at any size, so no window is cut;
# - a group with no limit beside one at rbps=1MiB/s, and one reading a
#   file after a group at rbps=1MiB/s read part of it: device reads of at
#   least 56 KiB on average: only a limited reader is cut, and what it
#   leaves behind changes no other reader's windows;
# - three groups, at rbps=1MiB/s, at rbps=4MiB/s and with no limit,
#   reading three parts of one file through one open file (struct file,
#   and so one readahead state, shared across fork(2)): each limited
#   group's rate within 5% (tight: 1%) of its own limit, the slower one's
#   wait for a window as one reader's above, and the unlimited group's device
#   reads of at least 38 KiB (the others' reads through the shared state
#   shrink its windows on any kernel: 41 KiB on 7.3 with large folios;
#   18 KiB if a cut window were kept in that state): each reader's
#   windows are fitted to its own group's budget, and none is cut for
#   another's;
# - one reader through mmap(2) at rbps=1MiB/s: wait for a window and
#   device reads as above;
# - one reader that hints POSIX_FADV_SEQUENTIAL, as cat and cp do, which
#   doubles the file's readahead to 256 KiB, at rbps=1MiB/s: its windows
#   are cut to a quarter of that, 64 KiB, 62.5 ms at the limit (vanilla's
#   256 KiB ones 250 ms): p99 at most 120 ms, tight: slowest read at most
#   90 ms; device reads of at least 56 KiB on average;
# - one reader through mmap(2) with MADV_SEQUENTIAL (and, from fio, the
#   POSIX_FADV_SEQUENTIAL above), whose faults ask the sync readahead
#   path for a window: its wait as the hinting reader's (vanilla's 256
#   KiB windows 250 ms); device reads of at least 28 KiB on average;
# - eight readers on a dm-linear device over the test device, the limit
#   on the dm device: slowest read and rate as on the bare device;
# - XFS with 64 KiB blocks on the test device (the page cache holds its
#   files in folios of a block at least, CONFIG_TRANSPARENT_HUGEPAGE):
#   one reader at rbps=1MiB/s (for 20 s at least) reads from the device
#   what was written, at the rate, its wait for a window about a block's
#   (64 KiB takes 62.5 ms; its p99 at most 70 ms tight, 125 wide);
# - a disk that reads ahead 8 MiB and takes reads of 4 MiB (7.3 reads
#   ahead twice the largest read of a rotational disk that reports no
#   optimal IO size), one reader at rbps=1MiB/s (for 20 s at least):
#   its windows are cut to a quarter of the disk's, 2 MiB, each read in
#   large folios and so in one device read: slowest read at most 3.5 s
#   (tight: 2.5 s; 2 MiB takes 2 s, vanilla's 8 MiB windows 8 s), device
#   reads of at least 1 MiB on average, and at least 75% of what it read
#   held in the page cache in folios of a huge page (2 MiB windows,
#   aligned). A window read in single pages takes a bio vector a page
#   where the pages do not lie side by side in memory, a bio holds 256
#   vectors, and the disk takes 128 segments: its reads shrink as
#   memory fragments. And a 4 KiB read at the start of a file there, at
#   rbps=1MiB/s: 4 to 64 KiB read from the device, readahead's first
#   window (16 KiB on 7.3), not a cut window of 2 MiB, 2 s of the limit.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

# BT_RUNTIME, but 20 s at least, for the cases whose reads are charged
# in pieces too large for a shorter run (below)
RUNTIME20=$((BT_RUNTIME > 20 ? BT_RUNTIME : 20))

# mkfs_mount DEV - a new ext4 on DEV, mounted on BT_MNT
mkfs_mount() {
	mkfs.ext4 -q -E lazy_itable_init=0,lazy_journal_init=0 -F "$1" \
		>/dev/null 2>&1 && mount "$1" "$BT_MNT"
}

# file_thp_kib - KiB of file pages in folios of a huge page, system-wide
file_thp_kib() {
	awk '$1 == "FileHugePages:" { print $2 }' /proc/meminfo
}

# rates CGROUP... - once reads have started, the B/s each CGROUP is
# charged over the middle half of BT_RUNTIME, a line each
rates() {
	local cg t r i a=() b=()

	bt_sleep "$(awk -v t="$BT_RUNTIME" 'BEGIN { print t / 4 }')"
	for cg; do read -r t r _ < <(bt_charged "$cg"); a+=("$t $r"); done
	bt_sleep "$(awk -v t="$BT_RUNTIME" 'BEGIN { print t / 2 }')"
	for cg; do read -r t r _ < <(bt_charged "$cg"); b+=("$t $r"); done
	for i in "${!a[@]}"; do
		awk -v a="${a[i]}" -v b="${b[i]}" 'BEGIN { split(a, x); split(b, y)
			printf "%.0f\n", (y[2] - x[2]) / (y[1] - x[1]) }'
	done
}

# readers NAME JOBS MIB LIMIT [ENGINE [HINT]] - JOBS sequential 4 KiB
# readers, each of its own file of MIB MiB, in a new group with io.max
# LIMIT on BT_MAJMIN, for BT_RUNTIME seconds after the caches are
# dropped; ENGINE psync (read(2), the default) or mmap; HINT 1 to hint
# sequential reading (fio's fadvise_hint: POSIX_FADV_SEQUENTIAL, or
# MADV_SEQUENTIAL through mmap), 0 (the default) for none. Sets MAX_MS and P99_MS (the slowest
# read and the 99th percentile), READS and MEAN_KIB (the group's device
# reads and their mean size), RATE (B/s charged over the middle half
# of the run) and THP_SHARE (the % of the bytes read that the page cache
# holds in folios of a huge page at the end: FileHugePages).
readers() {
	local name=$1 jobs=$2 mib=$3 limit=$4 engine=${5:-psync} hint=${6:-0}
	local cg out pid thp
	local args=(--name="$name" --directory="$BT_MNT" --rw=read --bs=4k
		    --ioengine="$engine" --fadvise_hint="$hint"
		    --size="${mib}M" --numjobs="$jobs")

	cg=$(bt_cgroup "$name")
	out=$BT_OUTDIR/$BT_NAME-$name.json
	fio --create_only=1 "${args[@]}" >/dev/null 2>&1 ||
		ktap_exit_fail_msg "$name: fio cannot lay out its files"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	thp=$(file_thp_kib)
	[ "$limit" = none ] || echo "$BT_MAJMIN $limit" >"$cg/io.max" ||
		ktap_exit_fail_msg "$name: cannot set io.max $limit on $BT_MAJMIN"
	bt_fio "$cg" "$out" "${args[@]}" --time_based --runtime="$BT_RUNTIME" &
	pid=$!
	# fio's run time starts with its first read, which can come seconds
	# after fio itself on a slow machine
	bt_wait_started "$cg" $((BT_RUNTIME * 2)) ||
		ktap_exit_fail_msg "$name: no read in $((BT_RUNTIME * 2)) s"
	RATE=$(rates "$cg")
	wait "$pid" || ktap_exit_fail_msg "$name: fio failed: $(cat "$out.err")"
	eval "$(bt_stats "$out")"
	MAX_MS=$(awk -v us="$max_us" 'BEGIN { printf "%.1f", us / 1000 }')
	P99_MS=$(awk -v us="$p99_us" 'BEGIN { printf "%.1f", us / 1000 }')
	READS=$(bt_iostat "$cg" rios)
	READS=${READS:-0}
	MEAN_KIB=$(bt_mean_read_kib "$cg")
	THP_SHARE=$(awk -v a="$thp" -v b="$(file_thp_kib)" \
		-v r="$(bt_iostat "$cg" rbytes)" \
		'BEGIN { printf "%.0f", r ? (b - a) * 1024 * 100 / r : 0 }')
	ktap_print_msg "$name: $jobs x $engine (hint $hint), io.max $limit: slowest read" \
		"$MAX_MS ms, p99 $P99_MS ms; $READS device reads of $MEAN_KIB KiB;" \
		"$RATE B/s over the middle half; $THP_SHARE% of it read in huge pages"
	rm -rf "${BT_MNT:?}/$name".*
}

# window DESC MAX_MS P99_MS [TIGHT WIDE] - a reader's wait for its
# window at rbps=1MiB/s. With 32 KiB windows every 8th 4 KiB read
# (12.5%) waits 31 ms; with vanilla's 128 KiB windows every 32nd (3%)
# waits 125 ms; either is the p99. Tight: the slowest read, at most
# TIGHT ms (45). Wide (a host's clock, where one stall of the machine can
# be any run's slowest read): the p99, at most WIDE ms (60).
window() {
	case ${BLK_THROTTLE_BOUNDS:-wide} in
	tight) bt_at_most "$1, wait for a window (slowest read)" "$2" "${4:-45}" ms ;;
	*) bt_at_most "$1, wait for a window (p99 read)" "$3" "${5:-60}" ms ;;
	esac
}

ktap_print_header
bt_require
bt_require_nullb "readahead.sh makes filesystems"
BT_MEMORY_BACKED=1 bt_setup_dev
ktap_set_plan 29
mkdir -p "$BT_MNT"
NULLB_DEV=$BT_DEV
NULLB_MAJMIN=$BT_MAJMIN
mkfs_mount "$BT_DEV" || ktap_exit_fail_msg "cannot make ext4"

readers one 1 "$((BT_RUNTIME * 2))" rbps=1048576
window "one reader at rbps=1MiB/s" "$MAX_MS" "$P99_MS"
bt_between "one reader at rbps=1MiB/s, mean device read" "$MEAN_KIB" 28 1024 KiB
bt_within "one reader at rbps=1MiB/s, rate" "$RATE" 1048576 "$(bt_bound 1 5)" B/s

readers eight 8 "$BT_RUNTIME" rbps=1048576
bt_at_most "eight readers at rbps=1MiB/s, slowest read" "$MAX_MS" \
	"$(bt_bound 400 800)" ms
bt_between "eight readers at rbps=1MiB/s, mean device read" "$MEAN_KIB" 28 1024 KiB
bt_within "eight readers at rbps=1MiB/s, rate" "$RATE" 1048576 "$(bt_bound 1 5)" B/s

readers both 1 "$((BT_RUNTIME * 15))" "rbps=10485760 riops=200"
bt_within "one reader at rbps=10MiB/s riops=200, rate" "$RATE" 10485760 \
	"$(bt_bound 1 5)" B/s

readers iops 1 64 riops=100
bt_between "one reader at riops=100, mean device read" "$MEAN_KIB" 56 1024 KiB

# a group at rbps=1MiB/s reads beside the one with no limit
cg=$(bt_cgroup sibling)
echo "$BT_MAJMIN rbps=1048576" >"$cg/io.max"
"${BT_IN_CGROUP[@]}" "$cg" fio --name=sibling --directory="$BT_MNT" --rw=read \
	--bs=4k --size=64M --time_based --runtime=$((BT_RUNTIME + 5)) \
	>/dev/null 2>&1 &
sibling=$!
readers free 1 64 none
kill "$sibling" 2>/dev/null
wait "$sibling"
bt_between "no limit, beside a group at rbps=1MiB/s, mean device read" \
	"$MEAN_KIB" 56 1024 KiB

# a reader with no limit reads a file that one at rbps=1MiB/s has read
# the first quarter of
lim=$(bt_cgroup after-limited)
free=$(bt_cgroup after-free)
echo "$BT_MAJMIN rbps=1048576" >"$lim/io.max"
head -c 16M /dev/zero >"$BT_MNT/after"
sync
echo 3 >/proc/sys/vm/drop_caches
"${BT_IN_CGROUP[@]}" "$lim" dd if="$BT_MNT/after" of=/dev/null bs=4k \
	count=1024 status=none || ktap_exit_fail_msg "dd failed"
"${BT_IN_CGROUP[@]}" "$free" dd if="$BT_MNT/after" of=/dev/null bs=4k \
	status=none || ktap_exit_fail_msg "dd failed"
rios=$(bt_iostat "$free" rios)
mean=$(bt_mean_read_kib "$free")
ktap_print_msg "after: ${rios:-0} device reads of $mean KiB with no limit," \
	"$(bt_iostat "$lim" rios) at rbps=1MiB/s before"
bt_between "no limit, after a reader at rbps=1MiB/s of the same file, mean device read" \
	"$mean" 56 1024 KiB
rm -f "$BT_MNT/after"

# three groups read through one open file, each from its own offset,
# far enough apart that none finds another's pages cached (uncharged):
# one at rbps=1MiB/s, one at 4MiB/s, and one with no limit that pauses
# a millisecond after each read, to read all along beside the others
slow=$(bt_cgroup shared-1m)
fast=$(bt_cgroup shared-4m)
free=$(bt_cgroup shared-free)
echo "$BT_MAJMIN rbps=1048576" >"$slow/io.max"
echo "$BT_MAJMIN rbps=4194304" >"$fast/io.max"
off_fast=$(( (BT_RUNTIME * 2 + 8) << 20 ))
off_free=$(( off_fast + ((BT_RUNTIME * 8 + 8) << 20) ))
head -c $(( off_free + ((BT_RUNTIME * 4 + 8) << 20) )) /dev/zero \
	>"$BT_MNT/shared" ||
	ktap_exit_fail_msg "shared: cannot write the file"
sync
echo 3 >/proc/sys/vm/drop_caches
python3 - "$BT_MNT/shared" "$BT_RUNTIME" "$slow" 0 0 "$fast" "$off_fast" 0 \
	"$free" "$off_free" 0.001 >"$BT_OUTDIR/$BT_NAME-shared" <<-'PY' &
	import os, signal, sys, time
	fd = os.open(sys.argv[1], os.O_RDONLY)
	kids = []
	for i in range(3, len(sys.argv), 3):
	    cg, off, pause = sys.argv[i:i + 3]
	    kids.append(os.fork())
	    if kids[-1] == 0:
	        with open(cg + "/cgroup.procs", "w") as f:
	            f.write(str(os.getpid()))
	        off, pause, waits = int(off), float(pause), []
	        end = time.monotonic() + float(sys.argv[2])
	        while time.monotonic() < end:
	            t = time.monotonic()
	            if len(os.pread(fd, 4096, off)) < 4096:
	                sys.exit("end of the file at %d" % off)
	            waits.append(time.monotonic() - t)
	            off += 4096
	            if pause:
	                time.sleep(pause)
	        waits.sort()
	        print(os.path.basename(cg), "%.1f" % (waits[-1] * 1000),
	              "%.1f" % (waits[(len(waits) * 99 - 1) // 100] * 1000))
	        sys.exit(0)
	while kids:
	    pid, st = os.wait()
	    kids.remove(pid)
	    if st:
	        for pid in kids:
	            os.kill(pid, signal.SIGKILL)
	        sys.exit(1)
	PY
pid=$!
bt_wait_started "$slow" $((BT_RUNTIME * 2)) ||
	ktap_exit_fail_msg "shared: no read in $((BT_RUNTIME * 2)) s"
{ read -r rate_slow; read -r rate_fast; } < <(rates "$slow" "$fast")
wait "$pid" || ktap_exit_fail_msg "shared: a reader failed"
max_slow=$(awk '$1 ~ /-shared-1m$/ { print $2 }' "$BT_OUTDIR/$BT_NAME-shared")
p99_slow=$(awk '$1 ~ /-shared-1m$/ { print $3 }' "$BT_OUTDIR/$BT_NAME-shared")
max_fast=$(awk '$1 ~ /-shared-4m$/ { print $2 }' "$BT_OUTDIR/$BT_NAME-shared")
mean=$(bt_mean_read_kib "$free")
rios=$(bt_iostat "$free" rios)
ktap_print_msg "shared: rbps=1MiB/s $rate_slow B/s, slowest read $max_slow ms," \
	"p99 $p99_slow ms," \
	"$(bt_iostat "$slow" rios) device reads of $(bt_mean_read_kib "$slow") KiB;" \
	"rbps=4MiB/s $rate_fast B/s, slowest read $max_fast ms," \
	"$(bt_iostat "$fast" rios) device reads of $(bt_mean_read_kib "$fast") KiB;" \
	"no limit: ${rios:-0} device reads of $mean KiB"
bt_within "one open file, the group at rbps=1MiB/s, rate" "$rate_slow" \
	1048576 "$(bt_bound 1 5)" B/s
bt_within "one open file, the group at rbps=4MiB/s, rate" "$rate_fast" \
	4194304 "$(bt_bound 1 5)" B/s
window "one open file, the group at rbps=1MiB/s" "${max_slow:-99999}" \
	"${p99_slow:-99999}"
bt_between "one open file, the group with no limit, mean device read" \
	"$mean" "$(bt_bound 38 30)" 1024 KiB
rm -f "$BT_MNT/shared" "$BT_OUTDIR/$BT_NAME-shared"

readers mmap 1 "$((BT_RUNTIME * 2))" rbps=1048576 mmap
window "one reader through mmap at rbps=1MiB/s" "$MAX_MS" "$P99_MS"
bt_between "one reader through mmap at rbps=1MiB/s, mean device read" \
	"$MEAN_KIB" 28 1024 KiB

readers fadv 1 "$((BT_RUNTIME * 2))" rbps=1048576 psync 1
window "one reader hinting POSIX_FADV_SEQUENTIAL at rbps=1MiB/s" "$MAX_MS" \
	"$P99_MS" 90 120
bt_between "one reader hinting POSIX_FADV_SEQUENTIAL at rbps=1MiB/s, mean device read" \
	"$MEAN_KIB" 56 1024 KiB

readers madv 1 "$((BT_RUNTIME * 2))" rbps=1048576 mmap 1
window "one reader through mmap with MADV_SEQUENTIAL at rbps=1MiB/s" \
	"$MAX_MS" "$P99_MS" 90 120
bt_between "one reader through mmap with MADV_SEQUENTIAL at rbps=1MiB/s, mean device read" \
	"$MEAN_KIB" 28 1024 KiB

umount "$BT_MNT" || ktap_exit_fail_msg "cannot unmount"
if bt_make_linear "$NULLB_DEV" "$NULLB_MAJMIN"; then
	BT_MAJMIN=$BT_LINEAR_MAJMIN
	mkfs_mount "$BT_LINEAR_DEV" || ktap_exit_fail_msg "cannot make ext4 on dm"
	readers dm 8 "$BT_RUNTIME" rbps=1048576
	bt_at_most "eight readers on dm-linear, the limit on it, slowest read" \
		"$MAX_MS" "$(bt_bound 400 800)" ms
	bt_within "eight readers on dm-linear, the limit on it, rate" "$RATE" \
		1048576 "$(bt_bound 1 5)" B/s
	umount "$BT_MNT" || ktap_exit_fail_msg "cannot unmount"
	bt_remove_linear
	BT_MAJMIN=$NULLB_MAJMIN
else
	ktap_test_skip "eight readers on dm-linear, slowest read (no dmsetup or CONFIG_BLK_DEV_DM)"
	ktap_test_skip "eight readers on dm-linear, rate (no dmsetup or CONFIG_BLK_DEV_DM)"
fi

# blocks larger than a page: no window is cut below a block
lbs="XFS with 64 KiB blocks, one reader at rbps=1MiB/s"
if command -v mkfs.xfs >/dev/null && grep -qw xfs /proc/filesystems &&
   [ -d /sys/kernel/mm/transparent_hugepage ]; then
	mkfs.xfs -q -f -b size=65536 "$NULLB_DEV" >/dev/null ||
		ktap_exit_fail_msg "cannot make XFS with 64 KiB blocks"
	mount -t xfs "$NULLB_DEV" "$BT_MNT" ||
		ktap_exit_fail_msg "cannot mount XFS with 64 KiB blocks"
	# 20 s at least: a block is charged whole, 62.5 ms of the limit,
	# 1.25% of the middle half of a 10 s run (the rate once read 1.08%
	# over on the virtual clock so)
	BT_RUNTIME=$RUNTIME20 readers lbs 1 $((RUNTIME20 * 2)) rbps=1048576
	# a block of 64 KiB is 62.5 ms of the limit: the p99 is that wait
	# (the slowest read, one event, was once 95 ms on the virtual clock)
	bt_at_most "$lbs, wait for a window (p99 read)" "$P99_MS" \
		"$(bt_bound 70 125)" ms
	bt_within "$lbs, rate" "$RATE" 1048576 "$(bt_bound 1 5)" B/s
	read -r want _ < <(head -c 4M /dev/urandom | tee "$BT_MNT/data" |
			  sha256sum)
	sync
	echo 3 >/proc/sys/vm/drop_caches
	cg=$(bt_cgroup lbs-data)
	echo "$BT_MAJMIN rbps=1048576" >"$cg/io.max"
	read -r got _ < <("${BT_IN_CGROUP[@]}" "$cg" dd if="$BT_MNT/data" \
			 bs=4k status=none | sha256sum)
	rbytes=$(bt_iostat "$cg" rbytes)
	ktap_print_msg "lbs: $(bt_iostat "$cg" rios) device reads of" \
		"$(bt_mean_read_kib "$cg") KiB for 4 MiB"
	# from the device, not from pages the caches kept
	same=false
	[ "$got" = "$want" ] && [ "${rbytes:-0}" -ge $((4 << 20)) ] && same=true
	bt_judge "$lbs, the data read from the device is the data written" "$same"
	umount "$BT_MNT" || ktap_exit_fail_msg "cannot unmount"
else
	why="no mkfs.xfs, CONFIG_XFS_FS or CONFIG_TRANSPARENT_HUGEPAGE"
	for c in "wait for a window (p99 read)" rate \
		 "the data read from the device is the data written"; do
		ktap_test_skip "$lbs, $c ($why)"
	done
fi

# a disk that reads ahead 8 MiB and takes 4 MiB in a read
big=$BT_NAME-8m
BT_MAX_SECTORS=8192 BT_MEMORY_BACKED=1 bt_make_nullb "$big"
echo 8192 >"/sys/block/$big/queue/read_ahead_kb" ||
	ktap_exit_fail_msg "cannot read ahead 8 MiB on /dev/$big"
[ "$(cat "/sys/block/$big/queue/max_sectors_kb")" = 4096 ] ||
	ktap_exit_fail_msg "/dev/$big does not take 4 MiB in a read"
mkfs_mount "/dev/$big" || ktap_exit_fail_msg "cannot make ext4 on /dev/$big"
BT_MAJMIN=$(cat "/sys/block/$big/dev")
# 20 s at least: a window of 8 MiB comes after readahead's ramp and
# takes 8 s at the limit
BT_RUNTIME=$RUNTIME20 readers big 1 $((RUNTIME20 * 2)) rbps=1048576
ra8m="reading ahead 8 MiB, one reader at rbps=1MiB/s"
bt_at_most "$ra8m, slowest read" "$MAX_MS" "$(bt_bound 2500 3500)" ms
bt_between "$ra8m, mean device read" "$MEAN_KIB" 1024 4096 KiB
# (FileHugePages counts every file's, nothing else reads meanwhile, and
# a window waiting at the limit is in the page cache before it is read)
if [ -n "$(file_thp_kib)" ]; then
	bt_between "$ra8m, read into huge pages" "$THP_SHARE" 75 150 %
else
	ktap_test_skip "$ra8m, read into huge pages (no CONFIG_TRANSPARENT_HUGEPAGE)"
fi
# a file's first read: readahead's own window; the inode is read
# beforehand, outside the group
head -c 16M /dev/zero >"$BT_MNT/head"
sync
echo 3 >/proc/sys/vm/drop_caches
stat "$BT_MNT/head" >/dev/null
cg=$(bt_cgroup head)
echo "$BT_MAJMIN rbps=1048576" >"$cg/io.max"
"${BT_IN_CGROUP[@]}" "$cg" dd if="$BT_MNT/head" of=/dev/null bs=4k count=1 \
	status=none || ktap_exit_fail_msg "dd failed"
rbytes=$(bt_iostat "$cg" rbytes)
ktap_print_msg "head: $(bt_iostat "$cg" rios) device reads of" \
	"$(bt_mean_read_kib "$cg") KiB for 4 KiB"
bt_between "$ra8m, a 4 KiB read at a file's start, read from the device" \
	$(( ${rbytes:-0} >> 10 )) 4 64 KiB
umount "$BT_MNT" || ktap_exit_fail_msg "cannot unmount"
BT_MAJMIN=$NULLB_MAJMIN

ktap_finished
