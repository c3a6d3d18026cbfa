#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What a task beside a throttled writer does, as an editor or a package
manager does it, each step made durable and timed by its own clock.

    durable_ops.py DIR SECONDS

For SECONDS, in DIR: writes 4 KiB to a file and fsyncs it (fsync); makes
a directory and fsyncs its parent, creates a file in it with 4 KiB and
fsyncs the file and the directory, renames the file and fsyncs the
directory (metadata); then removes what it made. Prints one line per
kind, "KIND COUNT P99_MS MAX_MS", the latencies in milliseconds.
"""
import os
import sys
import time


def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def timed(lat, kind, step, *args):
    t = time.monotonic()
    step(*args)
    lat[kind].append((time.monotonic() - t) * 1000)


def write_fsync(fd, data):
    os.pwrite(fd, data, 0)
    os.fsync(fd)


def mkdir_fsync(top, d):
    os.mkdir(d)
    fsync_dir(top)


def create_fsync(d, data):
    fd = os.open(os.path.join(d, "a"), os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_dir(d)


def rename_fsync(d):
    os.rename(os.path.join(d, "a"), os.path.join(d, "b"))
    fsync_dir(d)


def main(top, secs):
    lat = {"fsync": [], "metadata": []}
    data = b"x" * 4096
    fd = os.open(os.path.join(top, "fsynced"), os.O_WRONLY | os.O_CREAT,
                 0o644)
    end = time.monotonic() + secs
    i = 0
    while time.monotonic() < end:
        timed(lat, "fsync", write_fsync, fd, data)
        d = os.path.join(top, "dir%d" % i)
        timed(lat, "metadata", mkdir_fsync, top, d)
        timed(lat, "metadata", create_fsync, d, data)
        timed(lat, "metadata", rename_fsync, d)
        os.unlink(os.path.join(d, "b"))
        os.rmdir(d)
        i += 1
    os.close(fd)
    for kind, ms in lat.items():
        ms.sort()
        p99 = ms[min(len(ms) - 1, len(ms) * 99 // 100)]
        print("%s %d %.1f %.1f" % (kind, len(ms), p99, ms[-1]))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], float(sys.argv[2]))
