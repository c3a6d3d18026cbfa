#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch the base kernel source: Debian's linux-source-7.3 package, with the
# ordinary apt client but a private sources list, lists and cache under
# build/apt, so the machine's own apt configuration is never touched.
#
# The exact version in base.lock is preferred and checked against its
# sha256. If it has left the archive, a newer 7.3.y is used with a loud
# warning. Prints the path of the source tarball on stdout; a second run
# with the tarball in place fetches nothing.
#
# LOCK=FILE fetches what another lock file at the top names instead
# (LOCK=stable.lock: linux-source-6.12 for scripts/pipeline/stable.sh), into
# build/dl-X.Y with its apt state in build/apt-X.Y, X.Y the package's;
# a newer X.Y.z stands in for it as above. A SUITE-security suite comes
# from Debian's security archive (DEBIAN_SECURITY_MIRROR).
set -eu
. "$(dirname "$0")/lib.sh"

LOCKF=${LOCK:-base.lock}
[ -f "$TOP/$LOCKF" ] || die "no lock file $TOP/$LOCKF"
PKG=$(lock package)
VER=$(lock version)
SUITE=$(lock suite)
LINE=${PKG#linux-source-}
APT=$BUILD/apt
[ "$LOCKF" = base.lock ] || DL=$BUILD/dl-$LINE APT=$BUILD/apt-$LINE
TARBALL=$DL/$(lock tarball)
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
case $SUITE in
*-security) MIRROR=${DEBIAN_SECURITY_MIRROR:-http://security.debian.org/debian-security} ;;
esac
KEYRING=${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}

mkdir -p "$DL"

# The cached tarball is good if it matches the lock, or if it was taken
# from a newer X.Y.z on an earlier run (build/dl/version says which).
if [ -f "$TARBALL" ] && [ -f "$DL/version" ]; then
	have=$(cat "$DL/version")
	if [ "$have" = "$VER" ]; then
		echo "$TARBALL"
		exit 0
	fi
	warn "using cached $PKG $have, NOT the locked $VER"
	echo "$TARBALL"
	exit 0
fi

mkdir -p "$APT/etc" "$APT/lists/partial" "$APT/cache/archives/partial"
echo "deb [signed-by=$KEYRING] $MIRROR $SUITE main" >"$APT/etc/sources.list"
aptopts=(-o "Dir::Etc::SourceList=$APT/etc/sources.list"
	 -o "Dir::Etc::SourceParts=/dev/null"
	 -o "Dir::State::Lists=$APT/lists"
	 -o "Dir::Cache=$APT/cache"
	 -o "APT::Sandbox::User=root")

say "reading $SUITE package lists (private apt state in $APT)"
run_logged "$LOGS/apt-private-update.log" apt-get "${aptopts[@]}" update

versions=$(apt-cache "${aptopts[@]}" madison "$PKG" 2>/dev/null | awk -F'|' '{gsub(/ /, "", $2); print $2}')
[ -n "$versions" ] ||
	die "no $PKG in $SUITE at $MIRROR. Check the network or DEBIAN_MIRROR, or move $LOCKF to another $LINE source package."

if echo "$versions" | grep -qxF "$VER"; then
	use=$VER
else
	use=$(echo "$versions" | head -n 1)
	case $use in
	"$LINE".*) ;;
	*) die "$SUITE offers $PKG $use, not a $LINE.y. Update $LOCKF by hand." ;;
	esac
	dpkg --compare-versions "$use" gt "$VER" ||
		die "$SUITE offers $PKG $use, older than the locked $VER."
	warn "$PKG $VER ($LOCKF) is gone from $SUITE; using the NEWER $use.
    Results are not comparable with those recorded for $VER. Once the
    series is checked on it, record it in $LOCKF (version, deb_sha256,
    tarball_sha256)."
fi

say "downloading $PKG $use"
(cd "$DL" && run_logged "$LOGS/apt-download.log" \
	apt-get "${aptopts[@]}" download "$PKG=$use")
deb=$(ls "$DL"/"${PKG}"_*_all.deb | head -n 1)
deb_sha=$(sha256sum "$deb" | cut -d' ' -f1)
if [ "$use" = "$VER" ] && [ "$deb_sha" != "$(lock deb_sha256)" ]; then
	die "$deb has sha256 $deb_sha, $LOCKF says $(lock deb_sha256)"
fi

say "extracting $(lock tarball)"
dpkg-deb --fsys-tarfile "$deb" |
	tar -xO "./usr/src/$(lock tarball)" >"$TARBALL.tmp"
tar_sha=$(sha256sum "$TARBALL.tmp" | cut -d' ' -f1)
if [ "$use" = "$VER" ] && [ "$tar_sha" != "$(lock tarball_sha256)" ]; then
	die "tarball sha256 $tar_sha, $LOCKF says $(lock tarball_sha256)"
fi
mv "$TARBALL.tmp" "$TARBALL"
rm -f "$deb"
echo "$use" >"$DL/version"
say "base: $PKG $use, deb sha256 $deb_sha, tarball sha256 $tar_sha"
echo "$TARBALL"
