"""What the recount's plan (errorcount/recount/plan.py) is made of: the job's offset rows (MySQL)
and what Kafka holds of each partition now. `partition_facts` is the pure rule; `ask_kafka` the
three listOffsets requests it needs. `changed_topics` is the rule that keeps a read honest after the
plan: the records read must be those of the topics the plan saw."""

from collections.abc import Mapping
from dataclasses import dataclass

from errorcount.kafka.admin import KafkaAdmin
from errorcount.offsets import TopicPartition
from errorcount.recount.plan import PartitionFacts
from errorcount.store.recount import JobRow

NONE = -1  # Kafka's answer where it has no record (listOffsets: offset and timestamp -1)


@dataclass(frozen=True)
class Held:
    """What Kafka holds of one partition of the topic the job's row belongs to."""

    log_start: int         # its earliest offset
    at_time: int           # the first offset with a timestamp at or after the read start (NONE: none)
    first_ms: int          # the timestamp of the first record it holds (NONE: it holds none)
    topic_id: str          # the ID of the topic Kafka holds under the partition's name


def partition_facts(rows: Mapping[TopicPartition, JobRow], held: Mapping[TopicPartition, Held],
                    recreated_ms: Mapping[TopicPartition, int]) -> dict[TopicPartition, PartitionFacts]:
    """Each partition the job counted records of, as the plan sees it. A partition Kafka holds (of
    the topic the row belongs to: `held` names only those) is read from Kafka's answers; one it
    does not (topic deleted or recreated since, row given up) is gone: every record the job
    counted of it was appended before the row was last written, and none can be read again. A
    partition whose topic the job found recreated keeps the time of that skip. Rows that counted
    nothing are left out."""
    facts = {}
    for tp, row in sorted(rows.items()):
        if row.counted_from >= row.next_offset and tp not in recreated_ms:
            continue
        found = held.get(tp)
        if row.gone or found is None:
            facts[tp] = PartitionFacts(row.counted_from, row.next_offset, row.next_offset, None,
                                       recreated_ms=max(row.updated_ms, recreated_ms.get(tp, 0)))
            continue
        facts[tp] = PartitionFacts(row.counted_from, row.next_offset, found.log_start,
                                   None if found.at_time == NONE else found.at_time,
                                   None if found.first_ms == NONE else found.first_ms, recreated_ms.get(tp))
    return facts


def ask_kafka(admin: KafkaAdmin, rows: Mapping[TopicPartition, JobRow], read_from_ms: int) -> dict[TopicPartition, Held]:
    """Kafka's answers for the partitions of `rows` it holds under the row's topic ID (read_committed):
    the earliest offset, the first offset at or after `read_from_ms`, the first record's time."""
    described = {topic: found for topic, found in admin.described(sorted({tp.topic for tp in rows})).items()
                 if found is not None}
    ids = {topic: found.topic_id for topic, found in described.items()}
    present = set()
    for topic, found in described.items():
        for partition in found.partitions:
            tp = TopicPartition(topic, partition)
            row = rows.get(tp)
            if row is not None and not row.gone and row.topic_id in (None, ids[topic]):
                present.add(tp)
    earliest = admin.list_offsets(dict.fromkeys(present, "earliest"))
    at_time = admin.list_offsets(dict.fromkeys(present, read_from_ms))
    first = admin.list_offsets(dict.fromkeys(present, 0))
    return {tp: Held(earliest[tp][0], at_time[tp][0], first[tp][1], ids[tp.topic]) for tp in present}


def changed_topics(read: Mapping[str, str], now: Mapping[str, str | None],
                   rows: Mapping[TopicPartition, JobRow]) -> list[str]:
    """The topics whose records a read may not have been those the recount meant: `read` is the ID
    each topic it read had when it planned (or first read it), `now` Kafka's IDs after the read (None:
    no such topic), `rows` the job's offset rows now. A topic deleted and created again under the same
    name between the plan and the read would hand the read another topic's records at the planned
    offsets; its ID tells (IDs are never reused). So does a job row that moved to another ID (the live
    job found the topic recreated). Deleted since the read counts as changed too: nothing can tell
    any more which topic the read saw."""
    changed = {topic for topic, planned in read.items() if now.get(topic) != planned}
    changed |= {tp.topic for tp, row in rows.items()
                if tp.topic in read and row.topic_id is not None and row.topic_id != read[tp.topic]}
    return sorted(changed)
