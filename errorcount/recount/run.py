"""One recount of FROM..TO (docs/operations.md, "Recounting a time range"), step by step: the
refusals, the plan, one Spark read of every offset that can hold a record of the range, then per
chunk of minutes the swap (errorcount/store/recount.py) or, with DRY_RUN, the table of changes."""

import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from pyspark.sql import SparkSession

from errorcount import session, store
from errorcount.config.load import Config
from errorcount.config.rules import Rules
from errorcount.errors import FencedError, JobStop
from errorcount.faults import NO_FAULTS, Hooks
from errorcount.kafka.admin import KafkaAdmin
from errorcount.kafka.client import KafkaClient
from errorcount.offsets import Position, TopicPartition, minute_text
from errorcount.pipeline.classify import Contract
from errorcount.recount import diff, facts, plan
from errorcount.recount.count import Counter, added, within
from errorcount.recount.diff import Figures
from errorcount.recount.plan import Range, Refusal
from errorcount.retry import retry
from errorcount.store import failures, mysql
from errorcount.store.recount import JobRow, RecountStore
from errorcount.store.series import SeriesStore

log = logging.getLogger(__name__)


class Refused(JobStop):
    """A recount that must not run: the Refusal's exit code and message; nothing was changed."""

    def __init__(self, refusal: Refusal):
        super().__init__(refusal.message)
        self.exit_code = refusal.exit_code


def chunks(span: Range, size: int) -> list[Range]:
    """The range cut into chunks of `size` minutes (the last may be shorter), in order."""
    return [Range(first, min(first + size, span.end)) for first in range(span.first, span.end, size)]


@dataclass
class Covered:
    """What the recount has counted: the offsets read up to per partition (`to`), the figures of
    what was read after the main read (the tail the live job committed meanwhile), every minute, and
    the ID of each topic it read records of (`topic_ids`, as Kafka named it when the recount planned
    or first read it), which `admin` checks after every read."""

    to: Position
    tail: Figures
    topic_ids: dict[str, str]
    admin: KafkaAdmin


class Recount:
    """A recount of one job under `cfg` (the job's settings: the same rules), on `spark`."""

    def __init__(self, cfg: Config, spark: SparkSession, hooks: Hooks = NO_FAULTS,
                 print_out: Callable[[str], None] = print):
        self.cfg, self.spark, self.hooks, self.print_out = cfg, spark, hooks, print_out
        self.rules = Rules.of(cfg)
        self.client = KafkaClient.of(cfg)
        self.counter = Counter(spark, self.client, Contract.of(cfg))
        self.recounted_by = f"{socket.gethostname()} pid {os.getpid()} recount {uuid.uuid4().hex[:12]}"
        self.describe = failures.failure_text(cfg.mysql_host, cfg.mysql_port)

    def mysql(self, what: str, action):
        return retry(what, action, self.cfg.retry_seconds, store.retry_outside_batch, describe=self.describe)

    def run(self, span: Range, dry_run: bool, now_minute: int) -> int:
        cfg = self.cfg
        conn = self.mysql("connecting to MySQL", lambda: mysql.connect(cfg))
        lock = self.mysql("connecting to MySQL", lambda: mysql.connect(cfg))  # holds the recount lock, nothing else
        try:
            series = SeriesStore(cfg.job_name, cfg.group_by, cfg.max_series) if cfg.group_by else None
            recount_store = RecountStore(conn, cfg.job_name, cfg.counts_table, self.rules, self.recounted_by, series,
                                         self.hooks)
            job_store = store.Store(conn, cfg.job_name, (), cfg.counts_table)
            self.mysql("checking the schema", lambda: job_store.verify_schema(cfg.mysql_database))
            self.lock_store = RecountStore(lock, cfg.job_name, cfg.counts_table, self.rules, self.recounted_by)
            self.mysql("taking the recount lock", self.lock_store.hold_lock)
            admin = KafkaAdmin(session.jvm(self.spark), self.client)
            try:
                return self.recount(recount_store, admin, span, dry_run, now_minute)
            finally:
                admin.close()
        finally:
            conn.close()
            lock.close()  # the recount lock goes with its connection

    def refusal(self, recount_store: RecountStore, span: Range, now_minute: int) -> Refusal | None:
        cfg = self.cfg
        live = self.mysql("reading the job's rules", recount_store.live_rules)
        own, sharers = self.mysql("reading the counts tables' jobs", recount_store.claims)
        return (plan.rules_refusal(live, self.rules, cfg.job_name)
                or plan.table_refusal(cfg.counts_table, cfg.job_name, own) or plan.shared_refusal(cfg.counts_table, sharers)
                or plan.series_refusal(span, bool(cfg.group_by), cfg.series_retention_days, now_minute))

    def recount(self, recount_store: RecountStore, admin: KafkaAdmin, span: Range, dry_run: bool, now_minute: int) -> int:
        cfg = self.cfg
        refused = self.refusal(recount_store, span, now_minute)
        if refused:
            raise Refused(refused)
        rows = self.mysql("reading the job's offsets", recount_store.job_rows)
        recreated = self.mysql("reading the job's skips", recount_store.recreated_ms)
        held = facts.ask_kafka(admin, rows, span.read_from_ms(cfg.recount_skew))
        planned = plan.plan(span, facts.partition_facts(rows, held, recreated), cfg.recount_skew, now_minute)
        if isinstance(planned, Refusal):
            raise Refused(planned)
        log.info("recounting %s to %s of job %r: reading %s", minute_text(span.first), minute_text(span.end),
                 cfg.job_name, ", ".join(f"{tp} [{a}, {b})" for tp, (a, b) in planned.items()) or "nothing")
        read_from = {tp: start for tp, (start, _end) in planned.items()}
        covered = Covered({tp: end for tp, (_start, end) in planned.items()}, Figures({}, {}),
                          {tp.topic: held[tp].topic_id for tp, (start, end) in planned.items() if end > start},
                          admin)
        started = time.monotonic()
        with self.hooks.killed_during("during_spark_job", lambda: True):
            grouped = self.counter.aggregate(planned)
        try:
            found, rejects = self.chunk_by_chunk(recount_store, span, grouped, read_from, covered, dry_run)
        finally:
            if grouped is not None:
                grouped.unpersist()
        records = sum(end - start for start, end in planned.values())
        seconds = time.monotonic() - started
        # The bench reads this line (make bench (r)): the recount's rate, read to last swap.
        log.info("recount of job %r: %d records read and %d chunk(s) %s in %.1f s (%.0f records/s)", cfg.job_name,
                 records, len(chunks(span, cfg.recount_chunk_minutes)), "compared" if dry_run else "swapped", seconds,
                 records / max(seconds, 1e-9))
        self.print_out(diff.table(found, rejects=rejects))
        self.print_out("DRY_RUN: nothing was written." if dry_run else
                       f"Swapped in: every minute from {minute_text(span.first)} to {minute_text(span.end)} now holds "
                       f"the counts under the rules of job {cfg.job_name!r} (ledger: the recounts table).")
        return 0

    def chunk_by_chunk(self, recount_store: RecountStore, span: Range, grouped, read_from: Position, covered: Covered,
                       dry_run: bool) -> tuple[list[diff.Change], tuple[int, int]]:
        """Each chunk's figures swapped in (or, with `dry_run`, compared with the counts now): its
        changes, and the range's rejects (rejected_minutes) before and after."""
        found: list[diff.Change] = []
        rejects = (0, 0)
        for chunk in chunks(span, self.cfg.recount_chunk_minutes):
            self.mysql("keeping the recount lock", lambda: self.lock_store.hold_lock(started=True))
            main = self.counter.figures(grouped, chunk)
            if dry_run:
                rows_now = self.mysql("reading the job's offsets", recount_store.job_rows)
                after = self.catch_up(covered, rows_now, chunk, main)
                now = self.mysql("reading the counts", lambda: recount_store.figures(chunk))  # noqa: B023
                rejects_now = self.mysql("reading the rejects", lambda: recount_store.rejects(chunk))  # noqa: B023
                found += diff.changes(chunk, now, after.minutes)
                rejects = (rejects[0] + rejects_now, rejects[1] + sum(after.rejects.values()))
                continue
            swapped = self.swap(recount_store, chunk, read_from, covered, main)
            if swapped is not None:
                found += diff.changes(chunk, swapped.before, swapped.after)
                rejects = (rejects[0] + swapped.rejects[0], rejects[1] + swapped.rejects[1])
            log.info("recount of %s to %s swapped in", minute_text(chunk.first), minute_text(chunk.end))
            self.hooks.crash("after_commit")
        return found, rejects

    def catch_up(self, covered: Covered, rows: dict[TopicPartition, JobRow], chunk: Range, main: Figures) -> Figures:
        """The chunk's figures once the records up to the job's stored offsets in `rows` are counted:
        what the main read counted, and the records after it (read now, if not yet)."""
        stored = {tp: row.next_offset for tp, row in rows.items() if not row.gone}
        behind = {tp: end for tp, end in stored.items() if tp in covered.to and end < covered.to[tp]}
        if behind:
            raise FencedError(f"job {self.cfg.job_name!r}'s stored offsets went back below what the recount read "
                              f"({store.as_text(behind)}): its partitions were truncated or its offsets reset. "
                              "Recount again.")
        tail = {tp: (covered.to.get(tp, rows[tp].counted_from), end) for tp, end in stored.items()
                if end > covered.to.get(tp, rows[tp].counted_from)}
        if tail:
            for tp in tail:  # a topic first read here is checked from now on under the ID its row names
                topic_id = rows[tp].topic_id
                if topic_id is not None:
                    covered.topic_ids.setdefault(tp.topic, topic_id)
            covered.tail = added(covered.tail, self.counter.count(tail))
            covered.to.update({tp: end for tp, (_start, end) in tail.items()})
        self.same_topics(covered, rows, chunk)
        return added(main, within(covered.tail, chunk))

    def same_topics(self, covered: Covered, rows: dict[TopicPartition, JobRow], chunk: Range) -> None:
        """FencedError if a topic read may have been another than the one planned (facts.changed_topics):
        asked after every read, so nothing of another topic's records is ever swapped in."""
        if not covered.topic_ids:
            return
        now = covered.admin.topic_ids(sorted(covered.topic_ids))
        changed = facts.changed_topics(covered.topic_ids, now, rows)
        if changed:
            raise FencedError(f"topic(s) {', '.join(changed)} of job {self.cfg.job_name!r} were deleted or created "
                              "again during the recount (their topic IDs changed): the records read may be another "
                              f"topic's. The chunk from {minute_text(chunk.first)} was not swapped (earlier chunks "
                              "were, each exact). Recount the range again.")

    def swap(self, recount_store: RecountStore, chunk: Range, read_from: Position, covered: Covered, main: Figures):
        """The chunk swapped in (None: an earlier attempt's COMMIT, reported lost, was applied). What
        the live job committed since the last read is read first without the lock, so that under it
        only what it commits meanwhile is left to read (the live job waits for the lock meanwhile)."""
        self.catch_up(covered, self.mysql("reading the job's offsets", recount_store.job_rows), chunk, main)

        def attempt():
            try:
                return recount_store.swap(chunk, read_from, lambda rows: self.catch_up(covered, rows, chunk, main))
            except store.CommitOutcomeUnknown:
                if recount_store.swapped_before(chunk):
                    return None
                raise
        return self.mysql(f"swapping in {minute_text(chunk.first)} to {minute_text(chunk.end)}", attempt)
