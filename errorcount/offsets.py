"""Offset bookkeeping as pure functions: where to start, what to store, what must never happen."""

import json
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import NamedTuple

from errorcount.errors import DataLossError

EARLIEST, LATEST = -2, -1  # Spark's startingOffsets sentinels
_EPOCH = datetime(1970, 1, 1)


class TopicPartition(NamedTuple):
    """One partition of one topic: what every offset of the job is keyed by. Written as Kafka
    writes it, topic-partition (a topic name may hold '-'; the partition is after the last one)."""

    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


Position = dict[TopicPartition, int]  # next offset to read, per topic and partition


def of_topic(topic: str, offsets: dict[int, int]) -> Position:
    """{partition: offset} of one topic as a Position."""
    return {TopicPartition(topic, p): o for p, o in offsets.items()}


def in_topic(position: Position, topic: str) -> dict[int, int]:
    """The {partition: offset} of `topic` in a Position."""
    return {tp.partition: o for tp, o in position.items() if tp.topic == topic}


def from_spark_json(text: str) -> Position:
    """A Position from Spark's offsets JSON ({"topic": {"0": 123, ...}, ...}). ValueError, TypeError
    or AttributeError when the text is not that shape."""
    return {TopicPartition(str(topic), int(p)): int(o) for topic, found in json.loads(text).items()
            for p, o in found.items()}


def starting_offsets_json(partitions: dict[str, list[int]], stored: Position) -> str:
    """startingOffsets for every current partition of every topic (Spark requires all): the stored
    next offset (start_plan.plan_start has planned one for every partition; earliest for one added since, as
    Spark does)."""
    return json.dumps({topic: {str(p): stored.get(TopicPartition(topic, p), EARLIEST) for p in sorted(found)}
                       for topic, found in sorted(partitions.items())})


def check_no_overlap(expected: Position, ranges: dict[TopicPartition, tuple[int, int]]) -> None:
    """A batch must start at or after the stored next offset of each partition; anything
    earlier would be counted twice. Later starts are normal (transaction markers, compaction)."""
    for partition, (low, _high) in sorted(ranges.items()):
        if partition in expected and low < expected[partition]:
            raise DataLossError(f"batch starts at offset {low} of topic {partition.topic!r} partition "
                                f"{partition.partition}, before the stored "
                                f"next offset {expected[partition]}: refusing to count records twice.")


def advance(expected: Position, ranges: dict[TopicPartition, tuple[int, int]]) -> Position:
    """Next offsets after a batch: max offset + 1 where the batch had records, else unchanged."""
    return {**expected, **{partition: high + 1 for partition, (_low, high) in ranges.items()}}


NOT_APPLIED, APPLIED, FENCED = "not applied", "applied", "fenced"  # what a transaction found stored


def stored_state(stored: Mapping, before: Mapping, after: Mapping | None) -> str:
    """Whose offsets MySQL holds for a transaction that moves `before` to `after`: NOT_APPLIED (it has
    not applied: go ahead, or commit again), APPLIED (it has applied, perhaps late), FENCED (another
    writer's: fenced). `before` wins where the two are equal (a start that stores nothing new)."""
    if stored == before:
        return NOT_APPLIED
    return APPLIED if after is not None and stored == after else FENCED


def beyond_plan(ranges: dict[TopicPartition, tuple[int, int]], planned: Position) -> bool:
    """Whether a batch's rows hold a record at or past the end Spark planned for its partition
    (or of a partition the plan does not name): the plan is not what was read."""
    return any(planned.get(partition, -1) <= high for partition, (_low, high) in ranges.items())


def batch_end(expected: Position, ranges: dict[TopicPartition, tuple[int, int]], planned: Position | None) -> Position:
    """Next offsets after a batch: the end Spark planned for it (`planned`, from the checkpoint's
    offset log), which also covers what a read_committed reader never sees at the end of a batch:
    a transaction's commit or abort marker, an aborted transaction's records. Without a plan, or
    one that the rows contradict (a record at or past its end), max offset + 1 (advance)."""
    seen = advance(expected, ranges)
    if planned is None or beyond_plan(ranges, planned):
        return seen
    return {**seen, **{partition: end for partition, end in planned.items() if end > seen.get(partition, -1)}}


def minute_key(epoch_minute: int) -> str:
    """Epoch minute -> 'YYYY-MM-DD HH:MM:00' for a MySQL DATETIME (no time zone involved)."""
    return (_EPOCH + timedelta(minutes=epoch_minute)).strftime("%Y-%m-%d %H:%M:00")


def minute_text(minute: int) -> str:
    """An epoch minute as the counts table writes it, without seconds: YYYY-MM-DD HH:MM."""
    return minute_key(minute)[:16]


def epoch_minute(log_time: datetime) -> int:
    """A DATETIME minute as MySQL returns it (naive) -> epoch minute: minute_key's inverse, no zone."""
    return (log_time - _EPOCH) // timedelta(minutes=1)


def utc_text(epoch_ms: int) -> str:
    """Epoch milliseconds -> 'YYYY-MM-DD HH:MM:SS.fff' for a MySQL DATETIME(3) in a UTC session."""
    return (_EPOCH + timedelta(milliseconds=epoch_ms)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
