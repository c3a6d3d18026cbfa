#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print "kvm" if a KVM guest really boots here, else "tcg". /dev/kvm can
# exist while guests hang after decompression, so the test is a real boot
# with a short timeout. The answer is kept for this host boot (boot_id);
# ACCEL=kvm|tcg overrides it.
#
#   detect-accel.sh IMAGE
set -u
. "$(dirname "$0")/lib.sh"

if [ -n "${ACCEL:-}" ]; then
	echo "$ACCEL"
	exit 0
fi
cache=$BUILD/accel.$(cat /proc/sys/kernel/random/boot_id)
if [ -f "$cache" ]; then
	cat "$cache"
	exit 0
fi

accel=tcg
if [ -w /dev/kvm ]; then
	say "checking whether KVM guests boot here (up to 30s)"
	if timeout -k 5 30 vng -v --run "$1" --cpus 1 --memory 512M \
		--exec 'echo kvm-ok' </dev/null >"$LOGS/kvm-probe.log" 2>&1 &&
	   grep -q kvm-ok "$LOGS/kvm-probe.log"; then
		accel=kvm
	else
		say "KVM guest did not come up (log: $LOGS/kvm-probe.log); using TCG software emulation"
	fi
fi
echo "$accel" >"$cache"
echo "$accel"
