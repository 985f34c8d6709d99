"""The local stack's settings, read in one place for the scripts, tests, chaos and bench.

Versions and service ports come from `.env` (also read by docker compose). The SQL server's port,
database, user and the counts table are the job's own settings (errorcount/config/settings.py: environment > the config
file CONFIG, default conf/errorcount.conf > built-in default), so the local stack serves exactly
what the job connects to; `.env` does not repeat them. The caller's environment wins over `.env`.

    python -m errorcount.tools.localenv            KEY=value lines, for people
    python -m errorcount.tools.localenv --shell    what scripts/lib.sh reads, in one call: NUL-ended
        records `stack KEY=value` (.env and the stack's settings, exported), `setting KEY=value`
        (every non-secret job setting, as job_setting gives it) and `invalid KEY=why`; data, not
        shell code: lib.sh assigns them, it never evaluates them
"""

import argparse
import os
import sys
from collections.abc import Mapping

from errorcount.config.load import merged_settings, parse_args, public_values, typed
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


def config_file(env: Mapping[str, str]) -> str:
    """CONFIG, as scripts/run.sh passes it to the job (default conf/errorcount.conf)."""
    return env.get("CONFIG") or str(ROOT / "conf" / "errorcount.conf")


def job_settings(env: Mapping[str, str]) -> dict[str, str]:
    """The job's public settings as text (merged_settings), from CONFIG and `env`: the file read once."""
    return merged_settings(parse_args(["--config", config_file(env)]), env)[0]


def stack_values(job: Mapping[str, str], env: Mapping[str, str]) -> dict[str, str]:
    """.env's values and the `job` settings of JOB_KEYS, `env` winning over both."""
    values = {**read_dotenv(), **{key: str(typed(BY_NAME[key], job[key])) for key in JOB_KEYS}}  # checked: shell and SQL use them
    return {**values, **{key: env[key] for key in values if env.get(key)}}


def local_stack() -> dict[str, str]:
    """.env's values and the job settings of JOB_KEYS, the environment winning over both."""
    return stack_values(job_settings(os.environ), os.environ)


def shell_records(env: Mapping[str, str]) -> list[str]:
    """What scripts/lib.sh reads (see the module's doc); ConfigError if the stack's own settings are not valid."""
    job = job_settings(env)
    records = [f"stack {key}={value}" for key, value in stack_values(job, env).items()]
    for key, value in public_values(job).items():
        records.append(f"invalid {key}={value.message}" if isinstance(value, ConfigError) else f"setting {key}={value}")
    return records


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shell", action="store_true", help="NUL-ended records for scripts/lib.sh")
    args = parser.parse_args()
    try:
        if args.shell:
            sys.stdout.write("".join(record + "\0" for record in shell_records(os.environ)))
        else:
            sys.stdout.write("".join(f"{key}={value}\n" for key, value in local_stack().items()))
    except ConfigError as error:
        print(f"config error: {error.message}", file=sys.stderr)
        return EXIT_CONFIG
    return 0


if __name__ == "__main__":
    sys.exit(main())
