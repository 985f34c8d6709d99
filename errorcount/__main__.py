"""`python -m errorcount --version` (or the `errorcount` command): the version, without Spark.

The job itself runs under spark-submit (errorcount/main.py, scripts/run.sh)."""

import sys

from errorcount import __version__


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        print(f"errorcount {__version__}")
        return 0
    print("usage: errorcount --version\nThe job runs under spark-submit: make run, or see docs/operations.md.", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
