"""How the job's MySQL rows read as its values, and its values as stored text: an offset row as
the start planner reads it (a given-up row keeps the ID it had), what a start plans from
(StartState), a batch's ledger rows, offsets as JSON and as text for messages."""

import json
from collections.abc import Mapping
from dataclasses import dataclass

from errorcount import offsets
from errorcount.offsets import Position, TopicPartition
from errorcount.pipeline.summary import BatchSummary
from errorcount.start_plan import Row

# A topic or partition given up: its rows stay, as history, under an ID no live topic has; a topic of
# that name created later is new to the job (its first upsert replaces them), one that comes back
# with the old ID resumes from them.
GIVEN_UP = "deleted:"


@dataclass(frozen=True)
class StartState:
    """What MySQL holds for a start: the job's offset rows of the topics it reads, and whether this
    is its first start (no start ever stored)."""

    rows: dict[TopicPartition, Row]
    first_start: bool

    def live(self) -> Position:
        return live(self.rows)

    def live_ids(self) -> dict[TopicPartition, tuple[int, str | None]]:
        return live_ids(self.rows)


def live(rows: Mapping[TopicPartition, Row]) -> Position:
    """The next offsets of the rows not given up."""
    return {tp: row.next_offset for tp, row in rows.items() if row.live}


def live_ids(rows: Mapping[TopicPartition, Row]) -> dict[TopicPartition, tuple[int, str | None]]:
    """The next offsets and topic IDs of the rows not given up (what a settled plan is compared by)."""
    return {tp: (row.next_offset, row.topic_id) for tp, row in rows.items() if row.live}


def as_row(next_offset: int, topic_id: str | None, seen_end) -> Row:
    """A kafka_offsets row as the planner reads it: a given-up row's ID is the one it had."""
    given_up = str(topic_id or "").startswith(GIVEN_UP)
    kept = str(topic_id)[len(GIVEN_UP):] if given_up else topic_id
    return Row(next_offset, kept or None, live=not given_up, seen_end=None if seen_end is None else int(seen_end))


def ledger_rows(job: str, epoch: int, batch: BatchSummary, before: Position, after: Position,
                series: tuple[int, int]) -> list[tuple]:
    """The batch's ledger rows: one per topic whose offsets it moved, with that topic's records,
    log records, ERROR lines and rejects, and its offsets before and after ({"partition": next offset}). The
    series' figures (new series, overflow lines: the job's, not a topic's) are on the first row."""
    moved = sorted({tp.topic for tp, o in after.items() if before.get(tp) != o})
    # A batch of one topic has its totals (a summary made outside summarize() may lack per_topic).
    per_topic = batch.per_topic or ({moved[0]: (batch.records, batch.errors, batch.rejected, batch.records_logged)}
                                    if len(moved) == 1 else {})
    rows = []
    for number, topic in enumerate(moved):
        records, errors, rejected, logged = per_topic.get(topic, (0, 0, 0, 0))
        rows.append((job, topic, epoch, records, logged, errors, rejected, *(series if number == 0 else (0, 0)),
                     as_json(offsets.in_topic(before, topic)), as_json(offsets.in_topic(after, topic))))
    return rows


def rejected_minute_rows(job: str, minute_rejects: Mapping[tuple[str, int], int]) -> list[tuple[str, str, str, int]]:
    """Pure: rejected_minutes rows (job, topic, minute key, rejects) of {(topic, epoch minute): rejects},
    in the table's key order (log_time, topic), so that writers lock rows in one order."""
    return [(job, topic, offsets.minute_key(m), n) for m, topic, n in sorted((m, t, n) for (t, m), n in minute_rejects.items())]


def as_json(offsets: dict[int, int]) -> str:
    return json.dumps({str(p): o for p, o in sorted(offsets.items())})


def as_text(position: Mapping) -> str:
    return ", ".join(f"{tp}: {o}" for tp, o in sorted(position.items())) or "none"
