"""MySQL access: the connection, the schema check, the lease and the one transaction per batch
(retention's pruning statements live in errorcount/retention.py and run through transaction() too).

Statements are always parameterized. Writes happen only inside transaction(), which rolls back
on any exception, so a batch's counts, offsets, dead letters and ledger row are committed together
or not at all.
"""

import contextlib
import json
import re
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pymysql
from dbutils.steady_db import SteadyDBConnection
from dbutils.steady_db import connect as steady_connect

from errorcount import faults
from errorcount.config import Config
from errorcount.errors import ConfigError, FencedError
from errorcount.offsets import minute_key
from errorcount.retry import first_line
from errorcount.summary import BatchSummary

REQUIRED_COLUMNS = {
    "error_log": {"log_time", "log_count"},
    "kafka_offsets": {"job", "topic", "kafka_partition", "next_offset", "updated_at"},
    "job_leases": {"job", "epoch", "owner", "acquired_at", "metrics_endpoint"},
    "ingest_batches": {"job", "topic", "epoch", "records", "error_lines", "rejected", "batches",
                       "offsets_before", "offsets_after", "committed_at"},
    "rejected_lines": {"job", "topic", "kafka_partition", "kafka_offset", "reason", "raw_value", "seen_at"},
    "skipped_offsets": {"job", "topic", "kafka_partition", "from_offset", "to_offset", "reason", "skipped_at"},
}
REQUIRED_INDEXES = {"rejected_lines": {"rejected_lines_seen"}}  # RETENTION_DAYS deletes by it
SCHEMA_CHECKS = (  # (what the database has, what the job needs, how a missing name is shown)
    ("SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = %s", REQUIRED_COLUMNS, ""),
    ("SELECT table_name, index_name FROM information_schema.statistics WHERE table_schema = %s", REQUIRED_INDEXES,
     " (index)"),
)
SELECT_OFFSETS = ("SELECT kafka_partition, next_offset FROM kafka_offsets "
                  "WHERE job = %s AND topic = %s ORDER BY kafka_partition")
COUNTS_TABLE = "error_log"  # the default; COUNTS_TABLE names another table of its shape
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
# VALUES(col) rather than a row alias: MariaDB 10.11 has no `AS new` (MySQL 8.4 only warns).
UPSERT_COUNTS = ("INSERT INTO `{table}` (log_time, log_count) VALUES (%s, %s) "
                 "ON DUPLICATE KEY UPDATE log_count = log_count + VALUES(log_count)")
UPSERT_OFFSETS = ("INSERT INTO kafka_offsets (job, topic, kafka_partition, next_offset) VALUES (%s, %s, %s, %s) "
                  "ON DUPLICATE KEY UPDATE next_offset = VALUES(next_offset), updated_at = CURRENT_TIMESTAMP(3)")
SELECT_NEWEST_COUNTS = "SELECT log_time, log_count FROM `{table}` ORDER BY log_time DESC LIMIT %s"  # make counts
SELECT_COUNT_TOTALS = "SELECT COALESCE(SUM(log_count), 0), COUNT(*) FROM `{table}`"
SELECT_COUNTS_BETWEEN = "SELECT log_time, log_count FROM `{table}` WHERE log_time BETWEEN %s AND %s ORDER BY log_time"
# make report: the ledger per UTC minute of commit (committed_at is written in the job's UTC session).
SELECT_LEDGER_MINUTES = ("SELECT TIMESTAMP(DATE_FORMAT(committed_at, '%%Y-%%m-%%d %%H:%%i:00')), SUM(rejected), SUM(batches) "
                         "FROM ingest_batches WHERE job = %s AND committed_at BETWEEN %s AND %s GROUP BY 1 ORDER BY 1")
BUMP_LEASE = ("INSERT INTO job_leases (job, epoch, owner, metrics_endpoint) VALUES (%s, 1, %s, %s) "
              "ON DUPLICATE KEY UPDATE epoch = epoch + 1, owner = VALUES(owner), acquired_at = CURRENT_TIMESTAMP(3), "
              "metrics_endpoint = VALUES(metrics_endpoint)")
SELECT_LEASE = "SELECT epoch, owner FROM job_leases WHERE job = %s"
# acquired_at was written in the job's UTC session: UNIX_TIMESTAMP reads it back as epoch seconds.
SELECT_LEASE_HOLDER = "SELECT epoch, owner, UNIX_TIMESTAMP(acquired_at) FROM job_leases WHERE job = %s FOR UPDATE"
# A dead letter seen again (a batch re-read after a crash) keeps its first row.
INSERT_REJECTED = ("INSERT INTO rejected_lines (job, topic, kafka_partition, kafka_offset, reason, raw_value) "
                   "VALUES (%s, %s, %s, %s, %s, %s) ON DUPLICATE KEY UPDATE kafka_offset = kafka_offset")
INSERT_LEDGER = ("INSERT INTO ingest_batches (job, topic, epoch, records, error_lines, rejected, offsets_before, "
                 "offsets_after) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)")
INSERT_SKIPPED = ("INSERT INTO skipped_offsets (job, topic, kafka_partition, from_offset, to_offset, reason) "
                  "VALUES (%s, %s, %s, %s, %s, %s)")


def with_table(statement: str, table: str) -> str:
    """A statement on the counts table `table`: an identifier (COUNTS_TABLE's own rule, checked
    again here because it is put into SQL text), quoted."""
    if not IDENTIFIER.fullmatch(table):
        raise ConfigError(f"COUNTS_TABLE must be an identifier (letters, digits, _), got {table!r}")
    return statement.replace("{table}", table)


class CommitOutcomeUnknown(Exception):
    """The connection broke while COMMIT was in flight: the batch may or may not be stored."""


def connect_args(cfg: Config) -> dict:
    """PyMySQL connection arguments, TLS included when MYSQL_SSL_CA / _CERT / _KEY are set."""
    args = dict(host=cfg.mysql_host, port=cfg.mysql_port, user=cfg.mysql_user, password=cfg.mysql_password,
                database=cfg.mysql_database, charset="utf8mb4", autocommit=False,
                connect_timeout=cfg.mysql_connect_timeout, read_timeout=60, write_timeout=60)
    if cfg.mysql_ssl_ca:
        args.update(ssl_ca=cfg.mysql_ssl_ca, ssl_verify_cert=True, ssl_verify_identity=cfg.mysql_ssl_verify_identity)
    if cfg.mysql_ssl_cert:
        args.update(ssl_cert=cfg.mysql_ssl_cert, ssl_key=cfg.mysql_ssl_key)
    return args


def connect(cfg: Config) -> SteadyDBConnection:
    """A DBUtils steady connection: reconnects between transactions, never inside one
    (ping=2: the connection is checked, and replaced if dead, whenever a cursor is created).
    Raises ConfigError for bad credentials; connection failures propagate (callers retry)."""
    try:
        return steady_connect(
            creator=pymysql, ping=2, setsession=["SET time_zone = '+00:00'", "SET SESSION sql_mode = 'TRADITIONAL'"],
            **connect_args(cfg))
    except pymysql.err.OperationalError as error:
        if error.args and error.args[0] in (1044, 1045, 1049):  # access denied, bad password, unknown database
            raise ConfigError(f"MySQL refused {cfg.mysql_user}@{cfg.mysql_host}:{cfg.mysql_port}/{cfg.mysql_database}: "
                              f"{error.args[-1]}; check MYSQL_USER, the password and MYSQL_DATABASE") from None
        raise


def is_transient(error: BaseException) -> bool:
    """Connection loss, server gone, deadlock or lock timeout: the transaction was rolled back
    (or never began) and may be retried. Anything else is a real error."""
    if isinstance(error, pymysql.err.InterfaceError | ConnectionError | TimeoutError):
        return True
    return isinstance(error, pymysql.err.OperationalError) and bool(error.args) and error.args[0] in (
        0, 1040, 1053, 1205, 1213, 1927, 2003, 2006, 2013, 2055)


def port_open(host: str, port: int, timeout: float = 2.0) -> bool:
    try:
        with socket.create_connection((host, port), timeout):
            return True
    except OSError:
        return False


def failure_text(cfg: Config, probe: Callable[[str, int], bool] = port_open) -> Callable[[BaseException], str]:
    """How a retried MySQL failure reads in the log: what happened, where. PyMySQL says `(0, '')`
    for a connection that is gone, also when reconnecting to a server that is down, so a lost
    connection is told apart from a refused one by trying the port (`probe`)."""
    where = f"{cfg.mysql_host}:{cfg.mysql_port}"
    refused = f"MySQL refused the connection or is unreachable at {where}"

    def describe(error: BaseException) -> str:
        code = error.args[0] if isinstance(error, pymysql.err.Error) and error.args else None
        if code == 2003:
            return refused
        if isinstance(error, pymysql.err.InterfaceError | ConnectionError) or code in (0, 2006, 2013, 2055):
            return f"the connection to MySQL at {where} was lost" if probe(cfg.mysql_host, cfg.mysql_port) else refused
        if code in (1205, 1213):
            return f"MySQL rolled the transaction back ({first_line(error)})"
        return first_line(error)
    return describe


@contextlib.contextmanager
def transaction(conn: SteadyDBConnection, batch: bool = False) -> Iterator[pymysql.cursors.Cursor]:
    """BEGIN ... COMMIT; any exception rolls back and propagates. A connection lost during
    COMMIT itself raises CommitOutcomeUnknown, because the server may have committed.
    batch=True marks a batch commit, where the test-only fault points apply."""
    cursor = conn.cursor()  # first: outside a transaction this replaces a dead connection
    try:
        conn.begin()  # inside the try: a failed BEGIN must be rolled back too, or DBUtils stays "in a transaction"
        yield cursor
        if batch:
            faults.crash_point("before_commit")
            if faults.fires("commit_lost_unapplied"):
                raise CommitOutcomeUnknown("test fault: connection lost before COMMIT reached the server")
        try:
            conn.commit()
        except Exception as error:
            if is_transient(error):
                raise CommitOutcomeUnknown(f"connection lost during COMMIT: {error}") from error
            raise
        if batch and faults.fires("commit_lost_applied"):
            raise CommitOutcomeUnknown("test fault: COMMIT applied but its reply was lost")
    except BaseException:
        with contextlib.suppress(Exception):
            conn.rollback()
        raise
    finally:
        with contextlib.suppress(Exception):
            cursor.close()


def verify_schema(conn: SteadyDBConnection, database: str, counts_table: str = COUNTS_TABLE) -> None:
    """Raises ConfigError naming every missing table, column or index (the counts table's
    columns are error_log's)."""
    missing = []
    columns = {**REQUIRED_COLUMNS, counts_table.lower(): REQUIRED_COLUMNS[COUNTS_TABLE]}
    with transaction(conn) as cursor:
        for select, required, label in ((SCHEMA_CHECKS[0][0], columns, ""), *SCHEMA_CHECKS[1:]):
            cursor.execute(select, (database,))
            found: dict[str, set[str]] = {}
            for table, name in cursor.fetchall():
                found.setdefault(table.lower(), set()).add(name.lower())
            missing += [f"{table}.{name}{label}" for table, names in required.items()
                        for name in sorted(names - found.get(table, set()))]
    if missing:
        raise ConfigError(f"database {database!r} lacks {', '.join(missing)}: apply sql/schema.sql "
                          "as an admin (make schema, with COUNTS_TABLE set for a counts table of its own), then restart")


@dataclass(frozen=True)
class Reattempt:
    """This driver is YARN's re-attempt (attempt 2 or later) of application `app`, which YARN
    accepted at `submitted_ms` (epoch milliseconds, from the AM's APP_SUBMIT_TIME_ENV)."""

    app: str
    submitted_ms: int


def acquire_lease(conn: SteadyDBConnection, job: str, owner: str, reattempt: Reattempt | None = None,
                  metrics_endpoint: str | None = None) -> int:
    """Takes over the job: bumps its epoch, so any older instance is fenced at its next commit.

    A YARN re-attempt does not take the job from an instance of another application that took it
    after this application was submitted: that instance replaced this application, which must
    not steal the job back (FencedError). Earlier attempts of its own application, and holders
    older than its submission (the previous deployment), it takes over like any start."""
    with transaction(conn) as cursor:
        if reattempt:
            cursor.execute(SELECT_LEASE_HOLDER, (job,))
            row = cursor.fetchone()
            own = row is not None and str(row[1]).endswith(f" app {reattempt.app}")
            if row is not None and not own and float(row[2]) * 1000 >= reattempt.submitted_ms:
                raise FencedError(
                    f"job {job!r} is held by another instance (epoch {row[0]}, {row[1]}) that took it after "
                    f"application {reattempt.app} was submitted: it replaced this application, so YARN's "
                    "re-attempt does not take the job back. Nothing was committed. If that instance is "
                    "gone, submit the job again.")
        cursor.execute(BUMP_LEASE, (job, owner, metrics_endpoint))
        cursor.execute(SELECT_LEASE, (job,))
        return int(cursor.fetchone()[0])


def load_offsets(conn: SteadyDBConnection, job: str, topic: str) -> dict[int, int]:
    """Stored next offsets of this job and topic: {partition: next offset}."""
    with transaction(conn) as cursor:
        cursor.execute(SELECT_OFFSETS, (job, topic))
        return {int(partition): int(offset) for partition, offset in cursor.fetchall()}


def check_owner(cursor, job: str, topic: str, epoch: int, expected: dict[int, int]) -> None:
    """Locks the lease and offset rows; FencedError unless this instance still owns both."""
    cursor.execute(SELECT_LEASE + " FOR UPDATE", (job,))
    row = cursor.fetchone()
    if row is None or int(row[0]) != epoch:
        holder = f"epoch {row[0]} held by {row[1]}" if row else "no lease row"
        raise FencedError(f"job {job!r} was taken over by another instance ({holder}; this one had epoch {epoch}). "
                          "Nothing of this batch was committed; the newer instance carries on. "
                          "If that is unexpected, make sure one instance runs per JOB_NAME.")
    cursor.execute(SELECT_OFFSETS + " FOR UPDATE", (job, topic))
    stored = {int(partition): int(offset) for partition, offset in cursor.fetchall()}
    if stored != expected:
        raise FencedError(
            f"the stored offsets of job {job!r} on topic {topic!r} changed behind this driver "
            f"(expected {expected}, found {stored}): another instance is writing this job. "
            "Nothing of this batch was committed. Make sure one instance runs per JOB_NAME, then restart.")


def commit_batch(conn: SteadyDBConnection, job: str, topic: str, epoch: int, batch: BatchSummary,
                 before: dict[int, int], after: dict[int, int], counts_table: str = COUNTS_TABLE) -> None:
    """One transaction: check that MySQL holds `before` under this epoch, add the batch's counts
    to `counts_table`, store `after`, its dead letters and the ledger row. Keys are written in
    sorted order so concurrent writers cannot deadlock."""
    with transaction(conn, batch=True) as cursor:
        check_owner(cursor, job, topic, epoch, before)
        if batch.minute_counts:
            cursor.executemany(with_table(UPSERT_COUNTS, counts_table),
                               [(minute_key(m), n) for m, n in sorted(batch.minute_counts.items())])
        changed = sorted((p, o) for p, o in after.items() if before.get(p) != o)
        cursor.executemany(UPSERT_OFFSETS, [(job, topic, p, o) for p, o in changed])
        if batch.dead_letters:
            cursor.executemany(INSERT_REJECTED, [(job, topic, *letter) for letter in sorted(batch.dead_letters)])
        cursor.execute(INSERT_LEDGER, (job, topic, epoch, batch.records, batch.errors, batch.rejected,
                                       as_json(before), as_json(after)))


def skip_offsets(conn: SteadyDBConnection, job: str, topic: str, epoch: int, stored: dict[int, int],
                 resume: dict[int, int], reason: str) -> None:
    """Moves stored offsets to `resume` and records each skipped range, in one transaction."""
    with transaction(conn) as cursor:
        check_owner(cursor, job, topic, epoch, stored)
        for partition, offset in sorted(resume.items()):
            cursor.execute(INSERT_SKIPPED, (job, topic, partition, stored[partition], offset, reason))
            cursor.execute(UPSERT_OFFSETS, (job, topic, partition, offset))


def as_json(offsets: dict[int, int]) -> str:
    return json.dumps({str(p): o for p, o in sorted(offsets.items())})
