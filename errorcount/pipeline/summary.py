"""One micro-batch's result, folded on the driver from the one pass's rows (fold.py), and the
shape of those rows (FIELDS). Pure Python: the store and the bench's pure-Python consumer use it
without Spark."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from errorcount.offsets import TopicPartition

DeadLetter = tuple[str, int, int, str, bytes | None]  # topic, partition, offset, reject reason, the value's first KiB


@dataclass(frozen=True)
class BatchSummary:
    """What one micro-batch contributes: totals, ERROR counts per epoch minute (and per minute and
    series with GROUP_BY), the offset range
    seen per topic and partition (inclusive) and dead letters (topic, partition, offset, reason, raw value). The
    one batch result from counting (count.count) to the transaction (store.Store.commit_batch):
    complete when made, never changed after."""

    records: int = 0
    errors: int = 0
    rejected: int = 0
    minute_counts: dict[int, int] = field(default_factory=dict)  # epoch minute: ERROR lines
    ranges: dict[TopicPartition, tuple[int, int]] = field(default_factory=dict)
    dead_letters: tuple[DeadLetter, ...] = ()
    newest_ms: int | None = None  # the newest Kafka record timestamp (epoch ms), when the rows carry it
    # (minute, series): ERROR lines, GROUP_BY; from the fold a view of Arrow columns (series_columns.py)
    series_counts: Mapping[tuple[int, str], int] = field(default_factory=dict)
    # topic: (records, errors, rejected, log_records): Kafka records, ERROR lines and rejects among
    # their log records, and the log records (as many as records but for LOG_FORMAT=otlp)
    per_topic: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)
    # COUNT_LINES: every line (error or not, rejects not) per minute, and per (minute, series) with
    # GROUP_BY; a minute or series with lines and no ERROR line is in minute_counts/series_counts
    # with 0. Empty without COUNT_LINES.
    minute_lines: dict[int, int] = field(default_factory=dict)
    series_lines: Mapping[tuple[int, str], int] = field(default_factory=dict)
    log_records: int | None = None  # the log records in `records` (None: as many, one per record)
    # two rejected records fell on one dead-letter slot, so dead_letters holds only one of them
    # (the rejected log records of one OTLP request share their record's slot: no collision)
    collided: bool = False
    # rejected log records per (topic, epoch minute of their Kafka record's timestamp), when the rows
    # carry timestamps: rejects have no minute of their own (rejected_minutes, docs/operations.md)
    minute_rejects: dict[tuple[str, int], int] = field(default_factory=dict)

    @property
    def lines(self) -> int:
        """The lines counted (COUNT_LINES; 0 without it): every minute's, the error ratio's denominator."""
        return sum(self.minute_lines.values())

    @property
    def records_logged(self) -> int:
        """The log records: `records` but for LOG_FORMAT=otlp, whose records hold many (or none)."""
        return self.records if self.log_records is None else self.log_records


# one_pass_summary_df's columns, in its order (OnePass.java emits them so; tests/oracles/catalyst.py
# selects them from here; tests/oracles/pyfold.py unpacks rows in this order)
FIELDS = ("topic", "partition", "minute", "series", "dead_slot", "records", "log_records", "errors", "rejected", "min_offset",
          "max_offset", "reject_reason", "raw_value", "newest_ms", "reject_minute")


def dead_letter_slots(limit: int, partitions: int) -> int:
    """Slots per partition for dead letters: together about `limit` (DEAD_LETTER_LIMIT) over
    `partitions` (of every topic read)."""
    return -(-limit // max(partitions, 1)) if limit > 0 else 0


def every_dead_letter(rows: Iterable[Any]) -> tuple[DeadLetter, ...]:
    """rejected_rows_df rows as dead letters (topic, partition, offset, reason, raw value), in
    order, one per record (an OTLP request's rejected log records share theirs: its first reason)."""
    letters = sorted((row["topic"], row["partition"], row["offset"], row["reject_reason"],
                      None if row["raw_value"] is None else bytes(row["raw_value"])) for row in rows)
    return tuple(letter for i, letter in enumerate(letters) if i == 0 or letter[:3] != letters[i - 1][:3])
