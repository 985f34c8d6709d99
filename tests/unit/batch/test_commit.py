"""What a COMMIT whose reply was lost did; lines counted into minutes that already read as complete:
counted in the metrics after every batch, logged at most once per interval with what came since (a
real JobMetrics, a fake clock)."""

import logging

import pytest

from errorcount.batch.commit import APPLIED, FENCED, NOT_APPLIED, LateLines, fenced_after_lost_commit, unknown_outcome
from errorcount.observe.metrics import JobMetrics
from errorcount.observe.watch import Watch
from errorcount.offsets import stored_state
from errorcount.pipeline.summary import BatchSummary


@pytest.mark.parametrize("stored, outcome", [
    ({0: 20, 1: 5}, APPLIED),        # the batch's own offsets
    ({0: 10, 1: 5}, NOT_APPLIED),    # the previous ones: not applied, or not yet (the retry's lock waits for it)
    ({0: 10, 1: 9}, FENCED),         # someone else's
    ({0: 20}, FENCED),               # a row gone
    ({0: 20, 1: 5, 2: 1}, FENCED),   # a row more
])
def test_a_lost_commit_is_resolved_from_the_stored_offsets(stored, outcome):
    assert unknown_outcome({0: 10, 1: 5}, {0: 20, 1: 5}, stored, holder=4, epoch=4) == outcome


@pytest.mark.parametrize("stored", [{0: 20, 1: 5}, {0: 10, 1: 5}])
def test_a_lost_commit_under_a_lease_another_epoch_holds_is_fenced_whatever_the_offsets(stored):
    """A newer instance started from the previous offsets and committed the same records itself:
    the stored offsets are this batch's, but not this instance's doing."""
    assert unknown_outcome({0: 10, 1: 5}, {0: 20, 1: 5}, stored, holder=5, epoch=4) == FENCED
    assert unknown_outcome({0: 10, 1: 5}, {0: 20, 1: 5}, stored, holder=None, epoch=4) == FENCED



@pytest.mark.parametrize("holder, says", [
    (5, "was taken over by another instance (the lease is held by epoch 5; this one had epoch 4)"),
    (None, "was taken over by another instance (no lease row; this one had epoch 4)"),
    (4, "changed behind this driver"),
])
def test_a_fenced_lost_commit_says_what_the_lease_check_says_for_the_same_state(holder, says):
    """A takeover found after a lost COMMIT reads as the lease check's refusal (store/lease.py), so
    operators and their alerts meet one sentence however the old instance learnt of it; the job,
    both epochs and the three offsets are named."""
    text = fenced_after_lost_commit("web", holder, 4, {0: 30}, {0: 10}, {0: 20})
    assert says in text and "job 'web'" in text
    assert "stored offsets 0: 30" in text and "this batch's 0: 20" in text and "the previous 0: 10" in text
    assert "one instance runs per JOB_NAME" in text

def test_a_late_applied_commit_is_read_as_not_applied_then_found_applied_by_the_retry():
    """The reply was lost and the COMMIT not yet visible: the plain read sees the previous offsets
    (commit again); the retry's locking read (Store.check_owner, the same rule) waits for it, finds
    the batch's own offsets and writes nothing: counted once."""
    before, after = {0: 10, 1: 5}, {0: 20, 1: 5}
    assert unknown_outcome(before, after, stored=before, holder=1, epoch=1) == NOT_APPLIED
    assert stored_state(after, before, after) == APPLIED  # Store.check_owner: AlreadyApplied, nothing written
    assert stored_state(before, before, after) == NOT_APPLIED  # truly not applied: the retry writes the batch

MINUTE = 60_000
M = 29_000_000  # an epoch minute (2025-02-19 21:20 UTC)


def counter(metrics: JobMetrics, name: str) -> float:
    value = metrics.registry.get_sample_value(f"{name}_total", {"job_name": metrics.job})
    assert value is not None, name
    return value


def test_late_lines_are_counted_every_batch_and_warned_of_once_per_interval(caplog):
    metrics, now = JobMetrics("orders"), [0.0]
    late = LateLines(Watch(metrics), lateness_s=120, every_s=600, clock=lambda: now[0])
    mark = (M + 5) * MINUTE  # complete_before = M + 3 minutes: minutes up to M + 2 are complete
    caplog.set_level(logging.WARNING, logger="errorcount.batch.commit")
    late.counted(BatchSummary(minute_counts={M + 1: 2, M + 2: 1, M + 3: 9}, minute_lines={M + 1: 20, M + 2: 4, M + 3: 90}),
                 mark)
    assert (counter(metrics, "errorcount_late_error_lines"), counter(metrics, "errorcount_late_lines")) == (3, 24)
    assert len(caplog.records) == 1
    said = caplog.records[0].getMessage()
    assert said.startswith("3 ERROR lines (24 lines in all) were counted into minutes that already read as complete "
                           "(the oldest 2025-02-19 21:21 UTC)") and "LATENESS (120 s)" in said
    now[0] = 300.0  # within the interval: counted, not logged
    late.counted(BatchSummary(minute_counts={M: 1}), mark)
    late.counted(BatchSummary(minute_counts={M + 4: 6}), mark)  # not complete: nothing
    assert counter(metrics, "errorcount_late_error_lines") == 4 and len(caplog.records) == 1
    now[0] = 601.0  # the next one after the interval says what came since the last warning
    late.counted(BatchSummary(minute_counts={M + 2: 2}), mark)
    assert counter(metrics, "errorcount_late_error_lines") == 6 and len(caplog.records) == 2
    said = caplog.records[1].getMessage()
    assert said.startswith("3 ERROR lines were counted into minutes that already read as complete (the oldest "
                           "2025-02-19 21:20 UTC) in the last 601 s")


def test_nothing_is_late_before_the_job_has_a_mark(caplog):
    metrics = JobMetrics("orders")
    LateLines(Watch(metrics), lateness_s=0).counted(BatchSummary(minute_counts={M: 5}, minute_lines={M: 50}), None)
    assert counter(metrics, "errorcount_late_error_lines") == 0 and not caplog.records
