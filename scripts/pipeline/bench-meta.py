#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs inside the guest, beside a benchmark's fio job: metadata
operations as an editor or a package manager makes them, each made
durable with fsync, timed one by one, in a loop for SECONDS.

    bench-meta.py DIR SECONDS OUT.json

Each round makes a directory and fsyncs its parent (mkdir), creates a
file in it with 4 KiB of data and fsyncs the file and the directory
(create), and renames the file over another one and fsyncs the
directory (rename), then removes what it made. OUT.json holds each
operation's latencies in microseconds, in the order they were made.
"""
import json
import os
import sys
import time


def fsync_path(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    top, secs, out = argv[0], float(argv[1]), argv[2]
    lat = {"mkdir": [], "create": [], "rename": []}
    data = b"x" * 4096
    end = time.monotonic() + secs
    i = 0
    while time.monotonic() < end:
        d = os.path.join(top, "meta%d" % i)
        t = time.monotonic()
        os.mkdir(d)
        fsync_path(top)
        lat["mkdir"].append((time.monotonic() - t) * 1e6)

        t = time.monotonic()
        fd = os.open(os.path.join(d, "a"), os.O_WRONLY | os.O_CREAT, 0o644)
        os.write(fd, data)
        os.fsync(fd)
        os.close(fd)
        fsync_path(d)
        lat["create"].append((time.monotonic() - t) * 1e6)

        t = time.monotonic()
        os.rename(os.path.join(d, "a"), os.path.join(d, "b"))
        fsync_path(d)
        lat["rename"].append((time.monotonic() - t) * 1e6)

        os.unlink(os.path.join(d, "b"))
        os.rmdir(d)
        i += 1
    with open(out, "w") as f:
        json.dump(lat, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
