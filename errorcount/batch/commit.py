"""The foreachBatch handler, in two steps: count (errorcount/batch/count.py: one Spark job, and a second
only to keep every dead letter) gives a complete, frozen BatchSummary; commit stores it in one
MySQL transaction."""

import dataclasses
import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from pyspark.sql import DataFrame

from errorcount import offsets, store
from errorcount.batch import checkpoint
from errorcount.batch.count import count_planned
from errorcount.config.load import Config
from errorcount.errors import FencedError, JobStop
from errorcount.kafka import topic_metadata
from errorcount.observe import logline
from errorcount.observe.watch import Watch
from errorcount.offsets import APPLIED, FENCED, NOT_APPLIED
from errorcount.pipeline.aggregate import dead_letter_slots
from errorcount.pipeline.summary import BatchSummary
from errorcount.retry import first_line, retry
from errorcount.start_plan import Resume
from errorcount.store import mysql
from errorcount.store.retention import Retention

log = logging.getLogger(__name__)


class RetryCommit(Exception):
    """The outcome of a COMMIT was unknown and turned out not applied: commit again."""


class TopicChanged(Exception):
    """A topic is no longer the one the query read (deleted, recreated under another ID, or back
    with an ID the job gave up): the batch may hold records read from the wrong offsets. Nothing is
    committed; the query fails and the restart plans it, as at any start (errorcount/start_plan.py)."""


@dataclasses.dataclass(frozen=True)
class Counted:
    """A batch counted and checked, on its way to MySQL: its summary, the offsets its transaction
    moves from (`before`, what MySQL holds once the previous batch is stored) to (`after`), and
    for its log line its plan and when it started and finished counting (time.monotonic())."""
    batch_id: int
    summary: BatchSummary
    before: offsets.Position
    after: offsets.Position
    seen: offsets.Position  # end offsets seen of the batch's partitions (stored, never lowered)
    plan: str
    started: float
    counted: float


def unknown_outcome(before: offsets.Position, after: offsets.Position, stored: offsets.Position,
                    holder: int | None, epoch: int) -> str:
    """What a COMMIT whose reply was lost did, from the offsets MySQL holds when asked and the
    lease's epoch then (`holder`; a plain read: a COMMIT still under way is not seen yet). Another
    epoch holds the lease: FENCED, whatever the offsets (a newer instance may have committed these
    very offsets itself). Else the batch's own `after`: APPLIED, carry on. `before`: NOT_APPLIED,
    commit again; if it was only not applied *yet*, the retry's locking read waits for it, finds
    `after` and writes nothing (store.AlreadyApplied). Anything else: FENCED. The same rule as
    Store.check_owner's: offsets.stored_state."""
    if holder != epoch:
        return FENCED
    return offsets.stored_state(stored, before, after)


class BatchCommitter:
    """The foreachBatch handler of one streaming query: holds what this driver believes MySQL
    stores (`expected`, from `stored` at the query's start) and commits each batch on top of it.

    `checkpoint` is the query's fresh checkpoint directory (its offset log tells each batch's
    size ahead); `partitions` (of every topic, at start) spreads DEAD_LETTER_LIMIT over them;
    `retention` prunes old rows after a commit, when a pass is due. stop() waits for a batch
    boundary; ended_by() tells the JobStop that ended the query, if one did.

    With OVERLAP_COMMIT a batch's transaction runs on one committing thread while Spark reads and
    counts the next batch. Transactions stay one at a time and in order: a batch is counted against
    the offsets the previous one is committing (`expected`), waits for that commit before its own
    starts, and is dropped, uncommitted, if it failed. `stored` is what MySQL is known to hold."""

    def __init__(self, cfg: Config, job_store: store.Store, resume: Resume, retention: Retention, checkpoint: str,
                 watch: Watch | None = None, topic_now: Callable[[list[str]], dict[str, str | None]] | None = None):
        self.cfg, self.store = cfg, job_store
        self.topic_ids = dict(resume.topic_ids)  # each topic's ID when the query first read it
        self.given_up = resume.given_up  # IDs of topics given up: one back under such an ID is not read from 0
        self.topic_now = topic_now  # asks Kafka for topics' IDs now
        self.describe = mysql.failure_text(cfg)  # how a MySQL failure reads in the log
        self.watch = watch or Watch()
        self.retention = retention
        self.checkpoint = checkpoint
        self.slots = dead_letter_slots(cfg.dead_letter_limit, resume.partitions)
        self.expected = dict(resume.stored)  # what MySQL holds once the batch being committed, if any, is
        self.stored = dict(resume.stored)    # what MySQL is known to hold
        self.seen = dict(resume.seen)  # the end offsets seen that MySQL holds, once the batch being committed is
        self._lock = threading.Lock()  # held for the whole of a batch
        self._stopping = False
        self._failure: JobStop | None = None
        self._committing = ThreadPoolExecutor(1, "errorcount-commit") if cfg.overlap_commit else None
        self._pending: Future | None = None  # the commit under way on that thread
        self._commit_failed: BaseException | None = None  # once set, no later batch commits

    def __call__(self, batch_df: DataFrame, batch_id: int) -> None:
        """foreachBatch: `batch_df` holds one batch's classify_lines_df rows."""
        with self._lock:
            if self._stopping:
                return  # stop requested: leave the batch uncommitted, it is read again next start
            try:
                self.process(batch_df, batch_id)
            except JobStop as stop:
                self._failure = stop
                raise

    def stop(self) -> offsets.Position:
        """close(), then the offsets MySQL holds. A commit that failed is the stop's outcome: its
        JobStop (close raises it), or any other failure as a JobStop of exit 1; never a clean exit."""
        self.close()
        if self._commit_failed is not None:
            raise JobStop(f"the last batch's commit failed while the job stopped ({first_line(self._commit_failed)}); "
                          "nothing of it was stored, it is read again at the next start. See the log above.")
        return dict(self.stored)

    def close(self) -> None:
        """Waits for an in-flight batch and the commit under way to commit or roll back, refuses
        further batches and ends the committing thread: once this returns nothing else uses the
        store's connection. A JobStop that commit raised is raised (its exit code is owed); any
        other failure is left to failed_commit(), the query having failed anyway. Idempotent."""
        with self._lock:  # a batch in foreachBatch may still be submitting its commit
            self._stopping = True
            try:
                self.await_commit()
            except JobStop as stop:
                self._failure = stop
                raise
            except Exception:  # noqa: BLE001  # recorded in _commit_failed by commit_batch
                pass
            finally:
                if self._committing:
                    self._committing.shutdown()

    def await_commit(self) -> None:
        """Waits for the commit under way, if any; raises what it raised. After a failed commit every
        later batch raises the same, uncommitted: the query fails and the next start resumes from
        what MySQL holds."""
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()
        if self._commit_failed is not None:
            raise self._commit_failed

    def failed_commit(self) -> BaseException | None:
        """What a commit raised, if one failed; without waiting. The driver's loop ends the query on
        it even when no further batch arrives."""
        return self._commit_failed

    def ended_by(self) -> JobStop | None:
        """The JobStop a batch raised (fenced, data loss, MySQL away for good), if any: why the
        query ended, with the exit code the driver owes."""
        return self._failure

    def process(self, batch_df: DataFrame, batch_id: int) -> None:
        started = time.monotonic()
        ends = checkpoint.planned_offsets(self.checkpoint, batch_id)  # read once per batch
        planned = self.planned_records(batch_id, ends)
        one_task = planned is not None and planned <= self.cfg.single_task_max_records
        cores = batch_df.sparkSession.sparkContext.defaultParallelism
        summary = count_planned(batch_df, self.slots, self.cfg.dead_letter_limit, 1 if one_task else cores,
                                self.store.hooks, self.expected, ends)
        # Spark's planned end also moves past transaction markers and aborted records, which the
        # rows never show: a batch of only those commits its offsets too, so nothing stalls.
        after = offsets.batch_end(self.expected, summary.ranges, ends)
        if after == self.expected:
            return
        offsets.check_no_overlap(self.expected, summary.ranges)
        self.check_topic(batch_id, {tp.topic for tp in after})
        plan = "one-task" if one_task else "parallel"
        self.hand_over(Counted(batch_id, summary, self.expected, after, self.seen_now(after), plan, started,
                               time.monotonic()))

    def seen_now(self, after: offsets.Position) -> offsets.Position:
        """The end offsets seen of the batch's partitions that MySQL does not hold yet: the newest
        progress Spark reported (its latestOffset, errorcount/observe/progress.py), and `after` itself."""
        ends = self.watch.ends() or {}
        seen = {tp: max(o, ends.get(tp, 0)) for tp, o in after.items()}
        return {tp: end for tp, end in seen.items() if end > self.seen.get(tp, -1)}

    def hand_over(self, batch: Counted) -> None:
        """Commits `batch` once the previous batch's commit is done (raising its failure instead, if
        it failed): transactions one at a time, in batch order. With OVERLAP_COMMIT on the
        committing thread, returning as soon as it is submitted; else here. Under the batch lock."""
        self.await_commit()
        self.expected = batch.after
        self.seen.update(batch.seen)
        if self._committing:
            self._pending = self._committing.submit(self.commit_batch, batch)
        else:
            self.commit_batch(batch)

    def commit_batch(self, batch: Counted) -> None:
        """Step two: the batch's transaction on top of `batch.before`, then its log line, metrics
        and any retention pass due (on the committing thread with OVERLAP_COMMIT)."""
        summary, after = batch.summary, batch.after
        try:
            self.store.hooks.fail("query_fails")
            self.store.hooks.crash("before_transaction")
            commit_started = time.monotonic()
            self.commit(batch)
            self.store.hooks.crash("after_commit")
            done = time.monotonic()
            self.stored = after
            behind, seconds = self.watch.committed(summary, after, done - batch.started, done - commit_started)
            # count_ms: the Spark job that parses, counts and picks dead letters; commit_ms: the MySQL
            # transaction; batch_ms: all of it (with OVERLAP_COMMIT: to the end of the commit, which ran
            # while Spark read the next batch, and including any wait for the previous one). lag: records
            # behind the topic's end (as of the newest progress Spark reported: errorcount/observe/lag.py);
            # lag_s: seconds behind its newest record.
            log.info("%s", logline.line(
                logline.BATCH, batch.batch_id, records=summary.records, errors=summary.errors, rejected=summary.rejected,
                dead_letters=len(summary.dead_letters), minutes=len(summary.minute_counts), offsets=after,
                plan=batch.plan, count_ms=int((batch.counted - batch.started) * 1000),
                commit_ms=int((done - commit_started) * 1000), batch_ms=int((done - batch.started) * 1000),
                lag="-" if behind is None else behind, lag_s="-" if seconds is None else f"{seconds:.1f}"))
            self.retention.after_commit(self.store, sorted({tp.topic for tp in after}))
        except BaseException as failure:
            self._commit_failed = failure
            raise

    def planned_records(self, batch_id: int, ends: offsets.Position | None = None) -> int | None:
        """Records Spark planned for this batch: its end offsets in the checkpoint's offset log
        (`ends`, when the caller has read them) less the previous batch's (for the first batch,
        less the stored offsets); None if unknown."""
        ends = ends or checkpoint.planned_offsets(self.checkpoint, batch_id)
        starts = (checkpoint.planned_offsets(self.checkpoint, batch_id - 1) if batch_id else None) or self.expected
        if ends is None or not ends.keys() <= starts.keys():
            return None  # e.g. a partition without a stored offset, starting at 'earliest'
        return sum(max(end - starts[partition], 0) for partition, end in ends.items())

    def check_topic(self, batch_id: int, topics: set[str]) -> None:
        """After the batch was read, before it commits: each topic must still be the one its offsets
        belong to (TopicChanged: deleted, recreated under the running query, or back under an ID the
        job gave up, whose stored offsets a restart resumes from). A topic new to the query (created
        while it runs, under a pattern) gets its ID now, to be stored with its offsets."""
        ask = self.topic_now
        if ask is None:
            return
        names = sorted(self.topic_ids.keys() | topics)
        now = retry("reading the topics' IDs", lambda: ask(names), self.cfg.retry_seconds,
                    lambda error: isinstance(error, topic_metadata.KafkaUnavailable))
        for topic in names:
            current, known = now.get(topic), self.topic_ids.get(topic)
            if current is None:
                raise TopicChanged(f"batch {batch_id}: topic {topic!r} no longer exists (ID {known} when first read): "
                                   "nothing of this batch is committed")
            if known is None and current in self.given_up.get(topic, set()):
                raise TopicChanged(f"batch {batch_id}: topic {topic!r} is back with ID {current}, which the job gave "
                                   "up: nothing of this batch is committed; the restart resumes it from its stored offsets")
            if known is None:
                log.info("topic %r (ID %s) appeared while the job runs: read from its first record", topic, current)
                self.topic_ids[topic] = str(current)
            elif current != known:
                raise TopicChanged(f"batch {batch_id}: topic {topic!r} now has ID {current}, not {known} as when it "
                                   "was first read (deleted or recreated): nothing of this batch is committed")

    def commit(self, batch: Counted) -> None:
        """Commits, retrying transient MySQL failures until RETRY_SECONDS. When the connection
        broke during COMMIT, the stored offsets tell what happened: the batch's own offsets mean
        it was applied, the previous ones mean it was not (commit again), anything else means
        another writer (fenced)."""
        cfg, batch_id, before, after = self.cfg, batch.batch_id, batch.before, batch.after

        def attempt() -> None:
            try:
                if not self.store.commit_batch(batch.summary, before, after, self.topic_ids, batch.seen):
                    log.info("batch %d: an earlier attempt's commit had been applied late; carrying on", batch_id)
            except store.CommitOutcomeUnknown as unknown:
                log.warning("batch %d: %s; checking whether it was stored", batch_id, unknown)
                stored, holder = retry("re-reading the stored offsets", self.store.load_holder, cfg.retry_seconds,
                                       mysql.is_transient, describe=self.describe)
                outcome = unknown_outcome(before, after, stored, holder, self.store.epoch)
                if outcome == APPLIED:
                    log.info("batch %d: the commit had been applied; carrying on", batch_id)
                elif outcome == NOT_APPLIED:
                    raise RetryCommit(f"batch {batch_id} was not stored") from None
                else:
                    raise FencedError(f"after a lost COMMIT the job's lease is held by epoch {holder} (this instance: "
                                      f"{self.store.epoch}) and its stored offsets are {store.as_text(stored)} (this "
                                      f"batch's: {store.as_text(after)}, the previous: {store.as_text(before)}): another "
                                      "instance is writing this job. Make sure one runs per JOB_NAME.") from None

        retry(f"committing batch {batch_id}", attempt, cfg.retry_seconds,
              lambda error: isinstance(error, RetryCommit) or mysql.is_transient(error), describe=self.describe,
              on_retry=self.watch.commit_retried)
