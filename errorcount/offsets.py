"""Offset bookkeeping as pure functions: where to start, what to store, what must never happen."""

import json
from dataclasses import dataclass
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
    next offset (plan_start has stored one for every partition; earliest for one added since, as
    Spark does)."""
    return json.dumps({topic: {str(p): stored.get(TopicPartition(topic, p), EARLIEST) for p in sorted(found)}
                       for topic, found in sorted(partitions.items())})


@dataclass(frozen=True)
class Gap:
    """A stored offset Kafka can no longer serve: `resume` is where reading can go on."""

    topic: str
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
            gaps.append(Gap(topic, partition, offset, earliest[partition],
                            f"{earliest[partition] - offset} records deleted before they were counted (retention?)"))
        elif offset > latest[partition]:
            gaps.append(Gap(topic, partition, offset, earliest[partition],
                            f"stored offset beyond the partition's end {latest[partition]} (topic recreated?)"))
    return gaps


def describe_gaps(topic: str, gaps: list[Gap]) -> str:
    parts = [f"partition {g.partition}: stored next offset {g.stored}, earliest available {g.resume}: {g.why}"
             for g in gaps]
    return (f"topic {topic!r}: " + "; ".join(parts) + ". To accept the loss and resume at the earliest available "
            "offsets, restart with ON_DATA_LOSS=skip (the skipped ranges are recorded in skipped_offsets).")


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


BEFORE, AFTER, OTHER = "not applied", "applied", "fenced"


def stored_state(stored: Position, before: Position, after: Position | None) -> str:
    """Whose offsets MySQL holds for a transaction that moves `before` to `after`: BEFORE (it has
    not applied: go ahead, or commit again), AFTER (it has applied, perhaps late), OTHER (another
    writer's: fenced). `before` wins where the two are equal (a start that stores nothing new)."""
    if stored == before:
        return BEFORE
    return AFTER if after is not None and stored == after else OTHER


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


@dataclass(frozen=True)
class StartPlan:
    """Where a query starts and what must be stored first: `offsets` for every partition (stored,
    resolved or skipped to), `skipped` (gaps accepted under ON_DATA_LOSS=skip), `resolved` (partitions
    seen for the first time, STARTING_OFFSETS resolved to a number once), `recreated` (the stored
    offsets belonged to an earlier topic of this name)."""

    offsets: dict[int, int]
    skipped: list[Gap]
    resolved: dict[int, int]
    recreated: bool


def plan_start(topic: str, stored: dict[int, int], stored_ids: set[str], current_id: str, partitions: list[int],
               earliest: dict[int, int], latest: dict[int, int], default: str, skip: bool) -> StartPlan:
    """Settles the stored offsets against the topic as Kafka holds it now. Stored offsets of another
    topic ID (deleted and recreated), or that Kafka no longer holds (find_gaps), are data loss:
    DataLossError unless `skip`, which resumes the new topic at its earliest offsets. Partitions
    without a stored offset get one now, stored: at the job's first start (nothing stored) from
    `default` (STARTING_OFFSETS: earliest|latest); once the job has offsets, from earliest, since a
    partition first seen later (added while the job was stopped) holds nothing the job has seen and
    Spark counts one added while it runs from its first offset too. Resolved once, so a restart never
    resolves 'latest' again and skips what arrived meanwhile."""
    others = stored_ids - {current_id}
    if stored and others:
        gaps = [Gap(topic, p, o, earliest.get(p, 0), f"topic recreated: its ID was {'/'.join(sorted(others))}, now {current_id}; "
                    "what the old topic held from the stored offset on was never counted")
                for p, o in sorted(stored.items())]
        if not skip:
            raise DataLossError(f"topic {topic!r} was deleted and recreated since the job stored its offsets (topic ID "
                                f"{'/'.join(sorted(others))}, now {current_id}): records of the old topic may never have "
                                "been counted. To count the new topic from its first record, restart with "
                                "ON_DATA_LOSS=skip (each partition's switch is recorded in skipped_offsets).")
        offsets = {**{gap.partition: gap.resume for gap in gaps}, **{p: earliest[p] for p in partitions}}
        return StartPlan(offsets, gaps, {}, True)
    gaps = find_gaps(topic, stored, earliest, latest)
    if gaps and not skip:
        raise DataLossError(describe_gaps(topic, gaps))
    start = earliest if default == "earliest" or stored else latest
    resolved = {p: start[p] for p in partitions if p not in stored}
    return StartPlan({**stored, **{gap.partition: gap.resume for gap in gaps}, **resolved}, gaps, resolved, False)


def plan_gone(topic: str, stored: dict[int, int], subscription: str, skip: bool) -> list[Gap]:
    """A topic the job has offsets of that no longer exists (deleted under a pattern): what it held
    from the stored offsets on may never have been counted. DataLossError unless `skip`, which gives
    the topic up (a Gap per partition, to be recorded; a topic created later under the name is new)."""
    if not skip:
        raise DataLossError(f"topic {topic!r} ({subscription}) no longer exists, but the job has offsets of it "
                            f"({dict(sorted(stored.items()))}): what it held after them may never have been counted. "
                            "To go on without it, restart with ON_DATA_LOSS=skip (recorded in skipped_offsets; a "
                            "topic created later under this name is read from its first record).")
    return [Gap(topic, p, o, o, "topic deleted while the job had offsets of it; given up") for p, o in sorted(stored.items())]


def minute_key(epoch_minute: int) -> str:
    """Epoch minute -> 'YYYY-MM-DD HH:MM:00' for a MySQL DATETIME (no time zone involved)."""
    return (_EPOCH + timedelta(minutes=epoch_minute)).strftime("%Y-%m-%d %H:%M:00")
