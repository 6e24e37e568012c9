#!/usr/bin/env python3
"""A plain Python peer for the benchmarks: the first line that looks like a CUDA device-side
assert (a kernel's `Assertion ... failed.` line or the host's error), found with `re`, line by
line, the way a quick script would do it. Prints `LINE: TEXT` or nothing."""
import re
import sys

PATTERN = re.compile(rb"Assertion `.*` failed|device-side assert triggered")


def main(path):
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            if PATTERN.search(line):
                print(f"{n}: {line[:200].decode('utf-8', 'replace').rstrip()}")
                return 0
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
