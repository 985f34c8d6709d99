"""Offset bookkeeping as pure functions: where to start, what to store, what must never happen."""

import json
from dataclasses import dataclass
from datetime import datetime, timedelta

from errorcount.errors import DataLossError

EARLIEST, LATEST = -2, -1  # Spark's startingOffsets sentinels
_EPOCH = datetime(1970, 1, 1)


def starting_offsets_json(topic: str, partitions: list[int], stored: dict[int, int], default: str) -> str:
    """startingOffsets for every current partition (Spark requires all): the stored next offset
    where known, else the configured start (earliest|latest)."""
    fallback = EARLIEST if default == "earliest" else LATEST
    return json.dumps({topic: {str(p): stored.get(p, fallback) for p in sorted(partitions)}})


@dataclass(frozen=True)
class Gap:
    """A stored offset Kafka can no longer serve: `resume` is where reading can go on."""

    partition: int
    stored: int
    resume: int
    why: str


def find_gaps(topic: str, stored: dict[int, int], earliest: dict[int, int], latest: dict[int, int]) -> list[Gap]:
    """Stored offsets that cannot be resumed from without losing records: older than the earliest
    retained offset (retention deleted records never counted) or beyond the partition's end (the
    topic was recreated or truncated). A stored partition that no longer exists raises
    DataLossError at once: there is nothing to resume."""
    gaps = []
    for partition, offset in sorted(stored.items()):
        if partition not in latest:
            raise DataLossError(f"topic {topic!r} partition {partition}: stored next offset {offset}, but the partition "
                                "no longer exists (topic deleted or recreated with fewer partitions). Check the topic; "
                                "to go on without it, an admin deletes that kafka_offsets row.")
        if offset < earliest[partition]:
            gaps.append(Gap(partition, offset, earliest[partition],
                            f"{earliest[partition] - offset} records deleted before they were counted (retention?)"))
        elif offset > latest[partition]:
            gaps.append(Gap(partition, offset, earliest[partition],
                            f"stored offset beyond the partition's end {latest[partition]} (topic recreated?)"))
    return gaps


def describe_gaps(topic: str, gaps: list[Gap]) -> str:
    parts = [f"partition {g.partition}: stored next offset {g.stored}, earliest available {g.resume}: {g.why}"
             for g in gaps]
    return (f"topic {topic!r}: " + "; ".join(parts) + ". To accept the loss and resume at the earliest available "
            "offsets, restart with ON_DATA_LOSS=skip (the skipped ranges are recorded in skipped_offsets).")


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
