#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the harness needs on a Debian host: the kernel toolchain
# (gawk before the first build: switching awk later regenerates an x86
# header and forces a full rebuild), ccache, QEMU, fio, udev (virtme-ng's
# init needs it to find the guest's script ports), e2fsprogs and
# xfsprogs (the tests and benchmarks make ext4 and XFS), dmsetup (they
# stack dm-linear on null_blk), and the Python tools
# (virtme-ng, matplotlib, and ply and GitPython for checkpatch's SPDX
# check). Safe to run again: it only installs what is missing.
#
#   setup.sh [robot]   (robot: also clang, lld and LLVM 19, sparse and
#                       the arm cross gcc, for robot.sh)
set -eu
. "$(dirname "$0")/lib.sh"

DEBS="build-essential git flex bison bc gawk libelf-dev libssl-dev ccache
      qemu-system-x86 fio cpio kmod busybox-static xz-utils rsync zstd
      jq perl python3-docutils udev e2fsprogs xfsprogs dmsetup"
[ "${1:-}" = robot ] &&
	DEBS="$DEBS clang-19 lld-19 llvm-19 sparse gcc-arm-linux-gnueabihf"
PIP="virtme-ng==1.42 matplotlib==3.8.4 ply==3.11 GitPython==3.1.43"

missing=
for p in $DEBS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	say "installing Debian packages:$missing"
	SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -q >"$LOGS/apt-update.log" 2>&1 ||
		die "apt-get update (log: $LOGS/apt-update.log)"
	DEBIAN_FRONTEND=noninteractive run_logged "$LOGS/apt-install.log" \
		$SUDO apt-get install -y -q --no-install-recommends $missing
fi

for spec in $PIP; do
	name=${spec%%==*}
	ver=${spec#*==}
	have=$(python3 -m pip show "$name" 2>/dev/null | sed -n 's/^Version: //p')
	if [ "$have" != "$ver" ]; then
		say "installing $spec from PyPI"
		run_logged "$LOGS/pip-$name.log" \
			python3 -m pip install -q --disable-pip-version-check "$spec"
	fi
done

command -v vng >/dev/null || die "vng not on PATH after installing virtme-ng"
awk --version 2>/dev/null | grep -q 'GNU Awk' ||
	die "awk is not gawk; run: update-alternatives --set awk /usr/bin/gawk"
say "host ready: $(gcc --version | head -1), $(qemu-system-x86_64 --version | head -1), $(fio --version), virtme-ng $(vng --version 2>&1 | awk '{print $NF}')"
