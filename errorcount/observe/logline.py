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
from dataclasses import dataclass
from datetime import UTC, datetime

from errorcount.offsets import Position, TopicPartition

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"  # asctime in UTC: errorcount/main.py
BATCH, SPARK_BATCH, QUERY = "batch", "spark batch", "query"
_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) [A-Z]+ [\w.]+: ([a-z ]+?) (\d+): ((?:\S+=\S*)(?: \S+=\S*)*)$",
                   re.MULTILINE)


def format_value(value) -> str:
    if isinstance(value, dict):
        return ",".join(f"{key}:{value[key]}" for key in sorted(value))
    text = str(value)
    if not text or any(c.isspace() for c in text):
        raise ValueError(f"a log line value must be one non-empty word, got {text!r}")
    return text


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
