"""The recount's MySQL side (docs/operations.md, "Recounting a time range"): what the job's rows
say for the plan (its offsets and where it began counting each partition, its rules, the tables'
other jobs), and the swap, one transaction per chunk of minutes under the job's lease lock.

The swap is where exactness is decided (docs/design.md, "Why a recount cannot lose or double a
record"): with the lease row locked, the live job cannot commit; the stored offsets read under
that lock are exactly what the counts hold; the records between what the recount read and those
offsets are read too (`read_tail`, before anything is written), so the chunk's new rows count
every record the job has counted whose minute is in the chunk, under the same rules, once."""

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from errorcount.config.rules import Rules
from errorcount.errors import ConfigError
from errorcount.faults import NO_FAULTS, Hooks
from errorcount.offsets import Position, TopicPartition, epoch_minute, minute_key, minute_text
from errorcount.recount import diff
from errorcount.recount.diff import Figures
from errorcount.recount.plan import Range
from errorcount.store.mysql import ServerCursor, transaction, with_table
from errorcount.store.rows import GIVEN_UP, rejected_minute_rows
from errorcount.store.series import SeriesStore

SELECT_ROWS = ("SELECT topic, kafka_partition, next_offset, topic_id, counted_from, UNIX_TIMESTAMP(updated_at) "
               "FROM kafka_offsets WHERE job = %s ORDER BY topic, kafka_partition")
# Where the job began counting a row stored before counted_from existed: the first ledger row of
# its topic (retention merges rows but keeps the first one's offsets_before).
SELECT_FIRST_LEDGER = ("SELECT b.topic, b.offsets_before FROM ingest_batches b JOIN (SELECT topic, MIN(id) AS id "
                       "FROM ingest_batches WHERE job = %s GROUP BY topic) f ON b.id = f.id")
SELECT_RECREATED = ("SELECT topic, kafka_partition, UNIX_TIMESTAMP(MAX(skipped_at)) FROM skipped_offsets "
                    "WHERE job = %s AND kind = 'recreated' GROUP BY topic, kafka_partition")
SELECT_RULES = "SELECT epoch, rules FROM job_leases WHERE job = %s"
SELECT_CLAIMS = "SELECT counts_table, job FROM counts_tables WHERE counts_table = %s OR job = %s"
SELECT_RANGE = "SELECT log_time, log_count, line_count FROM `{table}` WHERE log_time >= %s AND log_time < %s"
# The job's account never deletes counts (sql/grants.sql): a minute is replaced by zeroing the
# range's rows and setting each recounted minute; a minute the recount finds nothing in keeps a
# row of zeros, which reads as no row does.
ZERO_RANGE = "UPDATE `{table}` SET log_count = 0, line_count = 0 WHERE log_time >= %s AND log_time < %s"
SET_COUNTS = ("INSERT INTO `{table}` (log_time, log_count, line_count) VALUES (%s, %s, %s) AS new "
              "ON DUPLICATE KEY UPDATE log_count = new.log_count, line_count = new.line_count")
DELETE_SERIES = "DELETE FROM error_series_counts WHERE job = %s AND log_time >= %s AND log_time < %s"
# Rejects by the minute of their Kafka timestamp, every topic of the job: replaced as the counts
# are (zeroed, then set; the job's account has no DELETE on rejected_minutes).
SELECT_REJECTS = "SELECT COALESCE(SUM(rejected), 0) FROM rejected_minutes WHERE job = %s AND log_time >= %s AND log_time < %s"
ZERO_REJECTS = "UPDATE rejected_minutes SET rejected = 0 WHERE job = %s AND log_time >= %s AND log_time < %s"
SET_REJECTS = ("INSERT INTO rejected_minutes (job, topic, log_time, rejected) VALUES (%s, %s, %s, %s) AS new "
               "ON DUPLICATE KEY UPDATE rejected = new.rejected")
INSERT_RECOUNT = ("INSERT INTO recounts (job, first_minute, end_minute, offsets_from, offsets_to, errors_before, "
                  "lines_before, errors_after, lines_after, rejects_before, rejects_after, minutes_changed, series_rows, "
                  "rules_digest, epoch, recounted_by) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")
SELECT_SWAPPED = "SELECT COUNT(*) FROM recounts WHERE job = %s AND recounted_by = %s AND first_minute = %s"
# Taken, or kept: 1 at once when this connection holds the lock already (a user lock is
# re-entrant, and GET_LOCK would count a second hold), else one try to take it.
GET_LOCK = "SELECT IF(IS_USED_LOCK(%s) = CONNECTION_ID(), 1, GET_LOCK(%s, 0)), IS_USED_LOCK(%s)"
# The lock's connection stays silent while the recount reads for minutes or hours: MySQL's default
# idle limit (8 h) instead of MYSQL_IDLE_TIMEOUT, which would drop it, and the lock with it.
LOCK_SESSION = "SET SESSION wait_timeout = 28800"


@dataclass(frozen=True)
class JobRow:
    """One kafka_offsets row as the recount plans from it."""

    next_offset: int
    counted_from: int       # where the job began counting (the ledger's first offsets for an older row)
    topic_id: str | None    # the topic's ID the row belongs to (None: unknown)
    gone: bool              # given up: the topic was deleted (its records too)
    updated_ms: int         # when the row was last written: every record it counted was appended before


@dataclass(frozen=True)
class Swapped:
    before: dict[int, tuple[int, int]]  # the chunk's minutes as they were
    after: dict[int, tuple[int, int]]   # and as the swap wrote them
    rejects: tuple[int, int] = (0, 0)   # the chunk's rejects (rejected_minutes), before and after


def lock_name(job: str) -> str:
    """The MySQL user lock one recount of `job` holds (GET_LOCK names are at most 64 characters)."""
    return "errorcount-recount-" + hashlib.sha256(job.encode()).hexdigest()[:40]


class RecountStore:
    """The recount's transactions for one job and counts table, on one connection; `series` (with
    GROUP_BY) admits and writes the per-series rows as the job's batches do."""

    def __init__(self, conn, job: str, counts_table: str, rules: Rules, recounted_by: str,
                 series: SeriesStore | None = None, hooks: Hooks = NO_FAULTS):
        self.conn, self.job, self.counts_table, self.rules = conn, job, counts_table, rules
        self.recounted_by, self.series, self.hooks = recounted_by, series, hooks

    def hold_lock(self, started: bool = False) -> None:
        """One recount per job at a time: ConfigError naming the connection that holds the lock.
        Held by this store's connection until it closes: give it a connection of its own, used for
        nothing else. Called again before each chunk (`started`): a SQL server restarted meanwhile
        dropped the lock with the connection, which reconnects without it; taken again here, or
        refused if another recount took it in between."""
        name = lock_name(self.job)
        with transaction(self.conn) as cursor:
            cursor.execute(LOCK_SESSION)
            cursor.execute(GET_LOCK, (name, name, name))
            got, holder = cursor.fetchone()
        if got == 1:
            return
        if started:
            raise ConfigError(f"the recount of job {self.job!r} lost its lock (the SQL server restarted) and another "
                              f"recount took it meanwhile (MySQL connection {holder}): the chunks before were swapped, "
                              "each exact; this one stops here. Wait for the other to finish, then recount the range "
                              "again.")
        raise ConfigError(f"another recount of job {self.job!r} is running (MySQL connection {holder} holds its lock): "
                          "recounts of one job run one at a time. Wait for it to finish, then run this one "
                          "again. Nothing was changed.")

    def job_rows(self) -> dict[TopicPartition, JobRow]:
        """Every offset row of the job, of every topic it ever read, with where it began counting."""
        with transaction(self.conn) as cursor:
            return self.read_rows(cursor)

    def read_rows(self, cursor: ServerCursor, lock: bool = False) -> dict[TopicPartition, JobRow]:
        cursor.execute(SELECT_ROWS + (" FOR UPDATE" if lock else ""), (self.job,))
        rows = cursor.fetchall()
        first: dict[str, dict[str, int]] = {}
        if any(counted_from is None for *_head, counted_from, _at in rows):
            cursor.execute(SELECT_FIRST_LEDGER, (self.job,))
            first = {str(topic): json.loads(before) for topic, before in cursor.fetchall()}
        found = {}
        for topic, partition, next_offset, topic_id, counted_from, updated in rows:
            if counted_from is None:  # no ledger row: nothing counted yet
                ledger = first.get(topic)
                counted_from = next_offset if ledger is None else ledger.get(str(partition), 0)
            given_up = str(topic_id or "").startswith(GIVEN_UP)
            found[TopicPartition(str(topic), int(partition))] = JobRow(
                int(next_offset), int(counted_from), str(topic_id)[len(GIVEN_UP):] if given_up else topic_id,
                given_up, int(float(updated) * 1000))
        return found

    def recreated_ms(self) -> dict[TopicPartition, int]:
        """When the job found each partition's topic recreated (its newest skip row of that kind)."""
        with transaction(self.conn) as cursor:
            cursor.execute(SELECT_RECREATED, (self.job,))
            return {TopicPartition(str(t), int(p)): int(float(at) * 1000) for t, p, at in cursor.fetchall()}

    def live_rules(self) -> Rules | None:
        """The rules the job's newest start stored (None: none stored)."""
        with transaction(self.conn) as cursor:
            cursor.execute(SELECT_RULES, (self.job,))
            row = cursor.fetchone()
        return None if row is None or row[1] is None else Rules.from_text(row[1])

    def claims(self) -> tuple[list[str], list[str]]:
        """The counts tables the job has claimed (writes), and the other jobs that claimed this
        store's counts table (SHARE_COUNTS_TABLE)."""
        with transaction(self.conn) as cursor:
            cursor.execute(SELECT_CLAIMS, (self.counts_table, self.job))
            rows = [(str(table), str(job)) for table, job in cursor.fetchall()]
        return (sorted({table for table, job in rows if job == self.job}),
                sorted({job for table, job in rows if table == self.counts_table and job != self.job}))

    def figures(self, span: Range) -> dict[int, tuple[int, int]]:
        """The range's minutes as the counts table holds them now."""
        with transaction(self.conn) as cursor:
            return self.read_range(cursor, span)

    def rejects(self, span: Range) -> int:
        """The range's rejects (by their Kafka minute) as rejected_minutes holds them now."""
        with transaction(self.conn) as cursor:
            return self.read_rejects(cursor, span)

    def read_rejects(self, cursor: ServerCursor, span: Range, lock: bool = False) -> int:
        cursor.execute(SELECT_REJECTS + (" FOR UPDATE" if lock else ""), (self.job, minute_key(span.first), minute_key(span.end)))
        return int(cursor.fetchone()[0])

    def read_range(self, cursor: ServerCursor, span: Range, lock: bool = False) -> dict[int, tuple[int, int]]:
        cursor.execute(with_table(SELECT_RANGE, self.counts_table) + (" FOR UPDATE" if lock else ""),
                       (minute_key(span.first), minute_key(span.end)))
        return {epoch_minute(log_time): (int(errors), int(lines)) for log_time, errors, lines in cursor.fetchall()}

    def swapped_before(self, chunk: Range) -> bool:
        """Whether this recount's swap of `chunk` is committed (a COMMIT whose reply was lost)."""
        with transaction(self.conn) as cursor:
            cursor.execute(SELECT_SWAPPED, (self.job, self.recounted_by, minute_key(chunk.first)))
            return bool(cursor.fetchone()[0])

    def swap(self, chunk: Range, read_from: Position, count_to: Callable[[dict[TopicPartition, JobRow]], Figures]) -> Swapped:
        """One transaction: the lease row locked (the live job's next commit waits for it), the rules
        checked, the job's offset rows read under the lock; count_to(rows) then gives the chunk's
        figures up to those offsets (reading what the job committed since the recount's read), the
        chunk's minutes are replaced by them and the ledger row written."""
        with transaction(self.conn, self.hooks) as cursor:
            cursor.execute(SELECT_RULES + " FOR UPDATE", (self.job,))
            epoch, rules = cursor.fetchone() or (0, None)
            if rules is None or Rules.from_text(rules) != self.rules:
                raise ConfigError(f"job {self.job!r} was restarted with other counting rules during the recount: "
                                  f"the chunk from {minute_text(chunk.first)} was not swapped (earlier chunks were, each "
                                  "exact under the rules of its swap). Recount the range again under the job's rules.")
            rows = self.read_rows(cursor, lock=True)
            figures = count_to(rows)
            before = self.read_range(cursor, chunk, lock=True)
            rejects = (self.read_rejects(cursor, chunk, lock=True), sum(figures.rejects.values()))
            self.replace(cursor, chunk, figures)
            stored = {tp: row.next_offset for tp, row in rows.items() if not row.gone}
            self.write_ledger(cursor, chunk, read_from, stored, before, figures, rejects, int(epoch))
        return Swapped(before, figures.minutes, rejects)

    def replace(self, cursor: ServerCursor, chunk: Range, figures: Figures) -> None:
        span = (minute_key(chunk.first), minute_key(chunk.end))
        cursor.execute(with_table(ZERO_RANGE, self.counts_table), span)
        if figures.minutes:
            cursor.executemany(with_table(SET_COUNTS, self.counts_table),
                               [(minute_key(m), e, n) for m, (e, n) in sorted(figures.minutes.items())])
        cursor.execute(ZERO_REJECTS, (self.job, *span))
        if figures.rejects:
            cursor.executemany(SET_REJECTS, rejected_minute_rows(self.job, figures.rejects))
        cursor.execute(DELETE_SERIES, (self.job, *span))
        if self.series is not None and figures.series:
            self.series.forget()  # read the registry as this transaction sees it
            self.series.write(cursor, {k: e for k, (e, _n) in figures.series.items()},
                              {k: n for k, (_e, n) in figures.series.items()})

    def write_ledger(self, cursor: ServerCursor, chunk: Range, read_from: Position, stored: Position,
                     before: Mapping[int, tuple[int, int]], figures: Figures, rejects: tuple[int, int], epoch: int) -> None:
        found = diff.changes(chunk, before, figures.minutes)
        (errors_before, lines_before), (errors_after, lines_after) = diff.totals(found)
        cursor.execute(INSERT_RECOUNT, (
            self.job, minute_key(chunk.first), minute_key(chunk.end), offsets_json(read_from), offsets_json(stored),
            errors_before, lines_before, errors_after, lines_after, *rejects, diff.changed(found),
            len(figures.series), self.rules.digest, epoch, self.recounted_by))


def offsets_json(position: Position) -> str:
    """{"topic": {"partition": offset}}, sorted."""
    nested: dict[str, dict[str, int]] = {}
    for tp, offset in sorted(position.items()):
        nested.setdefault(tp.topic, {})[str(tp.partition)] = offset
    return json.dumps(nested)
