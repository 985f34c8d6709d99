"""How a batch's size is known before it runs (the handler's choice of plan)."""

from errorcount.batch.handler import BatchCommitter, BatchSettings
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
