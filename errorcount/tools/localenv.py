"""The local stack's settings, read in one place for the scripts, tests, chaos and bench.

Versions and service ports come from `.env` (also read by docker compose). The SQL server's port,
database, user and the counts table are the job's own settings (errorcount/config/settings.py: environment > the config
file CONFIG, default conf/errorcount.conf > built-in default), so the local stack serves exactly
what the job connects to; `.env` does not repeat them. The caller's environment wins over `.env`.

    python -m errorcount.tools.localenv --shell    export lines for scripts/lib.sh
"""

import argparse
import os
import shlex
import sys

from errorcount.config.load import merged_settings, parse_args, typed
from errorcount.config.settings import BY_NAME
from errorcount.errors import EXIT_CONFIG, ConfigError
from errorcount.tools import ROOT

JOB_KEYS = ("MYSQL_PORT", "MYSQL_DATABASE", "MYSQL_USER", "COUNTS_TABLE")


def read_dotenv() -> dict[str, str]:
    values = {}
    for line in (ROOT / ".env").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return values


def local_stack() -> dict[str, str]:
    """.env's values and the job settings of JOB_KEYS, the environment winning over both."""
    config = os.environ.get("CONFIG", str(ROOT / "conf" / "errorcount.conf"))
    job, _ = merged_settings(parse_args(["--config", config]), os.environ)
    values = {**read_dotenv(), **{key: str(typed(BY_NAME[key], job[key])) for key in JOB_KEYS}}  # checked: shell and SQL use them
    return {**values, **{key: os.environ[key] for key in values if os.environ.get(key)}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shell", action="store_true", help="print export lines for a shell")
    args = parser.parse_args()
    try:
        values = local_stack()
    except ConfigError as error:
        print(f"config error: {error.message}", file=sys.stderr)
        return EXIT_CONFIG
    for key, value in values.items():
        print(f"export {key}={shlex.quote(value)}" if args.shell else f"{key}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
