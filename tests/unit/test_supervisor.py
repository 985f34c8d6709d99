"""How a query's end becomes the driver's outcome (errorcount/supervisor.py await_stop), and a commit that
fails while the job stops. No Spark: a query is anything with awaitTermination and stop."""

import pytest
from pyspark.errors import StreamingQueryException

from errorcount.batch.commit import Counted
from errorcount.batch.handler import BatchCommitter, BatchSettings
from errorcount.config.load import load_config
from errorcount.errors import EXIT_DATA_LOSS, EXIT_INTERNAL, DataLossError, JobStop
from errorcount.offsets import TopicPartition as TP
from errorcount.pipeline.summary import BatchSummary
from errorcount.retry import QueryFailed
from errorcount.start_plan import Resume
from errorcount.store.retention import Retention
from errorcount.store.transactions import Store
from errorcount.supervisor import await_stop


class EndingQuery:
    """A query that runs for `polls` looks, then has ended with `failure` (None: ended cleanly).
    isActive turns false as it ends, before anyone asks awaitTermination again: the race the old
    loop (`while query.isActive: awaitTermination`) lost the JobStop in."""

    def __init__(self, polls: int, failure: Exception | None):
        self.polls, self.failure, self.stopped = polls, failure, False

    @property
    def isActive(self) -> bool:
        return self.polls > 0

    def awaitTermination(self, timeout=None) -> bool:
        if self.polls > 0:
            self.polls -= 1
            return False
        if self.failure is not None:
            raise self.failure
        return True

    def stop(self) -> None:
        self.stopped = True


def committer(tmp_path, overlap: bool = False) -> BatchCommitter:
    cfg = load_config([], {"KAFKA_TOPIC": "logs", "OVERLAP_COMMIT": str(overlap).lower(), "RETRY_SECONDS": "0"})
    return BatchCommitter(BatchSettings.of(cfg), Store(None, "job", ["logs"]), Resume({}, 1, "", {"logs": "ID"}),
                          Retention(0), str(tmp_path), describe=str)


def test_a_query_ended_by_a_jobstop_between_two_looks_ends_the_driver_with_its_code(tmp_path):
    batches = committer(tmp_path)
    batches.commits.record(DataLossError("batch 3 starts before the stored offset"))  # what __call__ records
    with pytest.raises(DataLossError) as ended:
        await_stop(EndingQuery(2, StreamingQueryException(message="foreachBatch failed")), batches, lambda: False)
    assert ended.value.exit_code == EXIT_DATA_LOSS


def test_a_query_that_failed_or_ended_by_itself_is_restarted(tmp_path):
    with pytest.raises(QueryFailed, match="broker gone"):
        await_stop(EndingQuery(1, StreamingQueryException(message="broker gone")), committer(tmp_path), lambda: False)
    with pytest.raises(QueryFailed, match="stopped by itself"):
        await_stop(EndingQuery(1, None), committer(tmp_path), lambda: False)


def test_a_stop_request_returns_without_ending_the_query(tmp_path):
    query = EndingQuery(100, None)
    asked = iter([False, False, True])
    await_stop(query, committer(tmp_path), lambda: next(asked))
    assert not query.stopped and query.polls == 98


def test_a_commit_that_fails_while_the_job_stops_is_never_a_clean_exit(tmp_path):
    batches = committer(tmp_path, overlap=True)
    summary = BatchSummary(records=1, errors=1, minute_counts={1: 1}, ranges={TP("logs", 0): (0, 0)})
    # The store has no connection: the commit fails on the committing thread (as a broken one would).
    batches.hand_over(Counted(0, summary, {}, {TP("logs", 0): 1}, {}, "parallel", 0.0, 0.0))
    with pytest.raises(JobStop) as stopped:
        batches.stop()
    assert stopped.value.exit_code == EXIT_INTERNAL
    assert "the last batch's commit failed while the job stopped" in stopped.value.message
