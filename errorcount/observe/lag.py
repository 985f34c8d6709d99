"""How far the job is behind its topic, from what a batch already knows (pure functions).

Records behind: the topic's end offsets minus the offsets just committed, per partition. A batch
cannot see its own progress event (Spark reports it after foreachBatch returns), so the end
offsets are those of the newest progress Spark has reported (errorcount/observe/progress.py keeps it):
the previous batch's `latestOffset`, read from Kafka when that batch was planned. The figure is
therefore at most about two triggers old, and too low by what arrived since; it is exact once the
topic is idle. Time behind: now minus the Kafka timestamp of the newest record committed (the
batch's one Spark job returns it with its other aggregates).
"""

from errorcount.offsets import Position, TopicPartition, from_spark_json


def end_offsets(latest_offset: str | None) -> Position | None:
    """The topics' end offsets from a progress event's sources[].latestOffset JSON text
    ({"topic": {"0": 123, ...}, ...}); None when the event has none."""
    if not latest_offset:
        return None
    try:
        return from_spark_json(latest_offset)
    except (ValueError, AttributeError, TypeError):
        return None


def records_behind(ends: Position | None, committed: Position) -> dict[TopicPartition, int] | None:
    """Per partition, the records between the committed next offset and the end offset (never
    negative: the end offsets may be older than the commit); None when the ends are unknown."""
    if ends is None:
        return None
    return {partition: max(end - committed.get(partition, 0), 0) for partition, end in sorted(ends.items())}


def seconds_behind(now_s: float, newest_record_ms: int | None) -> float | None:
    """Now minus the newest committed record's Kafka timestamp; None when the batch had none."""
    return None if newest_record_ms is None else max(now_s - newest_record_ms / 1000, 0.0)
