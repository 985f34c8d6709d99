"""`python -m errorcount --version` (or the `errorcount` command): the version, without Spark.
`python -m errorcount recount ...` (or `errorcount-recount ...`): a recount (make recount), which
runs under spark-submit through the checkout's scripts/run.sh (its jars, the classifier, the local
stack); elsewhere spark-submit errorcount/recount/main.py as docs/operations.md shows.

The job itself runs under spark-submit (errorcount/main.py, scripts/run.sh)."""

import os
import sys
from pathlib import Path

from errorcount import __version__

RUN = Path(__file__).resolve().parents[1] / "scripts" / "run.sh"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["--version"]:
        print(f"errorcount {__version__}")
        return 0
    if args[:1] == ["recount"]:
        return recount(args[1:])
    print("usage: errorcount --version | errorcount recount --from 'YYYY-MM-DD HH:MM' --to 'YYYY-MM-DD HH:MM' "
          "[--dry-run]\nThe job runs under spark-submit: make run, or see docs/operations.md.", file=sys.stderr)
    return 2


def recount(argv: list[str] | None = None) -> int:
    """The recount through scripts/run.sh (replacing this process, so its exit code is the recount's)."""
    args = sys.argv[1:] if argv is None else argv
    if not RUN.exists():
        print(f"{RUN} is not here (an installed package without its checkout): spark-submit "
              "errorcount/recount/main.py with the job's --jars, as docs/operations.md, \"Recounting a time "
              "range\", shows.", file=sys.stderr)
        return 2
    os.execv(str(RUN), [str(RUN), "recount", *args])
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
