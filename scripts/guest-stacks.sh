#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the guest: guest-bench.sh on the given scenarios, and
# beside it, every 0.3 s, the kernel stack of each task in
# uninterruptible sleep (D) and of each jbd2 thread, with its cgroup, in
# OUTDIR/stacks.txt; each group's dirty and writeback MiB
# (memory.stat) the same way. Where a task that should not wait does:
# scripts/stacks-report.py resolves and counts the stacks.
#
#   guest-stacks.sh OUTDIR SCENARIO.fio...
set -u
OUT=${1:?usage: guest-stacks.sh OUTDIR SCENARIO.fio...}
shift

sample() {
	local pid st comm d

	while :; do
		sleep 0.3
		ps -eo pid=,stat=,comm= |
		while read -r pid st comm; do
			[[ $st == D* || $comm == jbd2/* ]] || continue
			echo "@@ $EPOCHREALTIME $pid $st $comm" \
				"$(cut -d: -f3 "/proc/$pid/cgroup" 2>/dev/null)"
			cat "/proc/$pid/stack" 2>/dev/null
		done
		for d in /sys/fs/cgroup/*/; do
			[ -f "$d/memory.stat" ] || continue
			echo "%% $EPOCHREALTIME $d $(awk '$1 == "file_dirty" ||
				$1 == "file_writeback" { printf "%s=%.1f ",
				$1, $2 / 1048576 }' "$d/memory.stat")"
		done
	done
}

sample >"$OUT/stacks.txt" &
sampler=$!
"$(dirname "$0")/guest-bench.sh" "$OUT" "$@"
rc=$?
kill "$sampler"
exit $rc
