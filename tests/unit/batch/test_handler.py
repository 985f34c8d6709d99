"""How a batch's size is known before it runs (the handler's choice of plan)."""

import pytest

from errorcount.batch.handler import BatchCommitter, BatchSettings, runs_as_one_task
from errorcount.config.load import load_config
from errorcount.offsets import of_topic
from errorcount.pipeline.classify import Contract
from errorcount.start_plan import Resume
from errorcount.store import Store
from errorcount.store.retention import Retention


def offset_log(directory, batch_id: int, ends: dict[int, int]) -> None:
    (directory / "offsets").mkdir(exist_ok=True)
    offsets = ",".join(f'"{partition}":{offset}' for partition, offset in ends.items())
    (directory / "offsets" / str(batch_id)).write_text(f'v1\n{{"batchWatermarkMs":0}}\n{{"logs":{{{offsets}}}}}')


def test_planned_reads_are_the_end_offsets_less_the_previous_batchs_or_the_stored_ones(tmp_path):
    committer = BatchCommitter(BatchSettings.of(load_config([], {"KAFKA_TOPIC": "logs"})), Store(None, "job", ["logs"]),
                               Resume(of_topic("logs", {0: 100, 1: 40}), 2, "", {"logs": "ID"}), Retention(0),
                               str(tmp_path), describe=str)
    assert committer.planned_reads(0) is None  # nothing in the offset log yet
    offset_log(tmp_path, 0, {0: 130, 1: 45})
    offset_log(tmp_path, 1, {0: 131, 1: 1045})
    offset_log(tmp_path, 3, {0: 140, 1: 1045, 2: 9})  # a partition added after batch 1
    assert committer.planned_reads(0) == (30 + 5, 2)  # from the stored offsets
    assert committer.planned_reads(1) == (1 + 1000, 2)  # from batch 0's end offsets
    assert committer.planned_reads(2) is None  # no entry
    assert committer.planned_reads(3) is None  # from the stored offsets, which lack partition 2
    offset_log(tmp_path, 4, {0: 150, 1: 1045, 2: 10})
    assert committer.planned_reads(4) == (10 + 0 + 1, 2)  # partition 1 does not advance: not read


@pytest.mark.parametrize("planned, rows_per_record, one_task", [
    (None, 1.0, False),           # size unknown (no offset log entry): parallel
    ((10_000, 4), 1.0, True),     # one log record per record: the records are the rows
    ((10_001, 4), 1.0, False),
    ((100, 1), 100.0, True),      # OTLP requests of 100 log records: 100 x 100 rows
    ((101, 1), 100.0, False),
    ((1, 1), None, False),        # OTLP before its first batch: a request may hold thousands
    ((8, 8), 1.0, True),          # a few records over up to 8 partitions: one task
    ((9, 9), 1.0, False),         # over more: each partition's read costs, spread over the cores
    ((2_214, 610), 1.0, False),
])
def test_a_batch_runs_as_one_task_when_its_rows_and_partitions_fit(planned, rows_per_record, one_task):
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
        self.stored_seen: list = []
        self.failing = False
        self.tries = 0

    def store_marks(self, stored, marks, seen=None, topic_ids=None) -> None:
        self.tries += 1
        if self.failing:
            raise ConnectionError("the SQL server went away")
        self.stored_marks.append((dict(stored), marks.job))
        if seen:
            self.stored_seen.append({tp: (end, topic_ids[tp.topic]) for tp, end in seen.items()})

    def commit_batch(self, batch, before, after, topic_ids, seen=None, marks=None) -> bool:
        return True


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


def test_the_heartbeat_stores_the_ends_seen_that_no_batch_stored_for_two_looks(tmp_path, caplog):
    """A long TRIGGER_INTERVAL: records arrived, their batch is not due. A job stopped before it
    would start knowing nothing of them (seen_end), and a recreation of the topic meanwhile would
    retire its partitions as counted to their end: a silent loss. The heartbeat stores the ends the
    observer saw once two of its looks passed without a batch; a batch handed over starts the wait anew."""
    from errorcount.batch.commit import Counted
    from errorcount.counted_through import Marks, Observation
    from errorcount.offsets import TopicPartition as TP
    from errorcount.pipeline.summary import BatchSummary

    def settings(trigger: str) -> BatchSettings:
        return BatchSettings.of(load_config([], {"KAFKA_TOPIC": "logs", "TRIGGER_INTERVAL": trigger}))
    assert settings("1 second").seen_wait_s == 2  # looks every trigger, within 1 to 10 s
    assert settings("5 minutes").seen_wait_s == 20
    recorder, marks, stored, now = MarksRecorder(), Marks(), of_topic("logs", {0: 100, 1: 40}), [0.0]
    committer = BatchCommitter(settings("5 minutes"), recorder, Resume(stored, 2, "", {"logs": "ID"}, seen={TP("logs", 1): 45}),
                               Retention(0), str(tmp_path), describe=str, marks=marks)
    committer.clock = lambda: now[0]

    def beat(at: float) -> None:
        now[0] = at
        committer.heartbeat()
        committer.commits.wait()
    # partition 0 behind its end (so counted_through cannot move), 1 at the end MySQL holds as seen,
    # 7 of a partition MySQL holds no offset for (found while the query runs: its batch stores it)
    marks.observe(Observation(5_000, of_topic("logs", {0: 150, 1: 45, 7: 9}), {"logs": "ID"}))
    for at in (0.0, 10.0, 19.9):
        beat(at)
    assert recorder.stored_seen == []  # not yet two looks
    caplog.set_level("INFO", logger="errorcount.batch.commit")
    recorder.failing = True  # MySQL away: tried again every HEARTBEAT_RETRY_S, said once
    for at in (20.0, 20.5, 24.9, 25.0, 30.0):
        beat(at)
    assert recorder.stored_seen == [] and recorder.tries == 3
    assert sum("were not stored" in r.getMessage() for r in caplog.records) == 1
    recorder.failing = False
    beat(35.0)
    assert recorder.stored_seen == [{TP("logs", 0): (150, "ID")}] and recorder.stored_marks[-1][1] is None
    assert "stored again" in caplog.text
    beat(60.0)
    assert len(recorder.stored_seen) == 1  # stored: nothing above it
    marks.observe(Observation(6_000, of_topic("logs", {0: 5, 1: 5}), {"logs": "RECREATED"}))
    beat(100.0)
    assert len(recorder.stored_seen) == 1  # another topic under the name: nothing of it
    marks.observe(Observation(7_000, of_topic("logs", {0: 170, 1: 46}), {"logs": "ID"}))
    beat(101.0)
    summary = BatchSummary(records=10, errors=0, ranges={TP("logs", 0): (100, 109)})
    committer.hand_over(Counted(0, summary, stored, of_topic("logs", {0: 110, 1: 40}), {}, "parallel", 0.0, 0.0))
    committer.commits.wait()
    beat(121.5)
    assert len(recorder.stored_seen) == 1  # a batch was handed over since 101: the wait starts again
    beat(141.5)
    assert recorder.stored_seen[-1] == {TP("logs", 0): (170, "ID"), TP("logs", 1): (46, "ID")}
    committer.close()


def test_the_batches_are_counted_with_the_contract_the_job_classifies_with():
    cfg = load_config([], {"KAFKA_TOPIC": "logs", "LOG_FORMAT": "access", "COUNT_LINES": "false"})
    settings = BatchSettings.of(cfg)
    assert settings.contract == Contract.of(cfg) and not settings.contract.every_line
    given = Contract.with_settings(LOG_FORMAT="json")
    assert BatchSettings.of(cfg, given).contract is given
