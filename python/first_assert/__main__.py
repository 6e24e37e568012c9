"""``python -m first_assert`` and the ``first-assert`` command: the native command's code, in
this process, printing the same bytes."""

import sys

from . import _engine


def main() -> None:
    sys.stdout.flush()
    sys.exit(_engine.main(sys.argv[1:]))


if __name__ == "__main__":
    main()
