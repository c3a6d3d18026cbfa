#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Random io.max lines, each written in one write(2) and judged against
the rules of Documentation/admin-guide/cgroup-v2-io.rst, applied here to
the same line: the errno (or none) and the limits io.max then reads.

    io_max_random.py IO_MAX MAJ:MIN SEED COUNT

The lines are made of the keys and of values that parse, that are out of
range and that do not parse, with spaces, tabs and newlines between
them, some glued together, some too long for one token, and now and
then a device that does not exist or no space after the device. Prints
one line per mismatch (the first ten) and a count of each answer; exits
1 on any mismatch.

The rules, for the line "MAJ:MIN BODY":
 - the device must be followed by white space, or the line is EINVAL;
   a device that does not exist is ENODEV;
 - BODY is read a token at a time, a token being up to 26 characters
   without white space (a longer word is read as several tokens);
 - a token without "=" is EINVAL; its value is "max" or an optional "+"
   and decimal digits: digits past 2^64 - 1 are ERANGE, whatever follows
   them, then anything else is EINVAL, and zero is ERANGE; these are
   judged before the key, which must be one of rbps, wbps, riops and
   wiops, else EINVAL;
 - on any error nothing changes; else the keys are set in order, the
   last one winning, and riops and wiops above 2^32 - 2 mean max;
 - io.max reads "MAJ:MIN rbps=V wbps=V riops=V wiops=V" unless all four
   are max, then no line for the device.
"""
import errno
import os
import random
import re
import sys

U64_MAX = 2**64 - 1
UINT_MAX = 2**32 - 1
KEYS = ["rbps", "wbps", "riops", "wiops"]
TOKEN = 26
# white space to the kernel's isspace() and to bytes.split(); no line
# here has the other byte the kernel counts as space, 0xa0
SPACE = [bytes([c]) for c in b" \t\n\v\f\r"]


def model(line, dev, limits):
    """The errno's name ("OK" if none) and the limits after LINE, in
    bytes: the kernel counts a token's length and white space in bytes."""
    dev = dev.encode()
    if line.startswith(dev):
        rest = line[len(dev):]
        if not rest or rest[:1] not in SPACE:
            return "EINVAL", limits
    elif line.startswith(b"0:0 "):
        return "ENODEV", limits
    else:
        return "EINVAL", limits
    new = dict(limits)
    for word in rest.split():
        for i in range(0, len(word), TOKEN):
            key, eq, value = word[i:i + TOKEN].partition(b"=")
            if not eq:
                return "EINVAL", limits
            digits = re.match(rb"\+?([0-9]*)", value).group(1)
            if value == b"max":
                val = U64_MAX
            elif digits and int(digits) > U64_MAX:
                return "ERANGE", limits
            elif re.fullmatch(rb"\+?[0-9]+", value):
                val = int(value)
            else:
                return "EINVAL", limits
            if val == 0:
                return "ERANGE", limits
            key = key.decode(errors="replace")
            if key not in KEYS:
                return "EINVAL", limits
            new[key] = min(val, UINT_MAX) if "iops" in key else val
    return "OK", new


def render(dev, limits):
    """What io.max reads for DEV with LIMITS: a line or "none"."""
    vals = []
    for key in KEYS:
        top = UINT_MAX if "iops" in key else U64_MAX
        val = "max" if limits[key] >= top else limits[key]
        vals.append("%s=%s" % (key, val))
    if all(v.endswith("=max") for v in vals):
        return "none"
    return " ".join([dev] + vals)


def value(rnd):
    n = rnd.randrange(1, 10**rnd.randrange(1, 21))
    return rnd.choice([
        "max", "max", str(n), str(n), str(n), str(rnd.randrange(1, 5000)),
        str(U64_MAX), str(U64_MAX - 1), str(U64_MAX + 1),
        str(rnd.randrange(U64_MAX + 2, 10**rnd.randrange(21, 30))),
        str(UINT_MAX - 1), str(UINT_MAX), str(UINT_MAX + 1),
        "0", "0" * rnd.randrange(2, 30), "0" * rnd.randrange(1, 25) + str(n),
        "+" + str(n), "-" + str(n), "-0", str(n) + rnd.choice("kKMGx."),
        "0x%x" % n, "%d.%d" % (n, n), "%de3" % n, "", "+", "MAX", "Max",
        "maxx", "\uff11",
    ])


def token(rnd):
    key = rnd.choice(KEYS * 6 + ["RBPS", "rbp", "riopss", "target", "",
                                 "rbps=rbps"])
    form = rnd.random()
    if form < 0.9:
        return key + "=" + value(rnd)
    if form < 0.95:
        return key
    return "=" + value(rnd)


def body(rnd):
    out = ""
    for _ in range(rnd.randrange(0, 7)):
        out += token(rnd)
        out += rnd.choice([" "] * 8 + ["\t", "  ", " \t ", "\n", "\v\f\r", ""])
    return out


def line(rnd, dev):
    form = rnd.random()
    if form < 0.02:
        return "0:0 " + body(rnd)
    if form < 0.04:
        return dev + body(rnd)
    if form < 0.05:
        return "garbage " + body(rnd)
    return dev + rnd.choice([" ", " ", "\t", "  "]) + body(rnd)


def write_line(path, text):
    """Write TEXT (bytes) to PATH in one write(2): "OK", or the name of
    the errno the write failed with."""
    try:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, text)
        finally:
            os.close(fd)
        return "OK"
    except OSError as e:
        return errno.errorcode[e.errno]


def read_limits(path, dev):
    with open(path) as f:
        for got in f.read().splitlines():
            if got.split(" ", 1)[0] == dev:
                return got
    return "none"


def main():
    path, dev, seed, count = sys.argv[1:5]
    rnd = random.Random(int(seed))
    limits = {key: U64_MAX for key in KEYS}
    answers = {}
    bad = 0

    with open(path, "w") as f:
        f.write(dev + " rbps=max wbps=max riops=max wiops=max")
    for _ in range(int(count)):
        text = line(rnd, dev).encode()
        want, expect = model(text, dev, limits)
        res = write_line(path, text)
        got = read_limits(path, dev)
        answers[res] = answers.get(res, 0) + 1
        if res != want or got != render(dev, expect):
            bad += 1
            if bad <= 10:
                print("wrote %r: %s, expected %s; read '%s', expected '%s'"
                      % (text, res, want, got, render(dev, expect)))
        # follow the kernel, so that one mismatch is reported once
        if res == "OK":
            limits = {key: UINT_MAX if "iops" in key else U64_MAX
                      for key in KEYS}
            if got != "none":
                for kv in got.split()[1:]:
                    key, _, val = kv.partition("=")
                    if val != "max":
                        limits[key] = int(val)
    print("%s lines, seed %s: %s; %d mismatched" % (
        count, seed, ", ".join("%s %d" % kv for kv in sorted(answers.items())),
        bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
