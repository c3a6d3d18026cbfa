#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The cgroup v2 io.max interface: valid lines round-trip, bad lines are
# rejected with the documented errno and leave the old limits untouched.

DIR="$(dirname "$(readlink -f "$0")")"
. "$DIR/../kselftest/ktap_helpers.sh"
. "$DIR/blk_throttle_lib.sh"

ktap_print_header
bt_require
bt_setup_dev
CG=$(bt_cgroup iface)
D=$BT_MAJMIN

# write_errno LINE - write LINE to io.max in one write(2); print OK or the
# errno's name
write_errno() {
	python3 - "$CG/io.max" "$1" <<'PY'
import errno, os, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
try:
    os.write(fd, sys.argv[2].encode())
    print("OK")
except OSError as e:
    print(errno.errorcode[e.errno])
PY
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

ktap_set_plan 21

accept "set rbps" "$D rbps=1048576" "$D rbps=1048576 wbps=max riops=max wiops=max"
accept "merge wbps riops wiops" "$D wbps=2097152 riops=100 wiops=200" \
	"$D rbps=1048576 wbps=2097152 riops=100 wiops=200"
accept "reset one key with max" "$D riops=max" "$D rbps=1048576 wbps=2097152 riops=max wiops=200"
accept "trailing newline" "$D wiops=50
" "$D rbps=1048576 wbps=2097152 riops=max wiops=50"
accept "all max removes the line" "$D rbps=max wbps=max riops=max wiops=max" none
accept "largest finite bps (U64_MAX - 1)" "$D rbps=18446744073709551614" \
	"$D rbps=18446744073709551614 wbps=max riops=max wiops=max"
accept "bps of U64_MAX means max" "$D rbps=$U64_MAX" none
accept "largest finite iops (UINT_MAX - 1)" "$D riops=4294967294" \
	"$D rbps=max wbps=max riops=4294967294 wiops=max"

reject "unknown key" "$D foo=1" EINVAL
reject "unknown key after a valid one" "$D riops=5 foo=1" EINVAL
reject "riops=0" "$D riops=0" ERANGE
reject "rbps=0" "$D rbps=0" ERANGE
reject "negative" "$D riops=-1" EINVAL
reject "not a number" "$D rbps=abc" EINVAL
reject "trailing garbage" "$D rbps=12abc" EINVAL
reject "key without value" "$D rbps" EINVAL
reject "overflow: 2^64" "$D rbps=18446744073709551616" ERANGE
reject "overflow: 2^64 + 1" "$D rbps=18446744073709551617" ERANGE
reject "no such device" "0:0 rbps=1" ENODEV
reject "not MAJ:MIN" "garbage rbps=1" EINVAL
reject "device without a space" "${D}rbps=1" EINVAL

ktap_finished
