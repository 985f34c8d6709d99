"""How a batch's size is known before it runs (the handler's choice of plan)."""

import pytest

from errorcount.batch.handler import BatchCommitter, BatchSettings, runs_as_one_task
from errorcount.config.load import load_config
from errorcount.offsets import of_topic
from errorcount.start_plan import Resume
from errorcount.store import Store
from errorcount.store.retention import Retention


def offset_log(directory, batch_id: int, ends: dict[int, int]) -> None:
    (directory / "offsets").mkdir(exist_ok=True)
    offsets = ",".join(f'"{partition}":{offset}' for partition, offset in ends.items())
    (directory / "offsets" / str(batch_id)).write_text(f'v1\n{{"batchWatermarkMs":0}}\n{{"logs":{{{offsets}}}}}')


def test_planned_records_are_the_end_offsets_less_the_previous_batchs_or_the_stored_ones(tmp_path):
    committer = BatchCommitter(BatchSettings.of(load_config([], {"KAFKA_TOPIC": "logs"})), Store(None, "job", ["logs"]),
                               Resume(of_topic("logs", {0: 100, 1: 40}), 2, "", {"logs": "ID"}), Retention(0),
                               str(tmp_path), describe=str)
    assert committer.planned_records(0) is None  # nothing in the offset log yet
    offset_log(tmp_path, 0, {0: 130, 1: 45})
    offset_log(tmp_path, 1, {0: 131, 1: 1045})
    offset_log(tmp_path, 3, {0: 140, 1: 1045, 2: 9})  # a partition added after batch 1
    assert committer.planned_records(0) == 30 + 5  # from the stored offsets
    assert committer.planned_records(1) == 1 + 1000  # from batch 0's end offsets
    assert committer.planned_records(2) is None  # no entry
    assert committer.planned_records(3) is None  # from the stored offsets, which lack partition 2
    offset_log(tmp_path, 4, {0: 150, 1: 1045, 2: 10})
    assert committer.planned_records(4) == 10 + 0 + 1


@pytest.mark.parametrize("planned, rows_per_record, one_task", [
    (None, 1.0, False),       # size unknown (no offset log entry): parallel
    (10_000, 1.0, True),      # one log record per record: the records are the rows
    (10_001, 1.0, False),
    (100, 100.0, True),       # OTLP requests of 100 log records: 100 x 100 rows
    (101, 100.0, False),
    (1, None, False),         # OTLP before its first batch: a request may hold thousands
])
def test_a_batch_runs_as_one_task_when_its_rows_fit_under_the_limit(planned, rows_per_record, one_task):
    assert runs_as_one_task(planned, rows_per_record, 10_000) is one_task


def test_an_otlp_jobs_first_batch_does_not_guess_its_requests_hold_one_log_record_each(tmp_path):
    def committer(log_format: str) -> BatchCommitter:
        cfg = load_config([], {"KAFKA_TOPIC": "logs", "LOG_FORMAT": log_format})
        return BatchCommitter(BatchSettings.of(cfg), Store(None, "job", ["logs"]),
                              Resume(of_topic("logs", {0: 0}), 1, "", {"logs": "ID"}), Retention(0),
                              str(tmp_path), describe=str)
    assert committer("otlp").rows_per_record is None
    assert committer("app").rows_per_record == 1.0


class MarksRecorder(Store):
    """The Store with its heartbeat transaction replaced by a record of what it was handed."""

    def __init__(self):
        super().__init__(None, "job", ["logs"])
        self.stored_marks: list = []

    def store_marks(self, stored, marks) -> None:
        self.stored_marks.append((dict(stored), marks.job))


def test_the_heartbeat_stores_counted_through_once_it_can_move_a_second(tmp_path):
    from errorcount.counted_through import Marks, Observation

    recorder, marks, stored = MarksRecorder(), Marks(), of_topic("logs", {0: 100, 1: 40})
    committer = BatchCommitter(BatchSettings.of(load_config([], {"KAFKA_TOPIC": "logs"})), recorder,
                               Resume(stored, 2, "", {"logs": "ID"}), Retention(0), str(tmp_path), describe=str,
                               marks=marks)

    def beat() -> None:
        committer.heartbeat()
        committer.commits.wait()  # OVERLAP_COMMIT: the heartbeat's transaction runs on the committing thread
    beat()
    assert recorder.stored_marks == []  # nothing observed yet
    marks.observe(Observation(5_000, dict(stored), {"logs": "RECREATED"}))
    beat()
    assert recorder.stored_marks == []  # another topic under the name: its ends say nothing
    marks.observe(Observation(6_000, dict(stored), {"logs": "ID"}))
    beat()
    assert recorder.stored_marks == [(stored, 6_000)] and marks.stored_job == 6_000
    marks.observe(Observation(6_500, dict(stored), {"logs": "ID"}))
    beat()
    assert len(recorder.stored_marks) == 1  # less than a second further
    marks.observe(Observation(7_000, dict(stored), {"logs": "ID"}))
    beat()
    assert recorder.stored_marks[-1] == (stored, 7_000)
    committer.close()
    marks.observe(Observation(9_000, dict(stored), {"logs": "ID"}))
    beat()
    assert len(recorder.stored_marks) == 2  # closed: nothing more


def test_a_commit_stores_the_newest_end_the_observer_saw_of_the_jobs_topic(tmp_path):
    """seen_end is what a recreated topic's rows are measured against (a loss, or retired): the end
    observer's newest look raises it even before Spark's progress reports the ends (it does so for
    the batch before), so a job stopped right after records arrived still knows it did not read them."""
    from errorcount.counted_through import Marks, Observation

    marks, stored = Marks(), of_topic("logs", {0: 100, 1: 40})
    committer = BatchCommitter(BatchSettings.of(load_config([], {"KAFKA_TOPIC": "logs"})), Store(None, "job", ["logs"]),
                               Resume(stored, 2, "", {"logs": "ID"}), Retention(0), str(tmp_path), describe=str,
                               marks=marks)
    after = of_topic("logs", {0: 110, 1: 50})
    assert committer.seen_now(after) == after  # nothing observed: the batch's own ends
    marks.observe(Observation(5_000, of_topic("logs", {0: 900, 1: 45}), {"logs": "ID"}))
    assert committer.seen_now(after) == of_topic("logs", {0: 900, 1: 50})
    marks.observe(Observation(6_000, of_topic("logs", {0: 9_000, 1: 9_000}), {"logs": "RECREATED"}))
    assert committer.seen_now(after) == after  # the newest look saw another topic under the name: nothing of it
    committer.close()
