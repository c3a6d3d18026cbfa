#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The io.max interface, table-driven: valid lines round-trip, bad lines
# are rejected with the documented errno (EINVAL for what does not parse,
# ERANGE for a number out of range, ENODEV for a device that does not
# exist, E2BIG for a write longer than a page) and leave the old limits
# untouched. Then random lines (io_max_random.py), each judged by the
# same rules. Then the cgroup v1 blkio.throttle.* files, when the kernel
# has cgroup v1 and the blkio controller is free to mount there.
#
#   BLK_THROTTLE_IO_MAX_SEED=N  replay the random lines of a run
#   BLK_THROTTLE_IO_MAX_V1_ONLY=1  only the cgroup v1 cases, for a kernel
#                               that has the v1 fix and not the io.max
#                               ones (a stable kernel)

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

ktap_print_header
bt_require
bt_setup_dev
CG=$(bt_cgroup iface)
D=$BT_MAJMIN

# One python3 makes every write below, each in one write(2) (the random
# lines' write_line()), and answers with OK or the errno's name: bash
# cannot tell an errno apart, and one python3 per write costs minutes on
# a slow KASAN kernel.
coproc WRITER {
	PYTHONPATH=$DIR python3 -c '
import os, sys
from io_max_random import write_line
buf = b""
while True:
    while buf.count(b"\0") < 2:
        more = os.read(0, 65536)
        if not more:
            sys.exit(0)
        buf += more
    path, line, buf = buf.split(b"\0", 2)
    print(write_line(path, line), flush=True)
'
}

# write_errno LINE [FILE] - write LINE to FILE (io.max); print OK or the
# errno's name
write_errno() {
	local res

	printf '%s\0%s\0' "${2:-$CG/io.max}" "$1" >&"${WRITER[1]}"
	read -r res <&"${WRITER[0]}"
	echo "${res:-no answer from the writer}"
}

# the io.max line for the test device, or "none"
limits() {
	grep "^$D " "$CG/io.max" || echo none
}

# accept NAME LINE EXPECTED - LINE is taken and io.max then reads EXPECTED
accept() {
	local got res
	res=$(write_errno "$2")
	got=$(limits)
	if [ "$res" = OK ] && [ "$got" = "$3" ]; then
		ktap_test_pass "$1"
	else
		ktap_print_msg "wrote '$2': $res; read '$got', expected '$3'"
		ktap_test_fail "$1"
	fi
}

# reject NAME LINE ERRNO - LINE fails with ERRNO and changes nothing
BASE="$D rbps=1048576 wbps=max riops=100 wiops=max"
reject() {
	local got res
	write_errno "$D rbps=1048576 riops=100" >/dev/null
	res=$(write_errno "$2")
	got=$(limits)
	if [ "$res" = "$3" ] && [ "$got" = "$BASE" ]; then
		ktap_test_pass "$1"
	else
		ktap_print_msg "wrote '$2': $res (expected $3); read '$got', expected '$BASE'"
		ktap_test_fail "$1"
	fi
}

U64_MAX=18446744073709551615
LONG=$(printf 'riops=100 %.0s' $(seq 500))

RANDOM_LINES=2000
SEED=${BLK_THROTTLE_IO_MAX_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}

V1_ONLY=${BLK_THROTTLE_IO_MAX_V1_ONLY:-0}
if [ "$V1_ONLY" = 1 ]; then
	ktap_set_plan 9
else
	ktap_set_plan $((61 + 1 + 9))
fi

# io.max, unless BLK_THROTTLE_IO_MAX_V1_ONLY=1: its cases stay unindented
if [ "$V1_ONLY" != 1 ]; then
# valid lines: what they set
accept "set rbps" "$D rbps=1048576" "$D rbps=1048576 wbps=max riops=max wiops=max"
accept "merge wbps riops wiops" "$D wbps=2097152 riops=100 wiops=200" \
	"$D rbps=1048576 wbps=2097152 riops=100 wiops=200"
accept "reset one key with max" "$D riops=max" "$D rbps=1048576 wbps=2097152 riops=max wiops=200"
accept "trailing newline" "$D wiops=50
" "$D rbps=1048576 wbps=2097152 riops=max wiops=50"
accept "empty write changes nothing" "" "$D rbps=1048576 wbps=2097152 riops=max wiops=50"
accept "all max removes the line" "$D rbps=max wbps=max riops=max wiops=max" none
accept "largest finite bps (U64_MAX - 1)" "$D rbps=18446744073709551614" \
	"$D rbps=18446744073709551614 wbps=max riops=max wiops=max"
accept "bps of U64_MAX means max" "$D rbps=$U64_MAX" none
accept "largest finite iops (UINT_MAX - 1)" "$D riops=4294967294" \
	"$D rbps=max wbps=max riops=4294967294 wiops=max"
accept "iops of UINT_MAX means max" "$D riops=4294967295" none
accept "iops past UINT_MAX means max" "$D wiops=4294967296" none
accept "iops of U64_MAX - 1 means max" "$D riops=18446744073709551614" none
accept "smallest limits: 1" "$D rbps=1 wbps=1 riops=1 wiops=1" \
	"$D rbps=1 wbps=1 riops=1 wiops=1"
accept "repeated key: the last wins" "$D rbps=100 rbps=200 wbps=max riops=max wiops=max" \
	"$D rbps=200 wbps=max riops=max wiops=max"
accept "leading zeros" "$D rbps=0100" "$D rbps=100 wbps=max riops=max wiops=max"
accept "leading plus sign" "$D rbps=+300" "$D rbps=300 wbps=max riops=max wiops=max"
accept "tabs between keys" "$D	rbps=400	riops=7" "$D rbps=400 wbps=max riops=7 wiops=max"
accept "several spaces between keys" "$D   rbps=500    riops=8" \
	"$D rbps=500 wbps=max riops=8 wiops=max"
accept "max then a number for the same key" "$D riops=max riops=9" \
	"$D rbps=500 wbps=max riops=9 wiops=max"
accept "every key at once" "$D rbps=1 wbps=2 riops=3 wiops=4" \
	"$D rbps=1 wbps=2 riops=3 wiops=4"
accept "all max again" "$D rbps=max wbps=max riops=max wiops=max" none

# bad lines: the errno, and nothing changed
reject "unknown key" "$D foo=1" EINVAL
reject "unknown key after a valid one" "$D riops=5 foo=1" EINVAL
reject "key in upper case" "$D RBPS=1" EINVAL
reject "max in upper case" "$D rbps=MAX" EINVAL
reject "max in mixed case" "$D rbps=Max" EINVAL
reject "maximum" "$D rbps=maximum" EINVAL
reject "io.latency's key" "$D target=10" EINVAL
reject "io.cost's key" "$D rpct=50" EINVAL
reject "riops=0" "$D riops=0" ERANGE
reject "wiops=0" "$D wiops=0" ERANGE
reject "rbps=0" "$D rbps=0" ERANGE
reject "wbps=0" "$D wbps=0" ERANGE
reject "zero with leading zeros" "$D rbps=000" ERANGE
reject "negative" "$D riops=-1" EINVAL
reject "negative zero" "$D rbps=-0" EINVAL
reject "not a number" "$D rbps=abc" EINVAL
reject "trailing garbage" "$D rbps=12abc" EINVAL
reject "trailing garbage on iops" "$D riops=12x" EINVAL
reject "hexadecimal" "$D rbps=0x100" EINVAL
reject "decimal point" "$D rbps=1.5" EINVAL
reject "exponent" "$D rbps=1e6" EINVAL
reject "unit suffix" "$D rbps=1M" EINVAL
reject "comma instead of a space" "$D rbps=100,wbps=100" EINVAL
reject "non-ASCII digit" "$D rbps=１" EINVAL
reject "key without value" "$D rbps" EINVAL
reject "key with an empty value" "$D rbps=" EINVAL
reject "value without key" "$D =100" EINVAL
reject "device twice" "$D rbps=1 $D wbps=1" EINVAL
reject "overflow: 2^64" "$D rbps=18446744073709551616" ERANGE
reject "overflow: 2^64 + 1" "$D rbps=18446744073709551617" ERANGE
reject "overflow: 20 nines" "$D wbps=99999999999999999999" ERANGE
reject "iops overflow: 2^64" "$D riops=18446744073709551616" ERANGE
reject "no such device" "0:0 rbps=1" ENODEV
reject "no such device, large numbers" "4095:1048575 rbps=1" ENODEV
reject "not MAJ:MIN" "garbage rbps=1" EINVAL
reject "MAJ without MIN" "${D%%:*} rbps=1" EINVAL
reject "letters for MAJ:MIN" "a:b rbps=1" EINVAL
reject "device without a space" "${D}rbps=1" EINVAL
reject "device alone" "$D" EINVAL
reject "longer than a page" "$D $LONG" E2BIG

# random lines: each answered and applied as the rules say
out=$(python3 "$DIR/io_max_random.py" "$CG/io.max" "$D" "$SEED" $RANDOM_LINES)
rc=$?
while read -r msg; do
	ktap_print_msg "$msg"
done <<<"$out"
ktap_test_result "random lines answered and applied as the rules say" [ $rc = 0 ]
fi # io.max

# cgroup v1: blkio.throttle.*_device take "MAJ:MIN VALUE", where 0 removes
# the rule (Documentation/admin-guide/cgroup-v1/blkio-controller.rst). The
# io controller can be mounted on v1 only while no v2 cgroup enables it.
V1=
v1_cleanup() {
	if [ -n "$V1" ]; then
		rmdir "$V1/$BT_NAME" 2>/dev/null
		umount "$V1" && rmdir "$V1"
		V1=
	fi
	# give the io controller back to v2, for the tests after this one
	for _ in $(seq 50); do
		echo +io >"$BT_CGROOT/cgroup.subtree_control" 2>/dev/null && return
		sleep 0.1
	done
	ktap_print_msg "could not give the io controller back to cgroup v2"
}
trap 'v1_cleanup; bt_cleanup' EXIT

# v1_rule FILE LINE ERRNO READBACK - write LINE to FILE in the v1 group:
# the write gives ERRNO (or OK) and FILE then reads READBACK ("" if none)
v1_rule() {
	local f=$V1/$BT_NAME/blkio.throttle.$1 res got
	res=$(write_errno "$2" "$f")
	got=$(grep "^$D " "$f")
	if [ "$res" = "$3" ] && [ "$got" = "$4" ]; then
		ktap_test_pass "v1 $1 '$2': $3"
	else
		ktap_print_msg "wrote '$2' to $1: $res (expected $3); read '$got', expected '$4'"
		ktap_test_fail "v1 $1 '$2': $3"
	fi
}

rmdir "$CG"
V1=$(mktemp -d /tmp/blkthrtest-v1.XXXXXX)
if ! echo -io >"$BT_CGROOT/cgroup.subtree_control" ||
   ! mount -t cgroup -o blkio none "$V1" 2>/dev/null ||
   ! mkdir "$V1/$BT_NAME"; then
	rmdir "$V1" 2>/dev/null
	V1=
	for i in $(seq 9); do
		ktap_test_skip "cgroup v1 case $i: no blkio hierarchy can be mounted"
	done
	ktap_finished
fi

v1_rule read_bps_device "$D 1048576" OK "$D 1048576"
v1_rule read_bps_device "$D 0" OK ""
v1_rule read_iops_device "$D 100" OK "$D 100"
v1_rule read_iops_device "$D 4294967295" OK ""
v1_rule write_iops_device "$D abc" EINVAL ""
v1_rule write_bps_device "$D -1" EINVAL ""
v1_rule write_bps_device "0:0 100" ENODEV ""
v1_rule write_bps_device "garbage" EINVAL ""

# An iops value past UINT_MAX is no limit, as in io.max. Truncated to 32
# bits, 4294967296 used to become 0, and the next read divided by it.
write_errno "$D 4294967296" "$V1/$BT_NAME/blkio.throttle.read_iops_device" >/dev/null
got=$(grep "^$D " "$V1/$BT_NAME/blkio.throttle.read_iops_device")
# No time limit on the reads: a kernel that divides by zero kills dd
# with its oops, and on a virtual clock (QEMU -icount) a timer armed
# before dd starts may expire while the guest waits to load it.
"${BT_IN_CGROUP[@]}" "$V1/$BT_NAME" \
	dd if="$BT_DEV" of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null
rc=$?
ktap_print_msg "v1 read_iops_device '$D 4294967296': read back '$got', 16 reads: rc $rc"
if [ -z "$got" ] && [ $rc = 0 ]; then
	ktap_test_pass "v1 iops of 2^32 is no limit, and reads go"
else
	ktap_test_fail "v1 iops of 2^32 is no limit, and reads go"
fi

[ "$V1_ONLY" = 1 ] ||
	ktap_print_msg "inputs tried: 61 io.max lines, $RANDOM_LINES random ones, 9 cgroup v1 lines"
ktap_finished
