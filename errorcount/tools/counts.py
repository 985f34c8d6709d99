"""Prints the newest per-minute ERROR counts from the configured counts table (make counts;
COUNTS_TABLE, default error_log).

Connects as the job's user with the job's own connection settings (conf/errorcount.conf or
CONFIG, the environment; TLS included); the password comes from MYSQL_PASSWORD_FILE,
MYSQL_PASSWORD, or the local stack's secret file. ROWS=20 minutes are shown.
"""

import os
import sys

import pymysql

from errorcount import mysql, store
from errorcount.config import load_config
from errorcount.errors import EXIT_CONFIG, EXIT_UNAVAILABLE, ConfigError
from errorcount.tools import ROOT

SELECT_NEWEST_COUNTS = "SELECT log_time, log_count FROM `{table}` ORDER BY log_time DESC LIMIT %s"
SELECT_COUNT_TOTALS = "SELECT COALESCE(SUM(log_count), 0), COUNT(*) FROM `{table}`"


def job_config():
    """The job's settings as make run resolves them; the local stack's password file if none is given."""
    env = dict(os.environ)
    local_secret = ROOT / ".local" / "secrets" / "mysql_password"
    if not env.get("MYSQL_PASSWORD") and not env.get("MYSQL_PASSWORD_FILE") and local_secret.exists():
        env["MYSQL_PASSWORD_FILE"] = str(local_secret)
    shipped = ROOT / "conf" / "errorcount.conf"  # in a checkout; an installed tool reads the environment only
    config = env.get("CONFIG") or (str(shipped) if shipped.exists() else "")
    return load_config(["--config", config] if config else [], env)


def connect_as_job(what: str):
    """(settings, connection) as the job's user, or the exit code after saying what went wrong."""
    try:
        cfg = job_config()
    except ConfigError as error:
        print(f"config error: {error.message}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        return cfg, pymysql.connect(**mysql.connect_args(cfg))
    except pymysql.err.Error as error:
        print(f"cannot read {what}: {mysql.failure_text(cfg)(error)} ({error}); is the stack up (make up)?",
              file=sys.stderr)
        return EXIT_UNAVAILABLE


def main() -> int:
    connected = connect_as_job("the counts")
    if isinstance(connected, int):
        return connected
    cfg, conn = connected
    with conn.cursor() as cursor:
        cursor.execute(store.with_table(SELECT_NEWEST_COUNTS, cfg.counts_table), (int(os.environ.get("ROWS", "20")),))
        rows = cursor.fetchall()
        cursor.execute(store.with_table(SELECT_COUNT_TOTALS, cfg.counts_table))
        total, minutes = cursor.fetchone()
    conn.close()
    print(f"{cfg.counts_table} (LOG_FORMAT={cfg.log_format})\nminute                ERROR lines")
    for log_time, count in rows:
        print(f"{log_time:%Y-%m-%d %H:%M}      {count:>11}")
    print(f"total: {total} ERROR lines in {minutes} minutes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
