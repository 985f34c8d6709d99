"""The recount's driver: `make recount FROM=... TO=...` runs it under spark-submit (scripts/run.sh
recount), YARN as any driver script. Reads the job's config (the same file and environment as the
running job: the same rules), builds the session, recounts, exits with the code of what happened
(errorcount/errors.py; a refusal is 2 or 4 with nothing changed).

    recount --from 'YYYY-MM-DD HH:MM' --to 'YYYY-MM-DD HH:MM' [--dry-run] [the job's flags]
"""

import argparse
import logging
import os
import sys
import time

import errorcount.driver_path  # noqa: F401  (first: the installed pyspark before spark-submit's zips)
from errorcount import faults
from errorcount.config.load import load_config
from errorcount.errors import ConfigError
from errorcount.main import exit_code, start_logging
from errorcount.recount.plan import Range, parse_minute
from errorcount.recount.run import Recount
from errorcount.session import build_session

log = logging.getLogger("errorcount.recount")


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """The recount's own flags (FROM, TO and DRY_RUN also from the environment); the rest are the job's."""
    parser = argparse.ArgumentParser(prog="errorcount-recount", allow_abbrev=False,
                                     description="Recount a time range under the job's current rules, exactly once.")
    parser.add_argument("--from", dest="first", default=os.environ.get("FROM"), help="first minute, UTC (env FROM)")
    parser.add_argument("--to", dest="end", default=os.environ.get("TO"), help="end minute, not included (env TO)")
    parser.add_argument("--dry-run", action="store_true", default=os.environ.get("DRY_RUN", "") not in ("", "0"),
                        help="print what would change, write nothing (env DRY_RUN=1)")
    return parser.parse_known_args(argv)


def main(argv: list[str] | None = None) -> int:
    start_logging(os.environ)

    def run() -> int:
        args, rest = parse(sys.argv[1:] if argv is None else argv)
        if not args.first or not args.end:
            raise ConfigError("FROM and TO are required: make recount FROM='2026-11-19 00:00' TO='2026-11-26 00:00'")
        span = Range(parse_minute(args.first, "FROM"), parse_minute(args.end, "TO"))
        cfg = load_config(rest, os.environ)
        logging.getLogger().setLevel(cfg.log_level)
        spark = build_session(f"{cfg.job_name} recount")
        try:
            return Recount(cfg, spark, faults.from_env(os.environ)).run(span, args.dry_run, int(time.time()) // 60)
        finally:
            spark.stop()
    return exit_code(run, log)


if __name__ == "__main__":
    sys.exit(main())
