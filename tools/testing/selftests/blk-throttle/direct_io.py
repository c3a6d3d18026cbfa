#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One O_DIRECT read or write, timed by its own clock from when it is
submitted, for a test that changes something while the IO waits.

    direct_io.py read|write PATH BYTES [fdatasync]

Prints "ready" once the file is open and the program loaded, just before
the IO is submitted; then, when it ends, "MS RESULT START END": the
milliseconds from submission to completion (with fdatasync, to the end
of that), OK or the errno's name, and the CLOCK_MONOTONIC seconds of
submission and completion, by which IOs of several programs compare.
What the test times is the IO, not the start of a program, which on a
slow machine takes a while, nor the first call of the code it times:
that can fault its pages in from disk, a wait that is not the IO's, so
the calls are made once on a pipe, where they fail at once, first.
"""
import errno
import mmap
import os
import sys
import time

rw, path, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
sync = sys.argv[4:] == ["fdatasync"]
buf = mmap.mmap(-1, size)
if rw == "read":
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
else:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_DIRECT, 0o644)
r, w = os.pipe()
for call, args in ((os.preadv, (r, [bytearray(1)], 0)),
                   (os.pwritev, (w, [b"x"], 0)), (os.fdatasync, (r,))):
    try:
        call(*args)
    except OSError:
        pass
os.close(r)
os.close(w)
print("ready", flush=True)
t0 = time.monotonic()
try:
    if rw == "read":
        os.preadv(fd, [buf], 0)
    else:
        os.pwritev(fd, [buf], 0)
        if sync:
            os.fdatasync(fd)
    res = "OK"
except OSError as e:
    res = errno.errorcode.get(e.errno, str(e.errno))
t1 = time.monotonic()
print("%.0f %s %.6f %.6f" % ((t1 - t0) * 1000, res, t0, t1), flush=True)
