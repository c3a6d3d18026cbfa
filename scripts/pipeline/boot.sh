#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a kernel image with virtme-ng on the host's root filesystem (read
# only; OUTDIR is the guest's writable directory) and run a command in it.
#
#   boot.sh IMAGE OUTDIR COMMAND...
#
# The guest's console goes to OUTDIR/console.log and the command's output
# to our stdout and OUTDIR/guest.log, and to OUTDIR/guest-host-times.log
# with the host's seconds since the boot began before each line (where
# a slow guest spent its time). The exit status is the command's.
# A guest that panics, prints a splat (BUG, WARNING, Oops, KASAN, UBSAN,
# lockdep, hung task) or hangs fails, console kept. BOOT_TIMEOUT is what
# the guest is expected to take: past it, a guest whose command has
# printed nothing for BOOT_STALL seconds (default 600) is killed as hung,
# one still printing is left to finish, up to three times BOOT_TIMEOUT.
#
# One failure is retried, and only one: under software emulation, QEMU's
# TCG can race the kernel's boot-time code patching across vCPUs and the
# guest dies with "Oops: int3" before init runs (seen on vanilla 7.3 in
# hrtimer_start_range_ns). Such a splat before the guest's first line is
# counted as an emulator flake: the log is kept as console-flake-N.log, a
# warning is printed, and the guest is booted again, up to BOOT_TRIES
# times. A splat of any other kind, or any splat once the guest is up, is
# never retried.
#
# Under TCG the guest boots with no_timer_check. The kernel's boot-time
# test of the IO-APIC timer waits 40e9/HZ TSC cycles for four ticks; the
# emulated TSC follows the host's clock, and a host that steals the
# emulator's CPU meanwhile delays the ticks past it, so the guest panics
# with "IO-APIC + timer doesn't work!" on a timer that works (seen at 25%
# steal). A KVM guest sets no_timer_check itself (paravirt_ops_setup in
# arch/x86/kernel/kvm.c); an emulated one cannot tell it is virtual.
#
# OUTDIR/host-steal-percent: the share of the machine's CPU time its own
# hypervisor stole while the guest ran (/proc/stat); over 10% is warned
# about, since timings taken on the host's clock then stall with it
# (make bench reports it beside its figures; on QEMU's virtual clock,
# where make test judges times, it changes nothing the guest measures).
# OUTDIR/clocksource: the clocksource the guest ended on (make bench
# reports it too), with a warning if the guest marked one unstable.
#
# BOOT_QEMU_OPTS: extra QEMU options (vng --qemu-opts), e.g. a TCG plugin;
# BOOT_APPEND: extra kernel command line; BOOT_DISK=FILE: a raw image the
# guest sees as a virtio-blk disk, /dev/vda (QEMU does its IO on threads
# of its own, aio=threads, through the host's page cache).
set -u
. "$(dirname "$0")/lib.sh"

IMAGE=${1:?usage: boot.sh IMAGE OUTDIR COMMAND...}
OUTDIR=${2:?usage: boot.sh IMAGE OUTDIR COMMAND...}
shift 2
[ $# -gt 0 ] || die "boot.sh: no command"
[ -f "$IMAGE" ] || die "no kernel image $IMAGE"
mkdir -p "$OUTDIR"
OUTDIR=$(cd "$OUTDIR" && pwd)

BOOT_TIMEOUT=${BOOT_TIMEOUT:-1800}
BOOT_STALL=${BOOT_STALL:-600}
BOOT_TRIES=${BOOT_TRIES:-3}
CPUS=${GUEST_CPUS:-2}
MEM=${GUEST_MEM:-4G}
MARKER="BTH-GUEST: up"
SPLAT='(BUG:|WARNING:|Oops:|Kernel panic|KASAN:|UBSAN:|general protection fault|divide error:|possible circular locking|possible recursive locking|inconsistent lock state|INFO: task .* blocked|INFO: rcu_.* stall|watchdog: BUG|Call Trace:)'

accel=$("$TOP/scripts/pipeline/detect-accel.sh" "$IMAGE") || exit 1
accel_opt=
append="null_blk.nr_devices=0"
if [ "$accel" != kvm ]; then
	accel_opt=--disable-kvm
	append="$append no_timer_check"
fi
append="$append${BOOT_APPEND:+ $BOOT_APPEND}"
echo "$accel" >"$OUTDIR/accel"
qopts=${BOOT_QEMU_OPTS:-}
if [ -n "${BOOT_DISK:-}" ]; then
	[ -f "$BOOT_DISK" ] || die "no disk image $BOOT_DISK"
	qopts="$qopts -drive file=$(realpath "$BOOT_DISK"),if=none,id=disk0,format=raw,aio=threads -device virtio-blk-pci,drive=disk0"
fi

# The command runs under bash in the guest, after a marker on the console.
cmd="echo '$MARKER' >/dev/kmsg; $(printf '%q ' "$@")"
# virtme-ng passes it base64-encoded on the kernel's command line, which
# x86 cuts at 2048 bytes, of which virtme-ng's own options take some
# 950: cut, it loses init= too, and the guest boots
# the host's own init instead, until the timeout
[ $(( (${#cmd} + 2) / 3 * 4 + ${#append} )) -le 1000 ] ||
	die "the guest's command is too long for the kernel's command line (${#cmd} bytes): pass long lists in a file"

# host_steal - the machine's stolen and total CPU time so far, in clock
# ticks ("cpu" in /proc/stat; the same share the kselftests compute)
host_steal() {
	awk '$1 == "cpu" { for (i = 2; i <= 9; i++) t += $i; print $9, t }' /proc/stat
}

try=1
while :; do
	say "booting $(basename "$(dirname "$IMAGE")") ($accel, $CPUS vCPUs, $MEM), try $try: $*"
	start=$(date +%s)
	steal0=$(host_steal)
	# the watchdog: past BOOT_TIMEOUT, a guest silent for BOOT_STALL s
	pidf=$OUTDIR/.qemu-pid
	rm -f "$pidf" "$OUTDIR/stalled"
	: >"$OUTDIR/guest.log"
	(
		while sleep 5; do
			now=$(date +%s)
			[ $((now - start)) -gt "$BOOT_TIMEOUT" ] || continue
			# (the command's output goes to the console if virtme-ng
			# falls back to it: test.sh)
			last=$(stat -c %Y "$OUTDIR/guest.log" "$OUTDIR/console.log" | sort -n | tail -n 1)
			[ $((now - last)) -gt "$BOOT_STALL" ] || continue
			echo "$((now - start))" >"$OUTDIR/stalled"
			kill -TERM "$(cat "$pidf")" 2>/dev/null
			exit
		done
	) &
	watchdog=$!
	bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$pidf" \
	timeout -k 10 $((3 * BOOT_TIMEOUT)) vng -v --run "$IMAGE" $accel_opt \
		--cpus "$CPUS" --memory "$MEM" --rwdir "$OUTDIR" \
		--append "$append" \
		${qopts:+--qemu-opts "$qopts"} \
		--exec "$cmd" </dev/null 2>"$OUTDIR/console.log" |
		gawk -v glog="$OUTDIR/guest.log" -v times="$OUTDIR/guest-host-times.log" \
			-v t0="$start" '{ print; print >glog
				printf "%d %s\n", systime() - t0, $0 >times; fflush() }'
	pipe=("${PIPESTATUS[@]}")
	rc=${pipe[0]}
	kill "$watchdog" 2>/dev/null
	wait "$watchdog" 2>/dev/null
	secs=$(( $(date +%s) - start ))
	echo "$secs" >"$OUTDIR/boot-seconds"
	# CPU time the machine's own hypervisor took from us meanwhile: the
	# emulator's timing, and every timing check in the guest, suffer
	steal=$(echo "$steal0 $(host_steal)" |
		awk '{ print ($4 > $2 ? int(($3 - $1) * 100 / ($4 - $2)) : 0) }')
	echo "$steal" >"$OUTDIR/host-steal-percent"
	[ "$steal" -lt 10 ] ||
		warn "the host lost $steal% of its CPU time to steal during this boot (/proc/stat): timings in it are suspect"
	# the clocksource the guest ended on: under TCG the clocksource
	# watchdog may find the emulated TSC skewed against the HPET (seen
	# with 8 vCPUs on 2 host cores, 20 to 35 s after boot) and switch to
	# the HPET, whose every read goes through the emulator: the guest's
	# costs change under the run (BOOT_APPEND=tsc=reliable keeps the TSC)
	cs=$(grep -o 'Switched to clocksource [^ ]*' "$OUTDIR/console.log" | tail -n 1)
	echo "${cs##* }" >"$OUTDIR/clocksource"
	! grep -q 'Marking clocksource .* as unstable' "$OUTDIR/console.log" ||
		warn "the guest marked a clocksource unstable and switched to ${cs##* }: timings on the host's clock in it are suspect (console: $OUTDIR/console.log)"

	# the OOM killer's report (a cgroup over its memory.max, as vanilla's
	# throttled writer is in writeback.sh, which counts the kills) has a
	# Call Trace that is no kernel bug: a Call Trace line within 100
	# lines of the report's start, before its kill (or the kill it gives
	# up), is not matched; every other line is, numbered as grep -n would
	splat=$(awk '/invoked oom-killer:/ { oom = NR }
		!(oom && NR - oom < 100 && /Call Trace:/) { print NR ":" $0 }
		/Killed process [0-9]+ |no killable processes|Skip killing/ { oom = 0 }' \
		"$OUTDIR/console.log" | grep -E "$SPLAT" | head -n 1)
	if [ -n "$splat" ]; then
		up=$(grep -nF "$MARKER" "$OUTDIR/console.log" | head -n 1 | cut -d: -f1)
		line=${splat%%:*}
		if [ "$accel" = tcg ] && { [ -z "$up" ] || [ "$line" -lt "$up" ]; } &&
		   sed -n "$line,$((line + 3))p" "$OUTDIR/console.log" | grep -q 'Oops: int3' &&
		   [ "$try" -lt "$BOOT_TRIES" ]; then
			cp "$OUTDIR/console.log" "$OUTDIR/console-flake-$try.log"
			warn "emulator flake (int3 during boot-time code patching under TCG) before the guest came up; console kept as $OUTDIR/console-flake-$try.log; booting again"
			try=$((try + 1))
			continue
		fi
		sed -n "$line,$((line + 30))p" "$OUTDIR/console.log" >&2
		die "kernel splat in the guest: ${splat#*:} (console: $OUTDIR/console.log)"
	fi
	[ ! -f "$OUTDIR/stalled" ] ||
		die "guest hung: silent for ${BOOT_STALL}s after its ${BOOT_TIMEOUT}s (killed at $(cat "$OUTDIR/stalled")s; console: $OUTDIR/console.log)"
	case $rc in
	124|137) die "guest still running at three times its ${BOOT_TIMEOUT}s (console: $OUTDIR/console.log)" ;;
	255) die "guest died before the command finished (panic or QEMU failure; console: $OUTDIR/console.log)" ;;
	esac
	[ "${pipe[1]}" = 0 ] ||
		die "the guest's output was lost on the host (writing $OUTDIR/guest.log failed: is the disk full?)"
	grep -qF "$MARKER" "$OUTDIR/console.log" ||
		die "guest never came up (exit $rc; console: $OUTDIR/console.log)"
	exit "$rc"
done
