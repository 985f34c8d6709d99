"""Step two of a batch: its one MySQL transaction on top of what MySQL holds (retried through
outages, a lost COMMIT resolved), then its log line, metrics and any retention pass due."""

import dataclasses
import logging
import time
from collections.abc import Callable, Mapping

from errorcount import offsets, store
from errorcount.counted_through import Marks, Through, into_complete
from errorcount.errors import FencedError
from errorcount.faults import NO_FAULTS, Hooks
from errorcount.observe import logline
from errorcount.observe.watch import Watch
from errorcount.offsets import APPLIED, FENCED, NOT_APPLIED
from errorcount.pipeline.summary import BatchSummary
from errorcount.retry import retry
from errorcount.store import failures
from errorcount.store.retention import Retention

log = logging.getLogger(__name__)


class RetryCommit(Exception):
    """The outcome of a COMMIT was unknown and turned out not applied: commit again."""


@dataclasses.dataclass(frozen=True)
class Counted:
    """A batch counted and checked, on its way to MySQL: its summary, the offsets its transaction
    moves from (`before`, what MySQL holds once the previous batch is stored) to (`after`), the
    end offsets seen to store with them, and for its log line its plan and when it started and
    finished counting (time.monotonic())."""
    batch_id: int
    summary: BatchSummary
    before: offsets.Position
    after: offsets.Position
    seen: offsets.Position  # end offsets seen of the batch's partitions (stored, never lowered)
    plan: str
    started: float
    counted: float
    marks: Through | None = None  # counted_through once `after` is stored (errorcount/counted_through.py)


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


def fenced_after_lost_commit(job: str, holder: int | None, epoch: int, stored: offsets.Position,
                             before: offsets.Position, after: offsets.Position) -> str:
    """The message of a FENCED unknown_outcome. Another epoch holding the lease reads as the lease
    check's own refusal (Store.lock_lease), so an operator meets one sentence for a takeover however
    the old instance learnt of it; the same epoch with moved offsets as the offsets check's. Whether
    the lost COMMIT was applied is not said: either way the stored offsets and counts agree (one
    transaction), and the instance holding the lease carries on from them."""
    seen = (f"found after a lost COMMIT: stored offsets {store.as_text(stored)}, this batch's "
            f"{store.as_text(after)}, the previous {store.as_text(before)}")
    if holder != epoch:
        lease = "no lease row" if holder is None else f"the lease is held by epoch {holder}"
        return (f"job {job!r} was taken over by another instance ({lease}; this one had epoch {epoch}), {seen}. "
                "The stored offsets and counts agree; the newer instance carries on from them. "
                "If that is unexpected, make sure one instance runs per JOB_NAME.")
    return (f"the stored offsets of job {job!r} changed behind this driver, {seen}: another instance is writing "
            "this job. Make sure one instance runs per JOB_NAME, then restart.")


class LateLines:
    """Lines counted into minutes that read as complete before their batch's commit (LATENESS
    `lateness_s` before the job's stored mark): counted in the metrics every batch, and logged as
    a WARNING at most every `every_s` seconds with what came since, so a producer that is always
    late does not write a warning a batch."""

    def __init__(self, watch: Watch, lateness_s: int, every_s: float = 600.0,
                 clock: Callable[[], float] = time.monotonic):
        self.watch, self.lateness_s, self.every_s, self.clock = watch, lateness_s, every_s, clock
        self.errors, self.lines = 0, 0
        self.oldest: int | None = None
        self.warned_at: float | None = None

    def counted(self, summary: BatchSummary, stored_mark_ms: int | None) -> None:
        """`summary` was committed on top of the job's mark `stored_mark_ms` (None: none yet)."""
        complete_before = None if stored_mark_ms is None else stored_mark_ms - self.lateness_s * 1000
        errors, oldest_error = into_complete(summary.minute_counts, complete_before)
        lines, oldest_line = into_complete(summary.minute_lines, complete_before)
        if not (errors or lines):
            return
        self.watch.late(errors, lines)
        self.errors, self.lines = self.errors + errors, self.lines + lines
        oldest = self.oldest = min(m for m in (self.oldest, oldest_error, oldest_line) if m is not None)
        now = self.clock()
        if self.warned_at is not None and now - self.warned_at < self.every_s:
            return
        log.warning("%d ERROR lines%s were counted into minutes that already read as complete (the oldest %s UTC)%s: "
                    "their own time lay more than LATENESS (%d s) before counted_through when they were counted (a "
                    "late or backfilling producer, a producer's clock behind). Those minutes' counts changed after "
                    "they were complete; raise LATENESS if that matters (docs/operations.md, 'Complete minutes')",
                    self.errors, f" ({self.lines} lines in all)" if self.lines else "", offsets.minute_text(oldest),
                    "" if self.warned_at is None else f" in the last {now - self.warned_at:.0f} s", self.lateness_s)
        self.errors, self.lines, self.oldest, self.warned_at = 0, 0, None, now


class CommitStep:
    """Commits counted batches for one query: `ids` the topics' IDs (the guard's, kept up to date),
    `stored` what MySQL is known to hold. Retries until `retry_seconds`; `describe` words a MySQL
    failure; `hooks` the test fault points before and after the transaction; `lateness_s` (LATENESS)
    tells which minutes read as complete (LateLines)."""

    def __init__(self, job_store: store.Store, ids: Mapping[str, str], stored: offsets.Position, retry_seconds: float,
                 describe: Callable[[BaseException], str], watch: Watch, retention: Retention, hooks: Hooks = NO_FAULTS,
                 marks: Marks | None = None, lateness_s: int = 0):
        self.store, self.ids, self.stored = job_store, ids, dict(stored)
        self.retry_seconds, self.describe = retry_seconds, describe
        self.watch, self.retention, self.hooks = watch, retention, hooks
        self.marks = marks or Marks()
        self.late = LateLines(watch, lateness_s)
        self.beat_failing = False  # the last heartbeat's transaction failed

    def __call__(self, batch: Counted) -> None:
        """The batch's transaction on top of `batch.before`, then its log line, metrics and any
        retention pass due (on the committing thread with OVERLAP_COMMIT)."""
        summary, after = batch.summary, batch.after
        self.hooks.fail("query_fails")
        self.hooks.crash("before_transaction")
        commit_started = time.monotonic()
        self.commit(batch)
        self.hooks.crash("after_commit")
        done = time.monotonic()
        self.stored = after
        self.late.counted(summary, self.marks.stored_job)  # the mark readers saw until this commit
        self.settled(batch.marks)
        behind, seconds = self.watch.committed(summary, after, done - batch.started, done - commit_started)
        # count_ms: the Spark job that parses, counts and picks dead letters; commit_ms: the MySQL
        # transaction; batch_ms: all of it (with OVERLAP_COMMIT: to the end of the commit, which ran
        # while Spark read the next batch, and including any wait for the previous one). lag: records
        # behind the topic's end (as of the newest progress Spark reported: errorcount/observe/lag.py);
        # lag_s: seconds behind its newest record.
        # minutes, series: the (minute) and (minute, series) rows the transaction upserts.
        # offsets: every partition's while they are few, else a summary (logline.brief); advanced:
        # the partitions this batch moved. The full list is in MySQL and at DEBUG.
        log.info("%s", logline.line(
            logline.BATCH, batch.batch_id, records=summary.records, log_records=summary.records_logged,
            errors=summary.errors, rejected=summary.rejected,
            dead_letters=len(summary.dead_letters), minutes=len(summary.minute_counts),
            series=len(summary.series_counts), partitions=len(after),
            advanced=sum(1 for tp, o in after.items() if batch.before.get(tp) != o), offsets=logline.brief(after),
            plan=batch.plan, count_ms=int((batch.counted - batch.started) * 1000),
            commit_ms=int((done - commit_started) * 1000), batch_ms=int((done - batch.started) * 1000),
            lag="-" if behind is None else behind, lag_s="-" if seconds is None else f"{seconds:.1f}"))
        if len(after) > logline.LISTED:
            log.debug("batch %d: offsets %s", batch.batch_id, logline.format_value(after))
        self.retention.after_commit(self.store, sorted({tp.topic for tp in after}))

    def settled(self, marks: Through | None) -> None:
        """counted_through `marks` were committed."""
        if marks is not None:
            self.marks.settled(marks)
            self.watch.counted_through(marks.job)

    def heartbeat(self, stored: offsets.Position, marks: Through, seen: offsets.Position | None = None) -> bool:
        """counted_through alone, and the end offsets `seen` no batch has stored yet, on top of
        `stored` (what MySQL holds): tried once, True once stored; a failure but fencing is logged
        and left to the next heartbeat or batch."""
        try:
            self.store.store_marks(stored, marks, seen, self.ids)
        except FencedError:
            raise
        except Exception as error:  # noqa: BLE001  # nothing was stored; the next try carries it
            if not self.beat_failing:  # once per outage: an idle job tries every few seconds
                log.warning("counted_through and the ends seen were not stored (%s); tried again every few seconds, "
                            "and the next batch stores them", self.describe(error) if failures.is_transient(error) else error)
            self.beat_failing = True
            return False
        if self.beat_failing:
            log.info("counted_through and the ends seen are stored again")
        self.beat_failing = False
        self.settled(marks)
        return True

    def commit(self, batch: Counted) -> None:
        """Commits, retrying transient MySQL failures until RETRY_SECONDS. When the connection
        broke during COMMIT, the lease and the stored offsets tell what happened (unknown_outcome)."""
        batch_id, before, after = batch.batch_id, batch.before, batch.after

        def attempt() -> None:
            try:
                if not self.store.commit_batch(batch.summary, before, after, self.ids, batch.seen, batch.marks):
                    log.info("batch %d: an earlier attempt's commit had been applied late; carrying on", batch_id)
            except store.CommitOutcomeUnknown as unknown:
                log.warning("batch %d: %s; checking whether it was stored", batch_id, unknown)
                stored, holder = retry("re-reading the stored offsets", self.store.load_holder, self.retry_seconds,
                                       failures.is_transient, describe=self.describe)
                outcome = unknown_outcome(before, after, stored, holder, self.store.epoch)
                if outcome == APPLIED:
                    log.info("batch %d: the commit had been applied; carrying on", batch_id)
                elif outcome == NOT_APPLIED:
                    raise RetryCommit(f"batch {batch_id} was not stored") from None
                else:
                    raise FencedError(fenced_after_lost_commit(self.store.job, holder, self.store.epoch, stored,
                                                               before, after)) from None

        retry(f"committing batch {batch_id}", attempt, self.retry_seconds,
              lambda error: isinstance(error, RetryCommit) or failures.is_transient(error), describe=self.describe,
              on_retry=self.watch.commit_retried)
