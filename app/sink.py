"""All MySQL access: the connection, the schema check, and the one transaction per batch.

Statements are always parameterized. Writes happen only inside transaction(), which rolls back
on any exception, so a batch's counts and offsets are committed together or not at all.
"""

import contextlib
from collections.abc import Iterator

import pymysql
from dbutils.steady_db import SteadyDBConnection
from dbutils.steady_db import connect as steady_connect

from app.config import Config
from app.errors import ConfigError, FencedError, UnavailableError
from app.offsets import minute_key

REQUIRED_COLUMNS = {
    "error_log": {"log_time", "log_count"},
    "kafka_offsets": {"job", "topic", "kafka_partition", "next_offset", "updated_at"},
}
SELECT_OFFSETS = ("SELECT kafka_partition, next_offset FROM kafka_offsets "
                  "WHERE job = %s AND topic = %s ORDER BY kafka_partition")
# VALUES(col) rather than a row alias: MariaDB 10.11 has no `AS new` (MySQL 8.4 only warns).
UPSERT_COUNTS = ("INSERT INTO error_log (log_time, log_count) VALUES (%s, %s) "
                 "ON DUPLICATE KEY UPDATE log_count = log_count + VALUES(log_count)")
UPSERT_OFFSETS = ("INSERT INTO kafka_offsets (job, topic, kafka_partition, next_offset) VALUES (%s, %s, %s, %s) "
                  "ON DUPLICATE KEY UPDATE next_offset = VALUES(next_offset), updated_at = CURRENT_TIMESTAMP(3)")


def connect(cfg: Config) -> SteadyDBConnection:
    """A DBUtils steady connection: reconnects between transactions, never inside one."""
    try:
        return steady_connect(
            creator=pymysql, setsession=["SET time_zone = '+00:00'", "SET SESSION sql_mode = 'TRADITIONAL'"],
            host=cfg.mysql_host, port=cfg.mysql_port, user=cfg.mysql_user, password=cfg.mysql_password,
            database=cfg.mysql_database, charset="utf8mb4", autocommit=False,
            connect_timeout=cfg.mysql_connect_timeout)
    except pymysql.err.OperationalError as error:
        code = error.args[0] if error.args else None
        if code in (1044, 1045, 1049):  # access denied, bad password, unknown database
            raise ConfigError(f"MySQL refused {cfg.mysql_user}@{cfg.mysql_host}:{cfg.mysql_port}/{cfg.mysql_database}: "
                              f"{error.args[-1]}; check MYSQL_USER, the password and MYSQL_DATABASE") from None
        raise UnavailableError(f"cannot connect to MySQL at {cfg.mysql_host}:{cfg.mysql_port}: {error.args[-1]}; "
                               "start MySQL (make up) or fix MYSQL_HOST/MYSQL_PORT, then restart") from None


@contextlib.contextmanager
def transaction(conn: SteadyDBConnection) -> Iterator[pymysql.cursors.Cursor]:
    """BEGIN ... COMMIT; any exception rolls back and propagates."""
    conn.begin()
    cursor = conn.cursor()
    try:
        yield cursor
        conn.commit()
    except BaseException:
        with contextlib.suppress(Exception):
            conn.rollback()
        raise
    finally:
        with contextlib.suppress(Exception):
            cursor.close()


def verify_schema(conn: SteadyDBConnection, database: str) -> None:
    """Raises ConfigError naming every missing table or column."""
    with transaction(conn) as cursor:
        cursor.execute("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = %s",
                       (database,))
        found: dict[str, set[str]] = {}
        for table, column in cursor.fetchall():
            found.setdefault(table.lower(), set()).add(column.lower())
    missing = [f"{table}.{column}" for table, columns in REQUIRED_COLUMNS.items()
               for column in sorted(columns - found.get(table, set()))]
    if missing:
        raise ConfigError(f"database {database!r} lacks {', '.join(missing)}: apply sql/schema.sql "
                          "as an admin (make schema), then restart")


def load_offsets(conn: SteadyDBConnection, job: str, topic: str) -> dict[int, int]:
    """Stored next offsets of this job and topic: {partition: next offset}."""
    with transaction(conn) as cursor:
        cursor.execute(SELECT_OFFSETS, (job, topic))
        return {int(partition): int(offset) for partition, offset in cursor.fetchall()}


def commit_batch(conn: SteadyDBConnection, job: str, topic: str, expected: dict[int, int],
                 minute_counts: dict[int, int], new_offsets: dict[int, int]) -> None:
    """One transaction: lock this job's offset rows, check they are still `expected` (else another
    writer is active: FencedError, nothing written), add the counts, store the new offsets.
    Keys are written in sorted order so concurrent writers cannot deadlock on each other."""
    with transaction(conn) as cursor:
        cursor.execute(SELECT_OFFSETS + " FOR UPDATE", (job, topic))
        stored = {int(partition): int(offset) for partition, offset in cursor.fetchall()}
        if stored != expected:
            raise FencedError(
                f"the stored offsets of job {job!r} on topic {topic!r} changed behind this driver "
                f"(expected {expected}, found {stored}): another instance is writing this job. "
                "Nothing of this batch was committed. Make sure one instance runs per JOB_NAME, then restart.")
        if minute_counts:
            cursor.executemany(UPSERT_COUNTS, [(minute_key(m), n) for m, n in sorted(minute_counts.items())])
        changed = sorted((p, o) for p, o in new_offsets.items() if expected.get(p) != o)
        if changed:
            cursor.executemany(UPSERT_OFFSETS, [(job, topic, p, o) for p, o in changed])
