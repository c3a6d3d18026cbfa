#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a guest kernel: VARIANT (vanilla, patched, patch-N or an experiment, see
# tree.sh) at HZ (1000, 250 or 100), optionally with the debug
# config (DEBUG=1). One object directory per HZ/config serves every
# variant, so switching between them rebuilds only what differs, and
# ccache makes a rebuild of the same source cheap.
#
# The config is tinyconfig plus kconfig/*.config; every symbol the
# fragments ask for is checked after olddefconfig. The image lands in
# build/images/VARIANT-hzHZ[-debug]/bzImage; its path is printed on stdout.
#
# Usage: build.sh VARIANT [HZ]
#
# EXTRA_CONFIG=FILE.config adds one more fragment, for an experiment (a
# tracer, another preemption model): objects and image are then named
# hzHZ-FILE, apart from the others.
#
# VARIANT stable-X.Y builds build/linux-X.Y as scripts/pipeline/stable.sh left it
# (lib.sh's stable_tree), in objects of its own, build/obj/stable-X.Y-hzHZ.
set -eu
. "$(dirname "$0")/lib.sh"

VARIANT=${1:?usage: build.sh vanilla|patched|core|patch-N|EXPERIMENT|stable-X.Y [HZ]}
HZ=${2:-${HZ:-1000}}
DEBUG=${DEBUG:-0}
flavour=$(image_flavour "$HZ")
OBJ=$BUILD/obj/$flavour
OUT=$IMAGES/$VARIANT-$flavour

case $HZ in 100|250|300|1000) ;; *) die "HZ must be 100, 250, 300 or 1000" ;; esac

case $VARIANT in
stable-*)
	stable_tree "$VARIANT"
	[ -d "$LINUX/.git" ] || die "no $LINUX: scripts/pipeline/stable.sh prepares it"
	OBJ=$BUILD/obj/$VARIANT-$flavour ;;
*)	"$TOP/scripts/pipeline/tree.sh" "$VARIANT" ;;
esac

# Fragments, in order: the guest base, what a distribution kernel has
# that io.max depends on, the system calls the guest's programs make,
# what every variant needs, the symbols the series adds (not on
# vanilla), the HZ choice, debug options.
frags=("$TOP/kconfig/base.config" "$TOP/kconfig/distro.config"
	"$TOP/kconfig/syscalls.config" "$TOP/kconfig/blk-throttle.config")
if [ "$VARIANT" != vanilla ] && [ -f "$TOP/kconfig/series.config" ]; then
	# those the tree has: a patch-N variant may stop before a patch that
	# adds one
	sfrag=$BUILD/series-$VARIANT.config
	grep '^CONFIG_' "$TOP/kconfig/series.config" | while IFS= read -r line; do
		sym=${line%%=*}
		! grep -rqsx --include='Kconfig*' "config ${sym#CONFIG_}" "$LINUX" ||
			echo "$line"
	done >"$sfrag"
	frags+=("$sfrag")
fi
hzfrag=$BUILD/hz$HZ.config
printf 'CONFIG_HZ_%s=y\n' "$HZ" >"$hzfrag"
for h in 100 250 300 1000; do
	[ "$h" = "$HZ" ] || printf '# CONFIG_HZ_%s is not set\n' "$h" >>"$hzfrag"
done
frags+=("$hzfrag")
[ "$DEBUG" = 1 ] && frags+=("$TOP/kconfig/debug.config")
[ -n "${EXTRA_CONFIG:-}" ] && frags+=("$(realpath "$EXTRA_CONFIG")")

# Generate the config in a scratch directory and install it only if it
# differs, so that an unchanged config never triggers a rebuild.
mkdir -p "$OBJ" "$OUT"
cfg=$BUILD/obj/.cfg-${OBJ##*/}
rm -rf "$cfg"; mkdir -p "$cfg"
say "configuring $VARIANT $flavour"
run_logged "$LOGS/config-$VARIANT-$flavour.log" bash -c "
	make -C '$LINUX' O='$cfg' -s tinyconfig &&
	'$LINUX/scripts/kconfig/merge_config.sh' -m -O '$cfg' '$cfg/.config' ${frags[*]} &&
	make -C '$LINUX' O='$cfg' -s olddefconfig"

# config_sym LINE - the symbol a fragment's line sets, or nothing
config_sym() {
	[[ $1 =~ ^(\# )?(CONFIG_[A-Za-z0-9_]+)[=\ ] ]] && echo "${BASH_REMATCH[2]}"
}
# each symbol is the last fragment's that sets it (debug.config raises
# base.config's NR_CPUS, say): only that fragment's value is checked
declare -A last
for f in "${frags[@]}"; do
	while IFS= read -r line; do
		sym=$(config_sym "$line") && last[$sym]=$f
	done <"$f"
done
bad=0
for f in "${frags[@]}"; do
	while IFS= read -r line; do
		sym=$(config_sym "$line") && [ "${last[$sym]}" != "$f" ] && continue
		# the tick rate is the HZ fragment's to decide
		[ "$f" = "$hzfrag" ] || case $line in *CONFIG_HZ_[0-9]*) continue ;; esac
		case $line in
		CONFIG_*=n) sym=${line%=n}; grep -q "^$sym=" "$cfg/.config" && { echo "  $line, but .config has $(grep "^$sym=" "$cfg/.config")" >&2; bad=1; } ;;
		CONFIG_*=*) grep -qxF "$line" "$cfg/.config" || { echo "  $line (from $(basename "$f")), but .config has: $(grep -E "^(# )?${line%%=*}[= ]" "$cfg/.config" || echo nothing)" >&2; bad=1; } ;;
		"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}; grep -q "^$sym=" "$cfg/.config" && { echo "  $line, but it is set" >&2; bad=1; } ;;
		esac
	done <"$f"
done
[ $bad = 0 ] || die "required config symbols did not survive olddefconfig (see above; the missing dependency is named in $LINUX/<dir>/Kconfig)"
cmp -s "$cfg/.config" "$OBJ/.config" || cp "$cfg/.config" "$OBJ/.config"
rm -rf "$cfg"

say "building $VARIANT HZ=$HZ in $OBJ (log: $LOGS/build-$VARIANT-$flavour.log)"
start=$(date +%s)
ccache -z >/dev/null 2>&1 || true
if ! make -C "$LINUX" O="$OBJ" -j"$NPROC" CC="ccache gcc" HOSTCC="ccache gcc" \
	KBUILD_BUILD_TIMESTAMP="2026-01-01" KBUILD_BUILD_USER=harness \
	KBUILD_BUILD_HOST=harness ${W:+W=$W} bzImage \
	>"$LOGS/build-$VARIANT-$flavour.log" 2>&1; then
	grep -E 'error|Error' "$LOGS/build-$VARIANT-$flavour.log" | head -n 20 >&2
	die "kernel build ($VARIANT HZ=$HZ); full log: $LOGS/build-$VARIANT-$flavour.log"
fi
secs=$(( $(date +%s) - start ))
cp "$OBJ/arch/x86/boot/bzImage" "$OUT/bzImage"
cp "$OBJ/.config" "$OUT/config"
cp "$OBJ/System.map" "$OBJ/block/blk-throttle.o" "$OUT/" # symbols, for insn-count.sh
git -C "$LINUX" log -1 --format='%H %s' >"$OUT/commit"
echo "$secs" >"$OUT/build-seconds"
hits=$(ccache -s 2>/dev/null | awk '/Hits:/ {print $2 "/" $4; exit}')
say "built $VARIANT HZ=$HZ in ${secs}s (ccache hits ${hits:-?}): $OUT/bzImage"
echo "$OUT/bzImage"
