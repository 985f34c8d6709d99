"""The foreachBatch handler of one streaming query, in two steps: count (errorcount/batch/count.py:
one Spark job, and a second only to keep every dead letter) gives a complete, frozen BatchSummary;
commit (errorcount/batch/commit.py) stores it in one MySQL transaction, in batch order
(errorcount/batch/in_order.py), after the topics were checked (errorcount/batch/topic_guard.py)."""

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from pyspark.sql import DataFrame

from errorcount import offsets, store
from errorcount.batch import checkpoint
from errorcount.batch.commit import CommitStep, Counted
from errorcount.batch.count import count_planned
from errorcount.batch.in_order import InOrder
from errorcount.batch.topic_guard import TopicGuard
from errorcount.config.load import Config
from errorcount.counted_through import Marks
from errorcount.errors import JobStop
from errorcount.faults import NO_FAULTS, Hooks
from errorcount.kafka.observer import look_interval
from errorcount.observe.watch import Watch
from errorcount.pipeline.classify import Contract
from errorcount.pipeline.summary import dead_letter_slots
from errorcount.retry import first_line
from errorcount.start_plan import Resume
from errorcount.store.retention import Retention

log = logging.getLogger(__name__)
HEARTBEAT_STEP_MS = 1000  # counted_through is stored alone once it can move this far
HEARTBEAT_RETRY_S = 5.0  # after a heartbeat's transaction failed (MySQL away), the next waits this long


@dataclass(frozen=True)
class BatchSettings:
    """The settings a query's batches are handled with: the contract its query classifies and
    counts with (errorcount/pipeline/one_pass.py: the batches hold Kafka rows), DEAD_LETTER_LIMIT,
    SINGLE_TASK_MAX_RECORDS, RETRY_SECONDS (MySQL outages and topic checks ride them out),
    OVERLAP_COMMIT and LATENESS (which minutes readers were told are complete)."""

    contract: Contract
    dead_letter_limit: int
    single_task_max_records: int
    retry_seconds: int
    overlap_commit: bool
    lateness_s: int = 0
    seen_wait_s: float = 2.0  # two looks of the end observer: its ends no batch stored by then are stored alone

    @classmethod
    def of(cls, cfg: Config, contract: Contract | None = None) -> "BatchSettings":
        """From the job's Config and the `contract` its query classifies with (Contract.of(cfg) by default)."""
        return cls(contract or Contract.of(cfg), cfg.dead_letter_limit, cfg.single_task_max_records, cfg.retry_seconds,
                   cfg.overlap_commit, cfg.lateness, 2 * look_interval(cfg.trigger_interval))


ONE_TASK_MAX_PARTITIONS = 8  # partitions a one-task batch reads at most (runs_as_one_task)


def runs_as_one_task(planned: tuple[int, int] | None, rows_per_record: float | None, limit: int) -> bool:
    """Whether a batch `planned` to read (records, partitions that advance) runs as one Spark task:
    its rows (the records times the log records each held in the batch before; None: not known
    yet, as before an OTLP job's first batch, whose requests may hold thousands each) are at most
    `limit` (SINGLE_TASK_MAX_RECORDS) and it reads at most ONE_TASK_MAX_PARTITIONS partitions.
    Spark's reader pays a fixed cost for each partition a batch reads (~7 ms on 2 cores once its
    consumer is pooled, a new consumer's connection at a driver's first batch), which one task pays
    partition after partition while the other cores idle: a first batch of 2 214 records over 610
    partitions took 43 s as one task (docs/performance.md, "Scale"). Unknown sizes run in parallel:
    the safe side for a large batch, ~20-30 ms for a small one."""
    if planned is None or rows_per_record is None:
        return False
    records, partitions = planned
    return partitions <= ONE_TASK_MAX_PARTITIONS and records * rows_per_record <= limit


class BatchCommitter:
    """Holds what this driver believes MySQL stores once the batch being committed is (`expected`,
    from the Resume the query started from) and commits each batch on top of it.

    `checkpoint` is the query's fresh checkpoint directory (its offset log tells each batch's size
    ahead); the partitions at start spread DEAD_LETTER_LIMIT over them; `retention` prunes old rows
    after a commit, when a pass is due; `describe` words a MySQL failure. stop() waits for a batch boundary; ended_by() tells what
    ended the query, if anything did: the one failure slot of its commits (InOrder).

    With OVERLAP_COMMIT a batch's transaction runs on one committing thread while Spark reads and
    counts the next batch. Transactions stay one at a time and in order: a batch is counted against
    the offsets the previous one is committing (`expected`), waits for that commit before its own
    starts, and is dropped, uncommitted, if it failed."""

    def __init__(self, settings: BatchSettings, job_store: store.Store, resume: Resume, retention: Retention,
                 checkpoint: str, describe: Callable[[BaseException], str], watch: Watch | None = None,
                 topic_now: Callable[[list[str]], dict[str, str | None]] | None = None, hooks: Hooks = NO_FAULTS,
                 marks: Marks | None = None):
        self.dead_letter_limit, self.single_task_max = settings.dead_letter_limit, settings.single_task_max_records
        self.contract = settings.contract
        # log records per Kafka record in the last batch (an OTLP request holds many: unknown before one)
        self.rows_per_record: float | None = None if settings.contract.otlp else 1.0
        self.hooks = hooks
        self.watch = watch or Watch()
        self.marks = marks or Marks()  # counted_through: what each commit may claim (errorcount/counted_through.py)
        self.guard = TopicGuard(resume.topic_ids, resume.given_up, topic_now, settings.retry_seconds)
        self.step = CommitStep(job_store, self.guard.ids, resume.stored, settings.retry_seconds, describe,
                               self.watch, retention, hooks, self.marks, settings.lateness_s)
        self.commits = InOrder(settings.overlap_commit)
        self.checkpoint = checkpoint
        self.slots = dead_letter_slots(settings.dead_letter_limit, resume.partitions)
        self.expected = dict(resume.stored)  # what MySQL holds once the batch being committed, if any, is
        self.seen = dict(resume.seen)  # the end offsets seen that MySQL holds, once the batch being committed is
        self.seen_wait_s, self.clock = settings.seen_wait_s, time.monotonic
        self._unseen_since: float | None = None  # since when the observer's ends are above self.seen, no batch handed over
        self._beat_after = 0.0  # no heartbeat before (self.clock): one failed
        self._lock = threading.Lock()  # held for the whole of a batch
        self._stopping = False

    @property
    def stored(self) -> offsets.Position:
        """What MySQL is known to hold."""
        return self.step.stored

    def __call__(self, batch_df: DataFrame, batch_id: int) -> None:
        """foreachBatch: `batch_df` holds one batch's Kafka rows."""
        with self._lock:
            if self._stopping:
                return  # stop requested: leave the batch uncommitted, it is read again next start
            try:
                self.process(batch_df, batch_id)
            except JobStop as stop:
                self.commits.record(stop)
                raise

    def ended_by(self) -> BaseException | None:
        """What ended (or is ending) the query, if anything did: a batch's JobStop (fenced, data
        loss, MySQL away for good) or a commit's failure; without waiting. The driver's loop ends
        the query on it even when no further batch arrives."""
        return self.commits.failure

    def stop(self) -> offsets.Position:
        """close(), then the offsets MySQL holds. A commit that failed is the stop's outcome: its
        JobStop (close raises it), or any other failure as a JobStop of exit 1; never a clean exit."""
        self.close()
        failure = self.commits.failure
        if failure is not None:
            raise JobStop(f"the last batch's commit failed while the job stopped ({first_line(failure)}); "
                          "nothing of it was stored, it is read again at the next start. See the log above.")
        return dict(self.stored)

    def close(self) -> None:
        """Waits for an in-flight batch and the commit under way to commit or roll back, refuses
        further batches and ends the committing thread: once this returns nothing else uses the
        store's connection. A JobStop is raised (its exit code is owed); any other failure stays in
        ended_by(), the query having failed anyway. Idempotent."""
        with self._lock:  # a batch in foreachBatch may still be submitting its commit
            self._stopping = True
            try:
                self.commits.wait()
            except JobStop:
                raise
            except BaseException:  # noqa: BLE001  # kept in the failure slot
                pass
            finally:
                self.commits.close()

    def process(self, batch_df: DataFrame, batch_id: int) -> None:
        started = time.monotonic()
        ends = checkpoint.planned_offsets(self.checkpoint, batch_id)  # read once per batch
        one_task = runs_as_one_task(self.planned_reads(batch_id, ends), self.rows_per_record, self.single_task_max)
        cores = batch_df.sparkSession.sparkContext.defaultParallelism
        summary = count_planned(batch_df, self.contract, self.slots, self.dead_letter_limit, 1 if one_task else cores,
                                self.hooks, self.expected, ends)
        # Spark's planned end also moves past transaction markers and aborted records, which the
        # rows never show: a batch of only those commits its offsets too, so nothing stalls.
        after = offsets.batch_end(self.expected, summary.ranges, ends)
        if summary.records:
            self.rows_per_record = max(summary.records_logged / summary.records, 1.0)
        if after == self.expected:
            return
        offsets.check_no_overlap(self.expected, summary.ranges)
        self.guard.check(batch_id, {tp.topic for tp in after})
        plan = "one-task" if one_task else "parallel"
        self.hand_over(Counted(batch_id, summary, self.expected, after, self.seen_now(after), plan, started,
                               time.monotonic(), self.marks.propose(after, self.guard.ids)))

    def heartbeat(self) -> None:
        """While no batch runs and no commit is under way (else nothing: the batches carry both):
        stores counted_through alone when the observations let it (the job's or one topic's) move a
        second or more past what MySQL holds (idle topics), and the ends the observer saw once no batch stored them for
        `seen_wait_s` (seen_due). A failure is left to the next batch or to a heartbeat
        HEARTBEAT_RETRY_S later, but fencing, which ends the query like a batch's (ended_by)."""
        if not self._lock.acquire(blocking=False):
            return
        try:
            if self._stopping or self.commits.busy() or self.commits.failure is not None or self.clock() < self._beat_after:
                return
            stored = dict(self.step.stored)
            marks, seen = self.marks.propose(stored, self.guard.ids), self.seen_due(stored)
            if not self.marks.moves(marks, HEARTBEAT_STEP_MS) and not seen:
                return

            def beat() -> None:
                if self.step.heartbeat(stored, marks, seen):
                    self._unseen_since = None
                    self.seen.update({tp: max(end, self.seen.get(tp, end)) for tp, end in seen.items()})
                else:
                    self._beat_after = self.clock() + HEARTBEAT_RETRY_S
            with contextlib.suppress(BaseException):  # recorded in the failure slot when it is fencing
                self.commits.run(beat)
        finally:
            self._lock.release()

    def seen_due(self, stored: offsets.Position) -> offsets.Position:
        """The ends the observer's newest look saw above what MySQL holds as seen, of the partitions
        MySQL holds offsets for, once they have been so for `seen_wait_s` with no batch handed over
        ({} before): a batch carries them (seen_now) unless it is not due yet (a long
        TRIGGER_INTERVAL), and a job stopped before it came would otherwise not know, after a
        recreation of the topic, that records it never read had arrived (docs/design.md)."""
        observed = self.marks.newest_ends(self.guard.ids)
        ahead = {tp: end for tp, end in observed.items() if tp in stored and end > self.seen.get(tp, stored[tp])}
        if not ahead:
            self._unseen_since = None
            return {}
        now = self.clock()
        self._unseen_since = now if self._unseen_since is None else self._unseen_since
        return ahead if now - self._unseen_since >= self.seen_wait_s else {}

    def seen_now(self, after: offsets.Position) -> offsets.Position:
        """The end offsets seen of the batch's partitions that MySQL does not hold yet: the newest
        progress Spark reported (its latestOffset, errorcount/observe/progress.py: the planning of
        the batch before), the end observer's newest look (within a few seconds, so that a job that
        stops right after records arrived still knows of them) and `after` itself."""
        ends, observed = self.watch.ends() or {}, self.marks.newest_ends(self.guard.ids)
        seen = {tp: max(o, ends.get(tp, 0), observed.get(tp, 0)) for tp, o in after.items()}
        return {tp: end for tp, end in seen.items() if end > self.seen.get(tp, -1)}

    def hand_over(self, batch: Counted) -> None:
        """Commits `batch` once the previous batch's commit is done (raising its failure instead, if
        it failed): transactions one at a time, in batch order. With OVERLAP_COMMIT on the
        committing thread, returning as soon as it is submitted; else here. Under the batch lock."""
        self.commits.wait()
        self.expected = batch.after
        self.seen.update(batch.seen)
        self._unseen_since = None  # the batch carries the newest look's ends
        self.commits.submit(lambda: self.step(batch))

    def planned_reads(self, batch_id: int, ends: offsets.Position | None = None) -> tuple[int, int] | None:
        """What Spark planned this batch to read: (records, partitions with any), its end offsets in
        the checkpoint's offset log (`ends`, when the caller has read them) less the previous
        batch's (for the first batch, less the stored offsets); None if unknown."""
        ends = ends or checkpoint.planned_offsets(self.checkpoint, batch_id)
        starts = (checkpoint.planned_offsets(self.checkpoint, batch_id - 1) if batch_id else None) or self.expected
        if ends is None or not ends.keys() <= starts.keys():
            return None  # e.g. a partition without a stored offset, starting at 'earliest'
        sizes = [end - starts[partition] for partition, end in ends.items() if end > starts[partition]]
        return sum(sizes), len(sizes)
