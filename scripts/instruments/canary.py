#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""canary.py OUT - how long a task that only sleeps waits for a CPU

Until killed, sleeps 5 ms at a time and writes to OUT each wake-up that
came 10 ms or more late: "T LATE_MS", T the wall clock's seconds since the epoch.
It does no IO and runs in whatever cgroup it was started in: its delays
are the machine's, not any limit's.
"""
import signal
import sys
import time


def main():
    # killed when the benchmark ends: unwind, so that OUT is flushed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(sys.argv[1], "w") as f:
        while True:
            t, w = time.monotonic(), time.time()
            time.sleep(0.005)
            late = (time.monotonic() - t - 0.005) * 1000
            if late >= 10:
                f.write("%.3f %.1f\n" % (w, late))


if __name__ == "__main__":
    main()
