"""Admin-side MySQL access for the tests, make chaos and make bench: the operator's view of
what the job stored (independent of the job's own store code)."""

import contextlib
import os
import re
import subprocess
from collections import Counter
from collections.abc import Iterator

import pymysql

from errorcount.tools import ROOT
from errorcount.tools.localenv import local_stack


def connect(database: str | None = None) -> pymysql.Connection:
    """The admin account (root@127.0.0.1 of the local stack), autocommit, its session in UTC as the
    job's are (UNIX_TIMESTAMP and NOW() must not read DATETIMEs in whatever zone the server has)."""
    env = local_stack()
    password = (ROOT / ".local" / "secrets" / "mysql_root_password").read_text(encoding="utf-8").strip()
    return pymysql.connect(host="127.0.0.1", port=int(env["MYSQL_PORT"]), user="root", password=password,
                           database=database or env["MYSQL_DATABASE"], autocommit=True,
                           init_command="SET time_zone = '+00:00'")


@contextlib.contextmanager
def counts_locked(table: str = "error_log") -> Iterator[None]:
    """Every row and gap of the counts table `table` locked from an admin transaction of its own
    (SELECT ... FOR UPDATE) until the block ends: a job's next commit waits in its counts upsert
    (for up to its MYSQL_IDLE_TIMEOUT), so what the block does (a kill) lands before that commit
    however long it takes. The block's end closes the connection: the server rolls back, the lock goes."""
    blocker = connect()
    try:
        blocker.begin()
        with blocker.cursor() as cursor:
            cursor.execute(f"SELECT log_time FROM `{table}` FOR UPDATE")
        yield
    finally:
        with contextlib.suppress(Exception):
            blocker.close()


def apply_schema(conn: pymysql.Connection) -> None:
    """sql/schema.sql, statement by statement, to the connection's database."""
    apply_sql_file(conn, "schema.sql")


def sql_template(name: str, **names: str) -> str:
    """sql/<name> with `names` (MYSQL_DATABASE, MYSQL_USER, COUNTS_TABLE, READER_PASSWORD) put in by
    the stack's own helper, scripts/sql-template.sh."""
    script = f'source "{ROOT / "scripts" / "sql-template.sh"}" && sql_template "{ROOT / "sql" / name}"'
    done = subprocess.run(["bash", "-c", script], env={"PATH": os.environ.get("PATH", ""), **names},
                          capture_output=True, text=True, timeout=30)
    if done.returncode:
        raise RuntimeError(f"sql_template {name}: {done.stderr.strip()}")
    return done.stdout


def apply_sql_file(conn: pymysql.Connection, name: str, **names: str) -> None:
    """sql/<name>, statement by statement; with `names`, through sql_template."""
    text = sql_template(name, **names) if names else (ROOT / "sql" / name).read_text(encoding="utf-8")
    text = re.sub(r"--[^\n]*", "", text)  # comments may hold ';'
    for statement in filter(str.strip, text.split(";")):
        query(conn, statement.replace("%", "%%"))  # query() formats: a host '%' must stay as written


def query(conn: pymysql.Connection, sql: str, args=()) -> list[tuple]:
    try:
        conn.ping()
    except pymysql.err.Error:
        conn.connect()  # fault tests restart MariaDB under this connection
    with conn.cursor() as cursor:
        cursor.execute(sql, args)
        return list(cursor.fetchall())


def error_log(conn: pymysql.Connection, table: str = "error_log", column: str = "log_count") -> Counter:
    """A counts table (error_log by default) as {'YYYY-MM-DD HH:MM:00': count} of `column`
    (log_count: ERROR lines; line_count: every line, COUNT_LINES). A Counter: a minute at 0 equals
    one not there."""
    return Counter({t.strftime("%Y-%m-%d %H:%M:00"): int(n)
                    for t, n in query(conn, f"SELECT log_time, `{column}` FROM `{table}`")})


def release_counts_table(conn: pymysql.Connection, table: str = "error_log", empty: bool = True) -> None:
    """What an admin does to give a counts table to another job: forget which job owns it
    (counts_tables) and, with `empty`, delete its rows. Creates it like error_log if missing."""
    if table != "error_log":
        query(conn, f"CREATE TABLE IF NOT EXISTS `{table}` LIKE error_log")
    if empty:
        query(conn, f"DELETE FROM `{table}`")
    query(conn, "DELETE FROM counts_tables WHERE counts_table = %s", (table,))


def stored_offsets(conn: pymysql.Connection, job: str, topic: str) -> dict[int, int]:
    """The job's next offsets of `topic`, per partition: what it resumes from (rows it gave up, kept
    as history under topic_id 'deleted:<ID>', left out)."""
    rows = query(conn, "SELECT kafka_partition, next_offset FROM kafka_offsets WHERE job = %s AND topic = %s "
                       "AND (topic_id IS NULL OR topic_id NOT LIKE 'deleted:%%')", (job, topic))
    return {int(p): int(o) for p, o in rows}


def lease(conn: pymysql.Connection, job: str) -> tuple[int, str]:
    """(epoch, owner) of the job's lease; (0, '') before any instance took it."""
    rows = query(conn, "SELECT epoch, owner FROM job_leases WHERE job = %s", (job,))
    return (int(rows[0][0]), rows[0][1]) if rows else (0, "")


def ledger(conn: pymysql.Connection, job: str) -> tuple[int, int, int, int]:
    """(batches, records, error lines, rejected) summed over the job's ledger."""
    row = query(conn, "SELECT COUNT(*), COALESCE(SUM(records), 0), COALESCE(SUM(error_lines), 0), "
                      "COALESCE(SUM(rejected), 0) FROM ingest_batches WHERE job = %s", (job,))[0]
    batches, records, errors, rejected = (int(v) for v in row)
    return batches, records, errors, rejected


def ledger_log_records(conn: pymysql.Connection, job: str) -> int:
    """The log records the job's ledger counts (rows stored before the column: as many as records)."""
    return int(query(conn, "SELECT COALESCE(SUM(COALESCE(log_records, records)), 0) FROM ingest_batches WHERE job = %s",
                     (job,))[0][0])


def series_counts(conn: pymysql.Connection, job: str, dimensions: str, column: str = "log_count") -> Counter:
    """A job's per-dimension counts (`column`: log_count or line_count) of the series of one GROUP_BY
    (`dimensions`, canonical) as {('YYYY-MM-DD HH:MM:00', (value, ...)): count}, values in that
    order; the overflow series' are None."""
    rows = query(conn, f"SELECT c.log_time, c.series_id, l.dimension, l.value, c.`{column}` "
                       "FROM error_series_counts c JOIN error_series s ON s.series_id = c.series_id "
                       "JOIN error_series_labels l ON l.series_id = c.series_id WHERE c.job = %s AND s.dimensions = %s",
                 (job, dimensions))
    labels: dict[tuple, dict] = {}
    counts: dict[tuple, int] = {}
    for log_time, series_id, dimension, value, count in rows:
        key = (log_time.strftime("%Y-%m-%d %H:%M:00"), series_id)
        labels.setdefault(key, {})[dimension] = value
        counts[key] = int(count)
    result: Counter = Counter()
    for (minute, series_id), values in labels.items():
        result[minute, tuple(values[name] for name in dimensions.split(","))] += counts[minute, series_id]
    return result


def series_totals(conn: pymysql.Connection, job: str, column: str = "log_count") -> Counter:
    """A job's per-dimension counts (`column`) summed over every series, per minute: {'YYYY-MM-DD HH:MM:00': count}."""
    return Counter({t.strftime("%Y-%m-%d %H:%M:00"): int(n) for t, n in query(
        conn, f"SELECT log_time, SUM(`{column}`) FROM error_series_counts WHERE job = %s GROUP BY log_time", (job,))})


def drop_counts_table(conn: pymysql.Connection, table: str) -> None:
    """Drops a counts table of a test and the minutes view sql/counts_table.sql made for it (a view
    left over a dropped table makes information_schema reads warn)."""
    query(conn, f"DROP VIEW IF EXISTS `{table}_minutes`")
    query(conn, f"DROP TABLE IF EXISTS `{table}`")
