"""Offset bookkeeping as pure functions: where to start, what to store, what must never happen."""

import json
from datetime import datetime, timedelta

from app.errors import DataLossError

EARLIEST, LATEST = -2, -1  # Spark's startingOffsets sentinels
_EPOCH = datetime(1970, 1, 1)


def starting_offsets_json(topic: str, partitions: list[int], stored: dict[int, int], default: str) -> str:
    """startingOffsets for every current partition (Spark requires all): the stored next offset
    where known, else the configured start (earliest|latest)."""
    fallback = EARLIEST if default == "earliest" else LATEST
    return json.dumps({topic: {str(p): stored.get(p, fallback) for p in sorted(partitions)}})


def check_stored_offsets(topic: str, stored: dict[int, int], earliest: dict[int, int], latest: dict[int, int]) -> None:
    """Raises DataLossError when a stored offset cannot be resumed from without losing or
    recounting records: its partition is gone, its records were deleted, or it lies beyond the
    end of the partition (the topic was recreated or truncated)."""
    for partition, offset in sorted(stored.items()):
        where = f"topic {topic!r} partition {partition}: stored next offset {offset}"
        if partition not in latest:
            raise DataLossError(f"{where}, but the partition no longer exists (topic deleted or recreated). "
                                "Check the topic; to start this job over, delete its kafka_offsets rows.")
        if offset < earliest[partition]:
            raise DataLossError(f"{where}, but the earliest available offset is {earliest[partition]}: "
                                f"{earliest[partition] - offset} records were deleted before they were counted. "
                                "Check retention; to accept the loss, set the row's next_offset to the earliest offset.")
        if offset > latest[partition]:
            raise DataLossError(f"{where}, but the partition ends at {latest[partition]} (topic recreated or truncated?). "
                                "Check the topic; to start over, delete this job's kafka_offsets rows.")


def check_no_overlap(expected: dict[int, int], ranges: dict[int, tuple[int, int]]) -> None:
    """A batch must start at or after the stored next offset of each partition; anything
    earlier would be counted twice. Later starts are normal (transaction markers, compaction)."""
    for partition, (low, _high) in sorted(ranges.items()):
        if partition in expected and low < expected[partition]:
            raise DataLossError(f"batch starts at offset {low} of partition {partition}, before the stored "
                                f"next offset {expected[partition]}: refusing to count records twice.")


def advance(expected: dict[int, int], ranges: dict[int, tuple[int, int]]) -> dict[int, int]:
    """Next offsets after a batch: max offset + 1 where the batch had records, else unchanged."""
    return {**expected, **{partition: high + 1 for partition, (_low, high) in ranges.items()}}


def minute_key(epoch_minute: int) -> str:
    """Epoch minute -> 'YYYY-MM-DD HH:MM:00' for a MySQL DATETIME (no time zone involved)."""
    return (_EPOCH + timedelta(minutes=epoch_minute)).strftime("%Y-%m-%d %H:%M:00")
