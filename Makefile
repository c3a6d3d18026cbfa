# SPDX-License-Identifier: GPL-2.0
#
# The front door. "make help" lists the targets.
#
#   make bench   build vanilla and patched, boot each, run the headline
#                fio scenarios (make bench-full: all of them), print the
#                before/after table (results/); with DEV=/dev/X, on this
#                machine's own kernel and disk (make bench-merge)
#   make test    check the series (checkpatch, docs); build patched,
#                vanilla and the patched debug variant (KASAN, lockdep,
#                UBSAN, hung-task detector); judge rates and latencies
#                on QEMU's virtual clock, patched against vanilla (the
#                negative control); run the functional tests on the
#                debug kernel; fail on any failed check, SKIP, XFAIL or
#                splat, or if vanilla passes what the series fixes
#
# Variables: HZ=1000|250|100 (default 1000), ACCEL=kvm|tcg (skip the KVM
# probe), CLOCK=virtual (hz-matrix guests on QEMU's virtual clock, see
# scripts/pipeline/test.sh), BLK_THROTTLE_RUNTIME and BENCH_RUNTIME (seconds
# per fio run), BLK_THROTTLE_STRESS_SECS and BLK_THROTTLE_STRESS_SEED
# (how long stress.sh's chaos lasts, and its seed), SCENARIOS, ROUNDS
# and RESULTS (which benchmark scenarios, how many rounds of each, where
# to write them), BENCH_DISK=virtio (the scenarios on a virtio-blk
# disk, not null_blk), N (rounds of make repeat), DRY_RUN=1 (make series
# with an identity that cannot sign off, to look at the export),
# SERIES=core (the patched kernel is the series up to the core, without
# its follow-ups: make test SERIES=core judges the core alone),
# NO_BUILD=1 (make insn-count on the images already built),
# INSN_DISK=virtio (make insn-count on a virtio-blk disk), BLKTESTS=DIR
# (make blktests), KERNELS="vanilla core patched" (make bench adds the
# core without its follow-ups), DEV, LABEL and BENCH_WRITE=1 (make bench
# on your own machine), GUEST_CPUS and BOOT_APPEND (a guest's vCPUs and
# extra kernel command line), BEFORE and AFTER (make bench-merge),
# BLK_THROTTLE_BOUNDS=wide|tight (the kselftests' timing bounds: wide on
# the host's clock, tight on the virtual clock unless told).

HZ ?= 1000
export HZ

.PHONY: help setup fetch tree build build-vanilla check test control repeat test-debug test-kcsan test-vanilla bench bench-full bench-merge host-rounds hz-matrix insn-count series robot kunit blktests stable-6.12 clean distclean

help:
	@sed -n 's/^#   //p' Makefile
	@sed -n '/^# Variables/,/^$$/s/^# //p' Makefile
	@echo "Other targets: setup fetch tree build build-vanilla bench-full bench-merge check control repeat test-debug test-kcsan test-vanilla host-rounds hz-matrix insn-count series robot kunit blktests stable-6.12 clean distclean"

setup:
	@scripts/pipeline/setup.sh

fetch: setup
	@scripts/pipeline/fetch.sh >/dev/null

tree: fetch
	@scripts/pipeline/tree.sh patched

build: setup
	@scripts/pipeline/build.sh patched $(HZ) >/dev/null

build-vanilla: setup
	@scripts/pipeline/build.sh vanilla $(HZ) >/dev/null

test: setup
	@scripts/pipeline/check-series.sh
	@scripts/pipeline/check-docs.sh
	@DEBUG_BESIDE=1 scripts/pipeline/control.sh $(HZ)
	@$(MAKE) --no-print-directory test-debug HZ=$(HZ)

# The timing kselftests on the virtual clock, patched and vanilla, in one
# table (build/out/control-hzHZ.md, copied to results/)
control: setup
	@scripts/pipeline/control.sh $(HZ)
	@cp "$${BUILD:-build}/out/control-hz$(HZ).md" results/

# control's verdicts over N rounds: results/repeat-hzHZ.md
N ?= 10
repeat: setup
	@scripts/instruments/repeat.sh $(N) $(HZ)

# Only the debug variant (kconfig/debug.config): its functional tests,
# then cpus.sh on twelve vCPUs (its NR_CPUS allows them) on the virtual
# clock, where the emulator's speed does not decide the rates
test-debug: setup
	@DEBUG=1 scripts/pipeline/test.sh patched $(HZ)
	@DEBUG=1 CLOCK=virtual CLOCK_CPUS=12 RUN=cpus TESTS=cpus.sh BLK_THROTTLE_RUNTIME=10 \
		scripts/pipeline/test.sh patched $(HZ)

# The KCSAN variant (kconfig/kcsan.config, in place of KASAN): the same
# functional tests and cpus.sh on twelve vCPUs, failing on any data-race
# report but those in two of upstream's bitmap helpers (test.sh's
# KCSAN_IGNORE says which and why)
test-kcsan: setup
	@KCSAN=1 scripts/pipeline/test.sh patched $(HZ)
	@KCSAN=1 CLOCK=virtual CLOCK_CPUS=12 RUN=cpus TESTS=cpus.sh BLK_THROTTLE_RUNTIME=10 \
		scripts/pipeline/test.sh patched $(HZ)

# checkpatch --strict on every patch, docutils and kernel-doc on the docs
check: setup
	@scripts/pipeline/check-series.sh
	@scripts/pipeline/check-docs.sh

# The same tests on the unpatched base, on the host's clock, but for
# io_max_interface.sh: its cgroup v1 case makes vanilla divide by zero
# and hang (make control runs it in a guest of its own)
test-vanilla: setup
	@TESTS="$${TESTS:-tail_latency.sh pacing.sh regressions.sh stress.sh stacked.sh}" \
		scripts/pipeline/test.sh vanilla $(HZ)

# With DEV=/dev/X: no build and no guest, the headline scenarios under
# the kernel this machine runs, on DEV, read-only (scripts/pipeline/bench-here.sh);
# make bench-merge BEFORE=DIR AFTER=DIR puts two such runs in one table
bench: $(if $(DEV),,setup)
	@$(if $(DEV),scripts/pipeline/bench-here.sh,scripts/pipeline/bench.sh $(HZ))

bench-merge:
	@scripts/analysis/bench-merge.sh "$(BEFORE)" "$(AFTER)" $(RESULTS)

# every scenario of bench/, not only the headline ones
bench-full: setup
	@BENCH_FULL=1 scripts/pipeline/bench.sh $(HZ)

# The HZ-dependent tests on vanilla, the core and the series at HZ=100,
# 250 and 1000 (one cold build per tick rate the first time):
# results/hz-matrix.md, or with CLOCK=virtual results/hz-matrix-virtual.md
hz-matrix: setup
	@scripts/instruments/hz-matrix.sh

# The timing kselftests at their default, wide bounds on the host's
# clock: N rounds (default 5) of the series, its debug variant and
# vanilla, then once on a virtio-blk disk: results/host-clock.md
host-rounds: setup
	@scripts/instruments/host-rounds.sh $(if $(filter command line,$(origin N)),$(N),5) $(HZ)

# Guest instructions per IO counted by a QEMU TCG plugin on vanilla and
# on the series (scripts/instruments/insn-count.sh; VARIANTS adds others, patch-N,
# or an experiment of bench/): results/insn-count.md, or with
# INSN_DISK=virtio, counted on a virtio-blk disk, results/insn-count-virtio.md
insn-count: setup
	@scripts/instruments/insn-count.sh
	@cp build/out/insn-count/report.md results/insn-count$(if $(INSN_DISK),-$(INSN_DISK)).md

# The series (fixes, then core; prereq/ is not exported) as git
# format-patch files with cover letters, in out/series/NAME
series: setup
	@scripts/pipeline/series.sh

# The kernel test robot's checks at every patch, one table:
# results/robot.md, from the cells on record in results/robot-cells.tsv
# (slow: a full build per check the first time on a machine)
robot:
	@scripts/pipeline/robot.sh

# blktests' throtl group on vanilla, the core and the series, from a
# blktests checkout of your own (BLKTESTS=DIR; not fetched here):
# results/blktests.md
blktests: setup
	@scripts/pipeline/blktests.sh

# KUnit with the kernel's kunit.py on UML and i386: results/kunit.md
kunit: setup
	@scripts/pipeline/kunit.sh

# The fixes tagged Cc: stable on Debian stable's Linux 6.12 (stable.lock),
# each as it is or as its backport in patches/stable-6.12/: applied,
# built, booted, and io_max_interface.sh's cgroup v1 cases run there,
# the 2^32 iops limit among them: results/stable-6.12.md
stable-6.12: setup
	@scripts/pipeline/stable.sh $(HZ)

clean:
	rm -rf build/obj build/images build/out build/logs build/kselftest build/kselftest-*

distclean:
	rm -rf build out
