"""The recount's plan, as pure functions of what Kafka and MySQL say: which offsets of each
partition can hold a record of the range [first, end) (epoch minutes, the counts table's log_time),
and when a recount must be refused instead. No I/O.

A record belongs to the recount when the job has counted it (its offset in [counted_from, stored)
of its partition) and its minute is in the range. Kafka is asked for the earliest offset whose
timestamp is at or after the range's start minus SKEW (offsetsForTimes): every earlier record has
an older Kafka timestamp, so, as long as a line's own minute is at most SKEW after its Kafka
timestamp, none of them belongs to the range. SKEW also covers lines whose minute is a wall clock
without a zone (up to 14 h ahead of UTC) and producers' clocks. The reading ends at the stored
offsets; what the job commits meanwhile is read before the swap (the swap's own business).

Kafka may have deleted records the job counted (retention). They are older than the first record
it still holds (Kafka deletes a partition's oldest segments first; with CreateTime, within SKEW);
when that first record is itself at or after the read start, deleted records may belong to the
range, which can then not be recounted exactly: refused, with the range that can (Refusal.offer)."""

import math
from dataclasses import dataclass

from errorcount.errors import EXIT_CONFIG, EXIT_DATA_LOSS
from errorcount.offsets import TopicPartition, minute_key


@dataclass(frozen=True)
class Range:
    """Minutes [first, end) as epoch minutes, in the counts table's terms (log_time)."""

    first: int
    end: int

    def read_from_ms(self, skew_s: int) -> int:
        """The Kafka time (epoch ms) a record of the range can be no older than."""
        return (self.first * 60 - skew_s) * 1000


@dataclass(frozen=True)
class PartitionFacts:
    """One partition, as the job's rows and Kafka give it when the recount is planned."""

    counted_from: int      # the first offset the job counted (its first stored start)
    stored: int            # the job's stored next offset
    log_start: int         # Kafka's earliest offset it still holds
    at_time: int | None    # Kafka's earliest offset with a timestamp at or after the read start (None: none has)
    log_start_ms: int | None = None  # the Kafka timestamp of the record at log_start (None: none is held)


@dataclass(frozen=True)
class Refusal:
    """Why a recount cannot run: its exit code, what to do, and the first minute of the largest
    range that could be recounted exactly when that is the remedy."""

    exit_code: int
    message: str
    offer: int | None = None


def read_range(facts: PartitionFacts) -> tuple[int, int]:
    """[start, end) of the offsets that can hold a record of the range: from Kafka's answer for the
    read start (no record before it can), never before what the job counted, up to the stored offset.
    Empty (start == end) when none can."""
    start = facts.stored if facts.at_time is None else max(facts.at_time, facts.counted_from)
    return min(start, facts.stored), facts.stored


def lost_start(facts: PartitionFacts) -> bool:
    """Kafka deleted records the job counted, and the first it holds is already at or after the
    read start: the deleted ones may belong to the range."""
    return facts.log_start > facts.counted_from and facts.at_time is not None and facts.at_time <= facts.log_start


def exact_from(facts: PartitionFacts, skew_s: int) -> int | None:
    """The first minute from which a range is recountable exactly despite what Kafka deleted: the
    first wholly past the first held record's time plus SKEW (no deleted record is newer than that
    record, so none is in it; and Kafka's answer for its read start is past that record, so this
    rule does not refuse it again). None: unknown."""
    if facts.log_start_ms is None:
        return None
    return math.floor((facts.log_start_ms / 1000 + skew_s) / 60) + 1


def plan(span: Range, partitions: dict[TopicPartition, PartitionFacts], skew_s: int,
         now_minute: int) -> dict[TopicPartition, tuple[int, int]] | Refusal:
    """The offsets to read per partition, or the one Refusal that applies (the range's own first)."""
    if span.first >= span.end:
        return Refusal(EXIT_CONFIG, f"the range is empty: FROM ({minute_text(span.first)}) must be before TO "
                                    f"({minute_text(span.end)}).")
    if span.first > now_minute:
        return Refusal(EXIT_CONFIG, f"the range starts in the future ({minute_text(span.first)}, now "
                                    f"{minute_text(now_minute)}): nothing of it has been counted yet.")
    lost = sorted(tp for tp, facts in partitions.items() if lost_start(facts))
    if lost:
        starts = [exact_from(partitions[tp], skew_s) for tp in lost]
        offer = None if None in starts else max(s for s in starts if s is not None)
        where = ", ".join(f"{tp} holds offsets from {partitions[tp].log_start} (the job counted from "
                          f"{partitions[tp].counted_from})" for tp in lost)
        remedy = (f"the largest range it can recount exactly starts at {minute_text(offer)}: recount from there"
                  if offer is not None and offer < span.end else "no part of this range can be recounted exactly")
        return Refusal(EXIT_DATA_LOSS, f"Kafka no longer holds the start of the range {minute_text(span.first)} to "
                                       f"{minute_text(span.end)}: {where}; records it deleted may belong to the range "
                                       f"(retention). Nothing was changed; {remedy}.", offer)
    return {tp: read_range(facts) for tp, facts in sorted(partitions.items())}


def minute_text(minute: int) -> str:
    """An epoch minute as the counts table writes it, without seconds: YYYY-MM-DD HH:MM."""
    return minute_key(minute)[:16]
