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

import re
from dataclasses import dataclass
from datetime import datetime

from errorcount.config.rules import Rules
from errorcount.errors import EXIT_CONFIG, EXIT_DATA_LOSS, ConfigError
from errorcount.offsets import TopicPartition, epoch_minute, minute_text


@dataclass(frozen=True)
class Range:
    """Minutes [first, end) as epoch minutes, in the counts table's terms (log_time)."""

    first: int
    end: int

    def read_from_ms(self, skew_s: int) -> int:
        """The Kafka time (epoch ms) a record of the range can be no older than (never before 1970:
        Kafka reads a negative time as "latest" or "earliest")."""
        return max((self.first * 60 - skew_s) * 1000, 0)


@dataclass(frozen=True)
class PartitionFacts:
    """One partition, as the job's rows and Kafka give it when the recount is planned."""

    counted_from: int      # the first offset the job counted (its first stored start)
    stored: int            # the job's stored next offset
    log_start: int         # Kafka's earliest offset it still holds
    at_time: int | None    # Kafka's earliest offset with a timestamp at or after the read start (None: none has)
    log_start_ms: int | None = None  # the Kafka timestamp of the record at log_start (None: none is held)
    recreated_ms: int | None = None  # the records the job counted of the partition's earlier topic (recreated, or
                                     # deleted) are gone, all appended before this time


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


def minute_past(ms: int, skew_s: int) -> int:
    """The first minute no record appended at or before Kafka time `ms` can belong to: wholly past
    `ms` plus SKEW."""
    return (ms + skew_s * 1000) // 60_000 + 1


def exact_from(facts: PartitionFacts, skew_s: int) -> int | None:
    """The first minute from which a range is recountable exactly despite what Kafka deleted: past
    the first held record's time (no deleted record is newer; and Kafka's answer for that range's
    read start is past that record, so this rule does not refuse it again). None: unknown."""
    return None if facts.log_start_ms is None else minute_past(facts.log_start_ms, skew_s)


def lost(span: Range, facts: PartitionFacts, skew_s: int) -> tuple[str, int | None] | None:
    """Why records the job counted of this partition, which may belong to the range, are gone, and
    the first minute a range would have to start at to be exact (None: unknown); None if none are."""
    if facts.recreated_ms is not None and span.first < minute_past(facts.recreated_ms, skew_s):
        return (f"the topic was recreated or deleted (by {minute_text(facts.recreated_ms // 60_000)} UTC); what the "
                "job counted of it before is gone"), minute_past(facts.recreated_ms, skew_s)
    if lost_start(facts):
        first = facts.log_start_ms
        held = "" if first is None else f", its first record appended {minute_text(first // 60_000)} UTC"
        return (f"Kafka holds offsets from {facts.log_start}{held}, the job counted from {facts.counted_from} "
                "(retention)"), exact_from(facts, skew_s)
    return None


def plan(span: Range, partitions: dict[TopicPartition, PartitionFacts], skew_s: int,
         now_minute: int) -> dict[TopicPartition, tuple[int, int]] | Refusal:
    """The offsets to read per partition, or the one Refusal that applies (the range's own first)."""
    if span.first >= span.end:
        return Refusal(EXIT_CONFIG, f"the range is empty: FROM ({minute_text(span.first)}) must be before TO "
                                    f"({minute_text(span.end)}).")
    if span.first > now_minute:
        return Refusal(EXIT_CONFIG, f"the range starts in the future ({minute_text(span.first)}, now "
                                    f"{minute_text(now_minute)}): nothing of it has been counted yet.")
    gone = {tp: why for tp, facts in sorted(partitions.items()) if (why := lost(span, facts, skew_s))}
    if gone:
        starts = [start for _reason, start in gone.values()]
        offer = None if None in starts else max(s for s in starts if s is not None)
        remedy = (f"the largest range it can recount exactly starts at {minute_text(offer)}: recount from there"
                  if offer is not None and offer < span.end else "no part of this range can be recounted exactly")
        return Refusal(EXIT_DATA_LOSS, f"records the job counted that may belong to the range {minute_text(span.first)} "
                                       f"to {minute_text(span.end)} are no longer in Kafka: "
                                       f"{'; '.join(f'{tp}: {reason}' for tp, (reason, _start) in gone.items())}. "
                                       f"Nothing was changed; {remedy}.", offer)
    return {tp: read_range(facts) for tp, facts in sorted(partitions.items())}


def rules_refusal(live: Rules | None, own: Rules, job: str) -> Refusal | None:
    """Counts the live job makes under other rules than the recount's would mix two definitions in
    one table: refused, naming each difference. None when they are the same rules."""
    if live is None:
        return Refusal(EXIT_CONFIG, f"job {job!r} has no counting rules on record (its lease row predates them, or it "
                                    "never started): start it once with this version, then recount. Nothing was changed.")
    if live == own:
        return None
    return Refusal(EXIT_CONFIG, f"job {job!r} counts under other rules than this recount's ("
                                f"{'; '.join(own.differences(live))}, the recount's first): recounting under rules the "
                                "job does not apply would mix two definitions in one table. Restart the job with the "
                                "recount's settings first (or recount with the job's). Nothing was changed.")


def table_refusal(table: str, job: str, own: list[str]) -> Refusal | None:
    """A recount replaces minutes in the COUNTS_TABLE its settings name: one the job does not write
    (a copied config, a typo) would lose another table's counts. Refused unless the job claimed it."""
    if table in own:
        return None
    return Refusal(EXIT_CONFIG, f"job {job!r} does not write COUNTS_TABLE {table} (it writes "
                                f"{', '.join(own) or 'no table yet'}): a recount replaces minutes of the table its "
                                "settings name, so they must be the job's own. Recount with the job's settings (its "
                                "config file and environment). Nothing was changed.")


def shared_refusal(table: str, others: list[str]) -> Refusal | None:
    """A counts table other jobs add into (SHARE_COUNTS_TABLE) holds their counts in the same rows:
    replacing a minute would drop theirs. Refused; the other jobs named."""
    if not others:
        return None
    return Refusal(EXIT_CONFIG, f"COUNTS_TABLE {table} is shared with {', '.join(sorted(others))} (SHARE_COUNTS_TABLE): "
                                "its minutes hold their counts too, which a recount of one job would replace. Only a "
                                "table one job writes can be recounted: give each job a COUNTS_TABLE of its own for "
                                "the minutes to come. Nothing was changed.")


def series_refusal(span: Range, grouped: bool, series_days: int, now_minute: int) -> Refusal | None:
    """With GROUP_BY, per-series rows older than SERIES_RETENTION_DAYS are pruned: a recount of such
    minutes would leave totals whose series the next retention pass deletes. Refused, offering the
    range whose series are kept."""
    kept_from = now_minute - series_days * 1440
    if not grouped or not series_days or span.first >= kept_from:
        return None
    return Refusal(EXIT_CONFIG, f"minutes before {minute_text(kept_from)} are older than SERIES_RETENTION_DAYS="
                                f"{series_days}: their per-series rows are pruned, so a recount would write series that "
                                f"the next retention pass deletes, leaving totals without series. Recount from "
                                f"{minute_text(kept_from)} on. Nothing was changed.", kept_from)


def parse_minute(text: str, what: str) -> int:
    """'YYYY-MM-DD HH:MM' (or with T, or :00 seconds), a minute as the counts table keys it (UTC,
    as its log_time), -> epoch minute; ConfigError naming `what` (FROM, TO) otherwise."""
    shape = re.fullmatch(r"\s*(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:00)?\s*", text)
    try:
        if not shape:
            raise ValueError(text)
        moment = datetime.strptime(f"{shape[1]} {shape[2]}", "%Y-%m-%d %H:%M")
    except ValueError:
        raise ConfigError(f"{what}={text!r} is not a minute: write it as YYYY-MM-DD HH:MM, in UTC as the counts table "
                          "keys minutes (e.g. '2026-11-19 00:00')") from None
    return epoch_minute(moment)
