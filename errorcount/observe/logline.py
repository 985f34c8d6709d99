"""The driver's structured log lines: written and parsed in this one module. Tests, make bench and
make chaos read a driver's log only through parse(); the driver writes them only through line().

A line is `<UTC time> <LEVEL> <logger>: <event> <number>: key=value ...` with no space in a value:

    2026-11-22 09:27:34,505 INFO errorcount.batch.commit: batch 12: records=500 errors=80 rejected=3
        dead_letters=3 minutes=7 offsets=logs-0:10,logs-1:12 plan=one-task count_ms=40 commit_ms=8
        batch_ms=55
    2026-11-22 09:27:34,600 INFO errorcount.observe.progress: spark batch 12: rows=500 trigger_ms=105 ...

    2026-11-22 09:27:30,100 INFO errorcount.supervisor: query 1: epoch=4 resuming=logs-0:10,logs-1:12

(one line each; wrapped here). Offsets are topic-partition:next offset, partitions named as Kafka
names them. `batch` is one committed micro-batch, `spark batch` Spark's own timing of it
(errorcount/observe/progress.py), `query N` the Nth streaming query this driver started (a query that
fails is started again from MySQL's offsets: query 2, 3, ...).
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from errorcount.offsets import Position, TopicPartition

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"  # asctime in UTC: errorcount/main.py
BATCH, SPARK_BATCH, QUERY = "batch", "spark batch", "query"
_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) [A-Z]+ [\w.]+: ([a-z ]+?) (\d+): ((?:\S+=\S*)(?: \S+=\S*)*)$",
                   re.MULTILINE)


LISTED = 8  # a position of more partitions (or a plan of more topics) is summarized on a log line


def format_value(value) -> str:
    if isinstance(value, dict):
        return ",".join(f"{key}:{value[key]}" for key in sorted(value))
    text = str(value)
    if not text or any(c.isspace() for c in text):
        raise ValueError(f"a log line value must be one non-empty word, got {text!r}")
    return text


def brief(position: Position) -> str:
    """A position as one short word at any partition count: each partition's next offset while they
    are at most LISTED (format_value's list, `logs-0:10,logs-1:12`), else per topic its partitions as
    ranges and the spread of their next offsets (`logs[0-2047]:980..1210`), and past LISTED topics
    the totals and the spread (`412_partitions_of_103_topics:980..1210`). The full list is in MySQL
    (kafka_offsets, the ledger's offsets_after) and in the driver's DEBUG lines."""
    if not position:
        return "-"
    if len(position) <= LISTED:
        return format_value(dict(position))
    by_topic: dict[str, dict[int, int]] = {}
    for tp, offset in position.items():
        by_topic.setdefault(tp.topic, {})[tp.partition] = offset
    if len(by_topic) > LISTED:
        return f"{len(position)}_partitions_of_{len(by_topic)}_topics:{spread(position.values())}"
    return ",".join(f"{topic}[{ranges(partitions, '+')}]:{spread(partitions.values())}"
                    for topic, partitions in sorted(by_topic.items()))


def topics_read(topics: dict[str, tuple[str, list[int]]]) -> str:
    """The topics a start reads ({topic: (ID, partitions)}), in words: each with its ID and its
    partitions as ranges, or past LISTED topics their number and the partitions' total."""
    if len(topics) > LISTED:
        return f"{len(topics)} topics ({sum(len(partitions) for _, partitions in topics.values())} partitions)"
    return "topics " + ", ".join(f"{topic!r} (ID {topic_id}, partitions {ranges(partitions)})"
                                 for topic, (topic_id, partitions) in topics.items())


def ranges(numbers: Iterable[int], separator: str = ",") -> str:
    """Integers as sorted ranges: 0-3,5,7-9."""
    runs: list[list[int]] = []
    for number in sorted(set(numbers)):
        if runs and number == runs[-1][1] + 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return separator.join(str(low) if low == high else f"{low}-{high}" for low, high in runs)


def span(names: list[str]) -> str:
    """The first and the last of sorted names: `logs.a .. logs.z`, or the one name."""
    return names[0] if len(names) == 1 else f"{names[0]} .. {names[-1]}"


def spread(values: Iterable[int]) -> str:
    """The lowest and highest of `values`: 980..1210, or one number when they are equal."""
    listed = list(values)
    low, high = min(listed), max(listed)
    return str(low) if low == high else f"{low}..{high}"


def line(event: str, number: int, **fields) -> str:
    """The message of one structured line (the logger adds time, level and name)."""
    return f"{event} {number}: " + " ".join(f"{key}={format_value(value)}" for key, value in fields.items())


@dataclass(frozen=True)
class Record:
    """One structured line read back: when it was logged (UTC epoch seconds), its number (the
    batch id) and its fields as text; int() and offsets() type them."""

    logged_at: float
    number: int
    fields: dict[str, str]

    def integer(self, key: str) -> int:
        return int(self.fields[key])

    def offsets(self, key: str = "offsets") -> Position:
        found = {}
        for pair in self.fields[key].split(",") if self.fields[key] else []:
            name, offset = pair.rsplit(":", 1)
            topic, partition = name.rsplit("-", 1)  # a topic name may hold '-': the partition follows the last
            found[TopicPartition(topic, int(partition))] = int(offset)
        return found


def parse(text: str, event: str = BATCH) -> list[Record]:
    """Every `event` line of a driver's log, in order; any other line is ignored."""
    found = []
    for stamp, name, number, fields in _LINE.findall(text):
        if name == event:
            logged = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").replace(tzinfo=UTC).timestamp()
            found.append(Record(logged, int(number), dict(pair.split("=", 1) for pair in fields.split(" "))))
    return found
