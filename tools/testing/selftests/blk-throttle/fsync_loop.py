#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""fsync_loop.py DIR SECONDS - what a group's small durable writes wait for

For SECONDS, 10 ms apart: write 4 KiB at the end of DIR/f and fsync it;
then make a directory, create a file in it and fsync that, rename the
file, and fsync the directory. Prints "FSYNCS FSYNC_MAX_MS METAS
META_MAX_MS": how many of each, and the slowest, in ms. The pause
leaves the CPU to the rest of the machine; a stall longer than it
still meets one of them.
"""
import os
import sys
import time


def timed(fn):
    t = time.monotonic()
    fn()
    return (time.monotonic() - t) * 1000


def main():
    top, secs = sys.argv[1], float(sys.argv[2])
    block = b"\0" * 4096
    fd = os.open(os.path.join(top, "f"), os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    n_fsync = n_meta = 0
    fsync_max = meta_max = 0.0

    def data():
        os.write(fd, block)
        os.fsync(fd)

    def meta():
        d = os.path.join(top, "d%d" % n_meta)
        os.mkdir(d)
        f = os.open(os.path.join(d, "a"), os.O_WRONLY | os.O_CREAT)
        os.fsync(f)
        os.close(f)
        os.rename(os.path.join(d, "a"), os.path.join(d, "b"))
        f = os.open(d, os.O_RDONLY)
        os.fsync(f)
        os.close(f)

    end = time.monotonic() + secs
    while time.monotonic() < end:
        fsync_max = max(fsync_max, timed(data))
        n_fsync += 1
        meta_max = max(meta_max, timed(meta))
        n_meta += 1
        time.sleep(0.01)
    os.close(fd)
    print("%d %.1f %d %.1f" % (n_fsync, fsync_max, n_meta, meta_max))


if __name__ == "__main__":
    main()
