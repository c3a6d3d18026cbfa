#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per IO from insn-count.sh's runs, as markdown.

    insn-report.py [--disk=NAME] NAME=DIR...
                                    (e.g. vanilla=build/out/insn-count/vanilla)

--disk names the disk read, in the table's description (null_blk).

Each DIR holds the plugin's dump (counts), insn-guest.sh's list of
measured windows (windows) and, if the image's symbols were known, its
System.map and blk-throttle.o. Per workload, what the run of 2N IOs cost
over the run of N, divided by the bios the cgroup counted in between, is
the cost per IO: in all (user and kernel), in the kernel, and in the
functions of block/blk-throttle.c. Then, per workload, the functions
whose cost per IO differs most between the first and the last variant
named (or, if not both have symbols, each one's costliest functions).
Each DIR has its name: the same variant's runs can be compared, too.

Functions are found by TB start address: a TB ends at every branch, so
all of its instructions are those of the function it starts in.
"""
import bisect
import collections
import itertools
import json
import os
import subprocess
import sys

TEXT_TYPES = set('tTwW')


def read_windows(d):
    """{(limit, engine): {round: [(n, window, bios, ns), ...]}} from
    DIR/windows; ns is None in a file from before it was recorded"""
    runs = collections.defaultdict(lambda: collections.defaultdict(list))
    with open(os.path.join(d, 'windows')) as f:
        for line in f:
            k, limit, engine, rnd, n, bios, *ns = line.split()
            runs[(limit, engine)][int(rnd)].append(
                (int(n), int(k), int(bios), int(ns[0]) if ns else None))
    return runs


def read_counts(d, wanted):
    """{window: (total, {addr: count}, {addr: execs})} for the windows in
    WANTED; a dump from before the plugin counted runs has no execs"""
    windows, cur = {}, None
    with open(os.path.join(d, 'counts')) as f:
        for line in f:
            w = line.split()
            if w[0] == 'mark':
                k = int(w[1])
                cur = None
                if k in wanted:
                    cur = windows[k] = (int(w[3]), {}, {})
            elif w[0] == 'total':
                cur = None          # the whole run's dump: not needed
            elif cur is not None:
                cur[1][int(w[0], 16)] = int(w[1])
                if len(w) > 2:
                    cur[2][int(w[0], 16)] = int(w[2])
    missing = wanted - windows.keys()
    if missing:
        sys.exit(f'{d}/counts lacks windows {sorted(missing)}: '
                 'did the guest finish?')
    return windows


class Symbols:
    """Kernel text symbols of one image, and which are blk-throttle.c's"""

    def __init__(self, d):
        syms = []
        with open(os.path.join(d, 'System.map')) as f:
            for line in f:
                a, t, name = line.split()[:3]
                if t in TEXT_TYPES:
                    syms.append((int(a, 16), name))
        syms.sort()
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]
        self.count = collections.Counter(self.names)

        # blk-throttle.o's functions, by name. A static name may recur
        # in other files: take the unique ones' addresses, then of a
        # repeated name the copy within their span (one object's .text
        # is linked in one piece).
        nm = subprocess.run(['nm', os.path.join(d, 'blk-throttle.o')],
                            capture_output=True, text=True, check=True)
        names = {w[2] for w in (l.split() for l in nm.stdout.splitlines())
                 if len(w) == 3 and w[1] in TEXT_TYPES}
        where = collections.defaultdict(list)
        for a, n in syms:
            if n in names:
                where[n].append(a)
        unique = [a[0] for a in where.values() if len(a) == 1]
        lo, hi = min(unique), max(unique)
        self.throtl = set(unique)
        for a in where.values():
            if len(a) > 1:
                self.throtl.update(x for x in a if lo <= x <= hi)

    def func(self, addr):
        """start address of the function ADDR is in"""
        i = bisect.bisect_right(self.addrs, addr) - 1
        return self.addrs[i] if i >= 0 else 0

    def name(self, start):
        i = bisect.bisect_left(self.addrs, start)
        n = self.names[i] if i < len(self.addrs) and self.addrs[i] == start else '?'
        # a static name several files use: its copies are counted
        # together (by name, across variants), so mark it
        return n + ('*' if self.count[n] > 1 else '')


class Variant:
    def __init__(self, name, d):
        self.name = name
        self.dir = d
        runs = read_windows(d)
        wanted = {k for r in runs.values() for pair in r.values()
                  for _, k, _, _ in pair}
        counts = read_counts(d, wanted)
        has_map = os.path.exists(os.path.join(d, 'System.map'))
        self.syms = Symbols(d) if has_map else None
        self.throtl_names = set()
        if self.syms:
            self.throtl_names = {self.syms.name(f) for f in self.syms.throtl}
        self.work = {}
        for key, r in runs.items():
            rounds = [self.per_io(counts, sorted(pair)) for pair in r.values()]
            # the mean over the rounds, and how far apart they are
            w = {m: sum(x[m] for x in rounds) / len(rounds)
                 for m in ('all', 'kernel', 'throtl') if m in rounds[0]}
            w['spread'] = {m: max(x[m] for x in rounds) - min(x[m] for x in rounds)
                           for m in w}
            w['rounds'] = len(rounds)
            w['bios'] = rounds[0]['bios']
            w['n'] = rounds[0]['n']
            w['ns'] = None
            if all(x['ns'] for x in rounds):
                w['ns'] = sum(x['ns'] for x in rounds) / len(rounds)
            if self.syms:
                for m in ('fn', 'calls'):
                    w[m] = collections.Counter()
                    for x in rounds:
                        for f, c in x[m].items():
                            w[m][f] += c / len(rounds)
            self.work[key] = w

    def per_io(self, counts, pair):
        """cost per IO from one round's runs of N and 2N IOs"""
        (n1, k1, b1, ns1), (n2, k2, b2, ns2) = pair
        bios = b2 - b1
        (t1, c1, e1), (t2, c2, e2) = counts[k1], counts[k2]
        delta = {a: c2.get(a, 0) - c1.get(a, 0) for a in c1.keys() | c2.keys()}
        x = {'bios': bios, 'n': (n1, n2),
             # the guest ns the extra N IOs took
             'ns': ns2 - ns1 if ns1 is not None and ns2 is not None else None,
             'all': (t2 - t1) / bios,
             'kernel': sum(delta.values()) / bios}
        if self.syms:
            per = collections.Counter()
            for a, c in delta.items():
                per[self.syms.func(a)] += c
            x['throtl'] = sum(c for f, c in per.items()
                              if f in self.syms.throtl) / bios
            x['fn'] = collections.Counter()
            for f, c in per.items():
                x['fn'][self.syms.name(f)] += c / bios
            # calls: runs of the TBs that start at a function's entry
            x['calls'] = collections.Counter()
            for a in e1.keys() | e2.keys():
                if self.syms.func(a) == a:
                    x['calls'][self.syms.name(a)] += \
                        (e2.get(a, 0) - e1.get(a, 0)) / bios
        return x


def fmt(w, m):
    """mean over the rounds, +- half the range they span"""
    if m not in w:
        return '-'
    if w['rounds'] < 2:
        return f'{w[m]:,.0f}'
    return f'{w[m]:,.0f} ±{w["spread"][m] / 2:,.0f}'


def pct(a, b):
    if a is None or b is None or not a:
        return ''
    return f'{100 * (b - a) / a:+.1f}%'


# the workloads held to a rate, whose bios wait for the dispatch timer
RATED = ('throttled', 'paced', 'riops20000', 'rbps1g', 'groups100')

# the IOs a second their limits let through, all groups together
# (insn-guest.sh): rbps1g in 4 KiB reads, groups100 100 x riops=200
LIMIT_IOPS = {'throttled': 2000, 'paced': 500, 'riops20000': 20000,
              'rbps1g': (1 << 30) // 4096, 'groups100': 100 * 200}


def rate(v, k):
    """(IOs a second, CPU share) of workload K on variant V, in the
    guest's time (one ns an instruction, idle time skipped): fio's IOPS
    in round 1's longer run, or for dd the extra N IOs over the extra
    time the longer runs took (startup included: an estimate), but no
    more than the limits let through: past them, an estimate counts the
    first bucket's burst or a time the startup shortened, not a rate
    the workload keeps; the CPU share is the instructions of those IOs
    a second"""
    w = v.work[k]
    f = os.path.join(v.dir, f'{k[0]}-{k[1]}-r1-{w["n"][1]}.json')
    if os.path.exists(f):
        with open(f) as fd:
            iops = json.load(fd)['jobs'][0]['read']['iops']
    elif w.get('ns'):
        iops = w['bios'] * 1e9 / w['ns']
    else:
        return None, None
    iops = min(iops, LIMIT_IOPS.get(k[0], iops))
    return iops, w['all'] * iops / 1e9


def wakes_table(vs, keys, label):
    """What a throttled bio costs per run of the dispatch timer.

    A bio that waits costs a sleep, a timer interrupt and a wakeup; a
    clock that rounds waits up to whole jiffies lets several bios go per
    timer run, or lets some go without waiting. Dividing the throttled
    runs' cost over the far-above runs by the timer's runs per IO gives
    the cost of one timer run and all it leads to, the same quantity on
    every variant whatever its clock.
    """
    have = [v for v in vs if v.syms and any(
        v.work[k]['calls'] for k in keys if k[0] in RATED)]
    if not have:
        return
    print('\n### Timer runs, and what each cost\n')
    print('Calls per IO counted from the runs of the TB at each function\'s '
          'entry: the pending timer (`throtl_pending_timer_fn`), the '
          'kthrotld work that submits the dispatched bios '
          '(`blk_throtl_dispatch_work_fn`), and `throtl_add_bio_tg`, which '
          'queues a bio on a group: per bio that waits, twice on vanilla '
          '(on its own group, then on the root group), once with the '
          'series (its patch 10). "Per timer run" is what the '
          'workload costs per IO over the same engine\'s far-above run, '
          'divided by the timer runs per IO. IOPS: fio\'s, or for the dd '
          'groups the extra IOs of the longer runs over the extra guest '
          'time they took, at most what the limits let through (20,000 '
          'a second for riops20000 and for groups100\'s 100 x 200: a '
          'figure above it is the first bucket\'s burst or the time the '
          'startup shortened); timer runs a second and the CPU share (all '
          'instructions per IO times IOPS, over 10^9 a second) follow '
          'from it.\n')
    print('| workload | variant | timer runs / IO | kthrotld runs / IO | '
          'throtl_add_bio_tg / IO | all per IO | per timer run | IOPS | '
          'timer runs / s | CPU |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for k in keys:
        if k[0] not in RATED:
            continue
        for v in have:
            w, hi = v.work[k], v.work.get(('highlimit', k[1]))
            c = w['calls']
            runs = c['throtl_pending_timer_fn']
            per = '-'
            if hi and runs > 0:
                per = f'{(w["all"] - hi["all"]) / runs:,.0f}'
            iops, cpu = rate(v, k)
            more = ['-', '-', '-'] if iops is None else \
                [f'{iops:,.0f}', f'{runs * iops:,.0f}', f'{100 * cpu:.1f}%']
            print(f'| {label[k[1]]} {k[0]} | {v.name} | {runs:.3f} | '
                  f'{c["blk_throtl_dispatch_work_fn"]:.3f} | '
                  f'{c["throtl_add_bio_tg"]:.3f} | {w["all"]:,.0f} | {per} | '
                  + ' | '.join(more) + ' |')


# What a read costs besides the throttle, counted as calls per IO: the
# runs of the hardware queue, the device's interrupts, the context
# switches and wakeups. Bios that reach the device together share them.
EVENTS = (('queue runs', 'blk_mq_run_hw_queue'),
          ('kblockd queue runs', 'blk_mq_run_work_fn'),
          ('interrupts', 'common_interrupt'),
          ('context switches', '__schedule'),
          ('wakeups', 'try_to_wake_up'))


def events_table(vs, keys, label):
    """Calls per IO of the functions in EVENTS"""
    have = [v for v in vs if v.syms]
    if not have:
        return
    print('\n### Queue runs, interrupts and switches per IO\n')
    print('Calls per IO, counted as above: '
          + ', '.join(f'{n} (`{f}`)' for n, f in EVENTS) + '.\n')
    print('| workload | variant | ' + ' | '.join(n for n, _ in EVENTS) + ' |')
    print('|' + '---|' * (len(EVENTS) + 2))
    for k in keys:
        for v in have:
            c = v.work[k]['calls']
            print(f'| {label[k[1]]} {k[0]} | {v.name} | ' +
                  ' | '.join(f'{c[f]:.3f}' for _, f in EVENTS) + ' |')


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    args = sys.argv[1:]
    disk = 'null_blk'
    if args[0].startswith('--disk='):
        disk = args.pop(0).split('=', 1)[1]
    vs = [Variant(*arg.split('=', 1)) for arg in args]
    order = [(l, e) for e in ('psync', 'libaio', 'dd', 'buffered')
             for l in ('nolimit', 'sibling', 'highlimit') + RATED]
    keys = [k for k in order if all(k in v.work for v in vs)]
    label = {'psync': 'psync QD1', 'libaio': 'libaio QD32', 'dd': 'dd QD1',
             'buffered': 'dd buffered'}
    a, b = vs[0], vs[-1]
    # each variant against the last one named
    pairs = [(v, b) for v in vs[:-1]]

    n1, n2 = a.work[keys[0]]['n']
    print('### Guest instructions per IO\n')
    print(f'QEMU TCG plugin count (scripts/instruments/insn-count.sh), one vCPU, '
          f'-icount shift=0, nohz=off. Per IO = (run of {n2} IOs - run of {n1}) / '
          'bios the cgroup counted in between; 4 KiB random direct reads '
          f'of {disk}, but for "dd QD1": 4 KiB sequential direct reads, '
          'a dd in each of 100 groups, and for "dd buffered": 4 KiB sequential '
          'reads through the page cache, cold, per bio of readahead. '
          '"all" counts user and kernel; blk-throttle.c is '
          'the functions of block/blk-throttle.o. Mean of '
          f'{a.work[keys[0]]["rounds"]} rounds (pairs of runs) ± half '
          'their range; "X→Y" is the change from X\'s mean to Y\'s.\n')
    cols = ['workload', 'bios']
    for m in ('all', 'kernel', 'blk-throttle.c'):
        cols += [f'{m} {v.name}' for v in vs] + \
            [f'{m} {x.name}→{y.name}' for x, y in pairs]
    print('| ' + ' | '.join(cols) + ' |')
    print('|' + '---|' * len(cols))
    for k in keys:
        row = [f'{label[k[1]]} {k[0]}',
               '/'.join(sorted({str(v.work[k]['bios']) for v in vs}))]
        for m in ('all', 'kernel', 'throtl'):
            row += [fmt(v.work[k], m) for v in vs] + \
                [pct(x.work[k].get(m), y.work[k].get(m)) for x, y in pairs]
        print('| ' + ' | '.join(row) + ' |')

    print('\n### Far-above limits over no limit, per IO (highlimit - nolimit)\n')
    print('"queue_lock": calls of `_raw_spin_lock_irq`, which blk-throttle '
          'takes the queue lock with, per IO over the unlimited run\'s.\n')
    print('| engine | variant | all | kernel | blk-throttle.c | queue_lock |')
    print('|---|---|---|---|---|---|')
    for e in ('psync', 'libaio', 'dd', 'buffered'):
        for v in vs:
            hi, no = v.work.get(('highlimit', e)), v.work.get(('nolimit', e))
            if not hi or not no:
                continue
            d = [hi[m] - no[m] if m in hi else None
                 for m in ('all', 'kernel', 'throtl')]
            lock = '-'
            if 'calls' in hi:
                lock = f'{hi["calls"]["_raw_spin_lock_irq"] - no["calls"]["_raw_spin_lock_irq"]:+.2f}'
            print(f'| {label[e]} | {v.name} | ' +
                  ' | '.join('-' if x is None else f'{x:+,.0f}' for x in d) +
                  f' | {lock} |')

    # What the far-above figure is made of: the functions that run more
    # (or less) per IO under limits than without; those outside
    # blk-throttle.c but the clock and the submission path move by a few
    # instructions from one run to the next (the page allocator's lists)
    mapped = [v for v in vs if v.syms]
    for e in ('psync', 'libaio'):
        ks = [(v, v.work.get(('highlimit', e)), v.work.get(('nolimit', e)))
              for v in mapped]
        ks = [(v, hi, no) for v, hi, no in ks if hi and no and 'fn' in hi]
        if not ks:
            continue
        d = {v.name: {f: hi['fn'][f] - no['fn'][f]
                      for f in hi['fn'].keys() | no['fn'].keys()}
             for v, hi, no in ks}
        names = sorted({f for x in d.values() for f, c in x.items()
                        if abs(c) >= 10},
                       key=lambda f: (-max(abs(x.get(f, 0)) for x in d.values()), f))
        print(f'\n**{label[e]}, far above over no limit, by function** '
              '(those at 10 or more in a variant)\n')
        print('| function | ' + ' | '.join(d) + ' |')
        print('|' + '---|' * (len(d) + 1))
        for f in names:
            print(f'| {f} | ' +
                  ' | '.join(f'{x.get(f, 0):+,.1f}' for x in d.values()) + ' |')

    # Whether the throttled bios waited: the mean rate alone cannot tell
    # a group whose every bio waits from one let through in bursts.
    print('\n### How the throttled bios were paced (fio, round 1, '
          f'{n2} IOs; guest time under -icount, 1 instruction = 1 ns)\n')
    print('| workload | variant | IOPS | clat p50 | clat p99 | clat max |')
    print('|---|---|---|---|---|---|')
    for l, e in itertools.product(RATED, ('psync', 'libaio')):
        for v in vs:
            f = os.path.join(v.dir, f'{l}-{e}-r1-{n2}.json')
            if not os.path.exists(f):
                continue
            with open(f) as fd:
                rd = json.load(fd)['jobs'][0]['read']
            pc = rd['clat_ns']['percentile']
            us = [pc['50.000000'] / 1000, pc['99.000000'] / 1000,
                  rd['clat_ns']['max'] / 1000]
            print(f'| {label[e]} {l} | {v.name} | {rd["iops"]:,.0f} | ' +
                  ' | '.join(f'{x:,.0f} us' for x in us) + ' |')

    wakes_table(vs, keys, label)
    events_table(vs, keys, label)

    nomap = [v.name for v in vs if not v.syms]
    if nomap:
        print(f'\nNo System.map for {", ".join(nomap)}: no functions '
              '(rebuild with scripts/pipeline/build.sh, which now keeps it).')
    mapped_pairs = [(x, y) for x, y in pairs if x.syms and y.syms]
    for x, y in mapped_pairs:
        print(f'\n### Functions whose cost per IO differs most, '
              f'{x.name} -> {y.name}\n')
        print('`*`: a static name several files use, summed over them; '
              '(bt): in blk-throttle.c.\n')
        for k in keys:
            fa, fb = x.work[k]['fn'], y.work[k]['fn']
            top = [f for f in sorted(fa.keys() | fb.keys(),
                                     key=lambda f: (-abs(fb[f] - fa[f]), f))[:10]
                   if abs(fb[f] - fa[f]) >= 0.5]
            print(f'**{label[k[1]]} {k[0]}**\n')
            print(f'| function | {x.name} | {y.name} | change |')
            print('|---|---|---|---|')
            for f in top:
                bt = ' (bt)' if f in x.throtl_names | y.throtl_names else ''
                print(f'| {f}{bt} | {fa[f]:,.1f} | {fb[f]:,.1f} | '
                      f'{fb[f] - fa[f]:+,.1f} |')
            print()
    if not mapped_pairs:
        for v in mapped:
            print(f'\n### Costliest functions per IO, {v.name}\n')
            print('`*`: a static name several files use, summed over them; '
                  '(bt): in blk-throttle.c.\n')
            for k in keys:
                fn = v.work[k]['fn']
                print(f'**{label[k[1]]} {k[0]}**\n')
                print('| function | per IO |')
                print('|---|---|')
                for f, c in fn.most_common(10):
                    bt = ' (bt)' if f in v.throtl_names else ''
                    print(f'| {f}{bt} | {c:,.1f} |')
                print()

    for v in mapped:
        print(f'\n### blk-throttle.c functions per IO, {v.name}\n')
        names = sorted({f for k in keys for f, c in v.work[k]['fn'].items()
                        if f in v.throtl_names and abs(c) >= 0.05})
        print('| function | ' + ' | '.join(f'{label[k[1]]} {k[0]}' for k in keys) + ' |')
        print('|' + '---|' * (len(keys) + 1))
        for f in names:
            print(f'| {f} | ' + ' | '.join(f'{v.work[k]["fn"][f]:,.1f}'
                                           for k in keys) + ' |')


if __name__ == '__main__':
    main()
