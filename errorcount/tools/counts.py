"""Prints the newest per-minute ERROR counts from the configured counts table (make counts;
COUNTS_TABLE, default error_log), with COUNT_LINES the lines and the error ratio too; with
BY=<dimension> (make counts BY=service.name), the job's per-dimension counts of that GROUP_BY
dimension instead, per minute and value, biggest first (with COUNT_LINES their lines and ratio
too: 5xx over requests by path). Each minute says whether it is complete (counted_through past its
end plus LATENESS: docs/operations.md, "Complete minutes"; per dimension by the job's own mark);
COMPLETE=1 shows complete minutes only.

Connects as the job's user with the job's own connection settings (conf/errorcount.conf or
CONFIG, the environment; TLS included); the password comes from MYSQL_PASSWORD_FILE,
MYSQL_PASSWORD, or the local stack's secret file. ROWS=20 minutes are shown.
"""

import os
import sys
from datetime import datetime, timedelta

import pymysql

from errorcount import store
from errorcount.config.load import load_config
from errorcount.errors import EXIT_CONFIG, EXIT_UNAVAILABLE, ConfigError
from errorcount.store import failures, mysql
from errorcount.tools import ROOT, breakdown, minutes

SELECT_COMPLETE_BEFORE = "SELECT complete_before FROM counts_complete WHERE table_name = %s"
SELECT_COUNT_TOTALS = "SELECT COALESCE(SUM(log_count), 0), COUNT(*), COALESCE(SUM(line_count), 0) FROM `{table}`"


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
        reason = failures.failure_text(cfg.mysql_host, cfg.mysql_port)(error)
        print(f"cannot read {what}: {reason} ({error}); is the stack up (make up)?", file=sys.stderr)
        return EXIT_UNAVAILABLE


def main() -> int:
    connected = connect_as_job("the counts")
    if isinstance(connected, int):
        return connected
    cfg, conn = connected
    only_complete, limit = os.environ.get("COMPLETE", "") not in ("", "0"), int(os.environ.get("ROWS", "20"))
    if os.environ.get("CHANGED", "") not in ("", "0"):
        return minutes.show_changed(conn, cfg.job_name, limit)
    if os.environ.get("BY"):
        return by_dimension(cfg, conn, breakdown.dimension_of(os.environ["BY"], cfg.group_by), limit, only_complete)
    return by_minute(cfg, conn, limit, only_complete, os.environ.get("TOPIC", ""))


def by_minute(cfg, conn, limit: int, only_complete: bool, topic: str) -> int:
    """The calendar of the newest `limit` minutes (quiet ones included: minutes.calendar), each
    complete or not by the table's mark, or with `topic` by that topic's own mark (and its own
    counts when GROUP_BY has the topic dimension); beside each, the job's rejects by the minute of
    their Kafka timestamp (rejected_minutes: of that topic with `topic`)."""
    with conn.cursor() as cursor:
        cursor.execute(SELECT_COMPLETE_BEFORE, (cfg.counts_table,))
        found = cursor.fetchone()
        complete_before = found[0] if found else None
        cursor.execute(store.with_table(minutes.SELECT_SPAN, cfg.counts_table))
        first, newest = cursor.fetchone()
        cursor.execute(store.with_table(SELECT_COUNT_TOTALS, cfg.counts_table))
        total, with_row, lines = cursor.fetchone()
    if topic:
        complete_before = breakdown.complete_before(conn, cfg.job_name, topic)
        print(f"job {cfg.job_name}, per topic:\n" + "\n".join(minutes.topic_marks(conn, cfg.job_name)))
    span = minutes.window(first, newest, limit, complete_before, only_complete)
    rows, rejects = {}, minutes.rejected(conn, cfg.job_name, topic, *span) if span else {}
    if span and topic and "topic" in cfg.group_by.split(","):
        rows = breakdown.read_lines(conn, cfg.job_name, "topic", *span).get(topic, {})
    elif span:
        with conn.cursor() as cursor:
            cursor.execute(store.with_table(minutes.SELECT_RANGE, cfg.counts_table), span)
            rows = {log_time: (count, seen) for log_time, count, seen in cursor.fetchall()}
    conn.close()
    whose = f"topic {topic}'s" if topic else "the table's"
    print(f"{cfg.counts_table} (LOG_FORMAT={cfg.log_format}){f', topic {topic}' if topic else ''}; complete before "
          f"{'(not known yet)' if complete_before is None else f'{complete_before:%Y-%m-%d %H:%M:%S} UTC'} ({whose} mark)"
          f"{', complete minutes only' if only_complete else ''}\nminute                ERROR lines"
          + ("        lines    ratio" if cfg.count_lines else "") + "  rejected  complete")
    for log_time, count, seen, had_row in minutes.calendar(rows, *span) if span else []:
        shown = f" {seen:>12} {ratio(count, seen) if had_row else 'quiet':>8}" if cfg.count_lines else ""
        print(f"{log_time:%Y-%m-%d %H:%M}      {count:>11}{shown}  {rejects.get(log_time, 0):>8}  "
              f"{'yes' if complete(log_time, complete_before) else 'no'}"
              + ("" if had_row or cfg.count_lines else "  (quiet)"))
    print(f"total: {total} ERROR lines in {with_row} minutes with a row"
          + (f"; {lines} lines, ratio {ratio(total, lines)}" if cfg.count_lines else ""))
    return 0


def complete(minute: datetime, complete_before: datetime | None) -> bool:
    """Whether the minute ends at or before the mark (docs/operations.md, "Complete minutes")."""
    return complete_before is not None and minute + timedelta(minutes=1) <= complete_before


def ratio(errors: int, lines: int) -> str:
    """ERROR lines over lines, as a fraction; '-' without lines (none counted, or COUNT_LINES off then)."""
    return f"{errors / lines:.4f}" if lines else "-"


def by_dimension(cfg, conn, dimension: str, rows: int, only_complete: bool) -> int:
    """The newest `rows` minutes (complete ones only with `only_complete`) of one dimension's values
    for JOB_NAME: ERROR lines, and with COUNT_LINES lines and the ratio, per minute and value."""
    counted, marked = breakdown.newest_minute(conn, cfg.job_name), breakdown.complete_before(conn, cfg.job_name)
    newest = counted
    if only_complete and counted is not None:  # the newest minute that ends at or before the mark: all listed are complete
        newest = min(counted, (marked - timedelta(minutes=1)).replace(second=0, microsecond=0)) if marked else None
    found = breakdown.read_lines(conn, cfg.job_name, dimension, newest - timedelta(minutes=rows - 1), newest) if newest else {}
    conn.close()
    kept = {value: {minute: figures for minute, figures in minutes.items() if figures[0] or cfg.count_lines}
            for value, minutes in found.items()}
    kept = {value: minutes for value, minutes in kept.items() if minutes}
    print(f"job {cfg.job_name}: ERROR lines{', lines and ratio' if cfg.count_lines else ''} by {dimension} "
          f"(GROUP_BY={cfg.group_by or '(off)'}); complete before "
          f"{'(not known yet)' if marked is None else f'{marked:%Y-%m-%d %H:%M:%S} UTC'}"
          f"{', complete minutes only' if only_complete else ''}")
    if not kept and only_complete and counted is not None:
        print("no complete minute of its series yet: wait for counted_through (docs/operations.md, 'Complete minutes')")
        return 0
    if not kept:
        print(f"no per-dimension counts of {dimension!r} for this job: is it in GROUP_BY? (docs/operations.md, "
              "'Counting by dimension')")
        return 0
    print("\n".join(dimension_table(kept, dimension, cfg.count_lines, marked)))
    return 0


def dimension_table(found: dict[str, dict[datetime, tuple[int, int]]], dimension: str, lines: bool,
                    complete_before: datetime | None) -> list[str]:
    """make counts BY=...'s lines: per minute (newest first) each value with its ERROR lines (and
    with `lines` its lines and ratio), most ERROR lines first, then most lines, then by name; the
    minute's completeness; then each value's totals in the same order."""
    def order(item: tuple[str, int, int]) -> tuple[int, int, str]:
        return -item[1], -item[2] if lines else 0, item[0]
    width = max(len(value) for value in found) + 2
    minutes = sorted({minute for counts in found.values() for minute in counts}, reverse=True)
    shown = [f"{'minute':<18}{dimension:<{width}}ERROR lines" + ("        lines    ratio" if lines else "") + "  complete"]
    for minute in minutes:
        here = sorted(((value, *counts[minute]) for value, counts in found.items() if minute in counts), key=order)
        done = "yes" if complete(minute, complete_before) else "no"
        for number, (value, errors, count) in enumerate(here):
            shown.append(f"{f'{minute:%Y-%m-%d %H:%M}' if number == 0 else '':<18}{value:<{width}}{errors:>11}"
                         + (f" {count:>12} {ratio(errors, count):>8}" if lines else "") + f"  {done}")
    totals = sorted(((value, sum(c[0] for c in counts.values()), sum(c[1] for c in counts.values()))
                     for value, counts in found.items()), key=order)
    shown.append("total: " + ", ".join(f"{value} {errors}" + (f" of {count} ({ratio(errors, count)})" if lines else "")
                                       for value, errors, count in totals))
    return shown


if __name__ == "__main__":
    sys.exit(main())
