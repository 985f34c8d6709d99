"""Where each partition starts: one pure function from what MySQL holds (the job's offset rows,
whether it was ever started) and what Kafka holds now (topics, IDs, partitions, earliest and end
offsets) to the start plan, or the DataLossError that stops the job. Its case table is in
docs/design.md ("Where each partition starts"), a unit test per row in tests/unit/test_start_plan.py.

The rules, per partition:
- a row of the topic as it is now (same topic ID, or none stored yet) resumes at its offset, unless
  Kafka no longer holds it (below the earliest: `retention`; past the end: `truncated`);
- a partition without such a row starts at STARTING_OFFSETS at the job's first start only, else at
  0 (new to the job: nothing of it was ever read); above 0 that is a gap (`new_partition`). The
  first start's plan is stored with the job's first epoch, in one transaction
  (Store.acquire_lease); a lease found without a stored start (an earlier version stored the two
  apart) is said at WARNING, with what STARTING_OFFSETS does now;
- rows of a topic that is gone (deleted, or recreated under another ID) are given up: `retired`
  when every partition was counted to the end the job last saw, else `given_up`/`recreated`, a loss.
A loss is a DataLossError naming each partition and range unless ON_DATA_LOSS=skip, which records
it in skipped_offsets; a retirement is recorded and logged, never a stop.
"""

from dataclasses import dataclass, field

from errorcount.errors import DataLossError
from errorcount.observe import logline
from errorcount.offsets import Position, TopicPartition

# skipped_offsets.kind: what happened to a partition at a start.
RETENTION, NEW_PARTITION, TRUNCATED = "retention", "new_partition", "truncated"
RECREATED, GIVEN_UP, RETIRED = "recreated", "given_up", "retired"
LOSSES = (RETENTION, NEW_PARTITION, TRUNCATED, RECREATED, GIVEN_UP)  # need ON_DATA_LOSS=skip


@dataclass(frozen=True)
class Row:
    """One kafka_offsets row of the job: the next offset, the ID of the topic it belongs to (None:
    stored before IDs were kept), whether it is live (False: given up, kept as history) and the
    highest end offset the job has seen the partition at (None: not known)."""

    next_offset: int
    topic_id: str | None
    live: bool = True
    seen_end: int | None = None

    def counted_to_end(self) -> bool:
        """Everything the job ever saw of the partition is counted."""
        return self.seen_end is not None and self.next_offset >= self.seen_end


@dataclass(frozen=True)
class TopicState:
    """A topic as Kafka holds it now: partitions with their earliest and end (last stable) offsets, its ID."""

    partitions: list[int]
    earliest: dict[int, int]
    latest: dict[int, int]
    topic_id: str


@dataclass(frozen=True)
class Event:
    """What a start records of one partition (a skipped_offsets row): `kind`, the stored next
    offset (`stored`), `resume` (to_offset: where reading goes on, or the end of what the job
    knows it did not read) and why, in words."""

    kind: str
    topic: str
    partition: int
    stored: int
    resume: int
    why: str

    @property
    def loss(self) -> bool:
        return self.kind in LOSSES


@dataclass
class Plan:
    """Where every current partition of every topic read starts (`offsets`, under `topic_ids`), the
    live rows to give up (`give_up`), what is recorded (`events`), the end offsets seen now
    (`seen`), the IDs of the topics with rows that Kafka does not hold now (`away`: one back under
    such an ID resumes from its rows) and lines worth logging (`notes` at INFO, `warnings`)."""

    offsets: Position = field(default_factory=dict)
    topic_ids: dict[str, str] = field(default_factory=dict)
    give_up: list[TopicPartition] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    seen: Position = field(default_factory=dict)
    away: dict[str, set[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)  # per topic, where `notes` summarize many (DEBUG)
    first_starts: dict[str, dict[int, int]] = field(default_factory=dict)  # per topic at a first start
    new_at_0: dict[str, list[int]] = field(default_factory=dict)  # per topic, partitions new to the job

    def losses(self) -> list[Event]:
        return [event for event in self.events if event.loss]


def plan_start(rows: dict[TopicPartition, Row], topics: dict[str, TopicState], first_start: bool,
               starting_offsets: str, skip: bool, earlier_lease: str | None = None) -> Plan:
    """The start plan (module docstring). `rows`: the job's offset rows of the topics it reads,
    given-up ones included; `topics`: the topics read, as Kafka holds them now; `first_start`: the
    job has never stored a start (STARTING_OFFSETS applies); `skip`: ON_DATA_LOSS=skip;
    `earlier_lease`: the job's lease in words when one was taken before this first start."""
    plan = Plan()
    if first_start and earlier_lease:
        plan.warnings.append(
            f"the job's lease exists ({earlier_lease}) but no start was ever stored: an earlier start stopped "
            "between taking the lease and storing where the job starts (an earlier version stored the two apart). "
            f"STARTING_OFFSETS={starting_offsets} applies now, as at a first start: " + (
                "records written to the topics between that start and now are not counted"
                if starting_offsets == "latest" else "nothing is missed but what retention deleted since"))
    by_topic: dict[str, dict[int, Row]] = {}
    for tp, row in rows.items():
        by_topic.setdefault(tp.topic, {})[tp.partition] = row
    for topic, now in sorted(topics.items()):
        plan_topic(plan, topic, now, by_topic.get(topic, {}), first_start, starting_offsets)
    summarize(plan, starting_offsets)
    for topic, gone in sorted(by_topic.items()):
        if topic not in topics:
            plan.away[topic] = {row.topic_id for row in gone.values() if row.topic_id}
            give_up(plan, topic, {p: row for p, row in gone.items() if row.live}, GIVEN_UP,
                    "the topic no longer exists (deleted, or missing from Kafka's listing)")
    losses = plan.losses()
    if losses and not skip:
        raise DataLossError(describe_losses(losses))
    return plan


def plan_topic(plan: Plan, topic: str, now: TopicState, rows: dict[int, Row], first_start: bool,
               starting_offsets: str) -> None:
    """One present topic: its rows settled against it, each current partition given a start."""
    plan.topic_ids[topic] = now.topic_id
    own = {p: row for p, row in rows.items() if row.topic_id == now.topic_id or (row.live and row.topic_id is None)}
    if any(row.topic_id is None for row in own.values()):
        plan.notes.append(f"topic {topic!r}: adopting its current topic ID {now.topic_id} for offsets stored before "
                          "topic IDs were kept")
    if any(not row.live for row in own.values()):
        plan.notes.append(f"topic {topic!r} is back with the ID {now.topic_id} it had when the job gave it up: "
                          "resuming from the offsets stored then")
    older = {p: row for p, row in rows.items() if row.live and p not in own}
    give_up(plan, topic, older, RECREATED, f"the topic was recreated: its ID was {older_ids(older)}, now {now.topic_id}")
    vanished = {p: row for p, row in own.items() if row.live and p not in now.latest}
    give_up(plan, topic, vanished, GIVEN_UP, f"the partition no longer exists in topic ID {now.topic_id}")
    new_at_0 = []
    for p in now.partitions:
        tp, earliest, end = TopicPartition(topic, p), now.earliest[p], now.latest[p]
        plan.seen[tp] = end
        row = own.get(p)
        if row is not None:
            plan.offsets[tp] = resume(plan, topic, p, row.next_offset, earliest, end)
        elif first_start:
            plan.offsets[tp] = earliest if starting_offsets == "earliest" else end
        else:
            plan.offsets[tp] = earliest
            if earliest > 0:
                plan.events.append(Event(NEW_PARTITION, topic, p, 0, earliest,
                                         f"new to the job, but its first {earliest} records were deleted before "
                                         "the job saw them"))
            else:
                new_at_0.append(p)
    if new_at_0:
        plan.new_at_0[topic] = new_at_0
    if first_start and now.partitions:
        plan.first_starts[topic] = {p: plan.offsets[TopicPartition(topic, p)] for p in now.partitions}


def summarize(plan: Plan, starting_offsets: str) -> None:
    """The decisions many partitions share, in a few lines whatever their number: per topic its
    partitions as ranges (a topic may have thousands), and past logline.LISTED topics one line for
    all of them, each topic's own line then among the plan's `details` (DEBUG)."""
    first, starts, new = f"the job's first start, STARTING_OFFSETS={starting_offsets}", plan.first_starts, plan.new_at_0
    if starts:
        every = [offset for at in starts.values() for offset in at.values()]
        summarized(plan, {topic: f"topic {topic!r}: {first}: partitions {logline.ranges(at)} start at {listed(at)}"
                          for topic, at in starts.items()},
                   f"{first}: {len(every)} partitions start at offsets {logline.spread(every)}")
    if new:
        summarized(plan, {topic: f"topic {topic!r} partitions {logline.ranges(ps)}: new to the job, counted from offset 0"
                          for topic, ps in new.items()},
                   f"{sum(map(len, new.values()))} partitions new to the job, counted from offset 0")


def listed(offsets: dict[int, int]) -> str:
    """Each partition's offset while they are at most logline.LISTED, else their spread."""
    if len(offsets) <= logline.LISTED:
        return ",".join(f"{p}:{o}" for p, o in offsets.items())
    return f"offsets {logline.spread(offsets.values())}"


def summarized(plan: Plan, lines: dict[str, str], summary: str) -> None:
    """Each topic's line among the notes, or past logline.LISTED topics `summary` for all of them."""
    if len(lines) <= logline.LISTED:
        plan.notes += lines.values()
    else:
        plan.notes.append(f"{len(lines)} topics ({logline.span(sorted(lines))}): {summary} (each topic at DEBUG)")
        plan.details += lines.values()


def resume(plan: Plan, topic: str, partition: int, stored: int, earliest: int, end: int) -> int:
    """Where a partition with a row of the topic as it is now goes on: its stored offset, unless
    Kafka no longer holds it."""
    if stored < earliest:
        plan.events.append(Event(RETENTION, topic, partition, stored, earliest,
                                 f"{earliest - stored} records deleted before they were counted (retention, "
                                 "kafka-delete-records)"))
        return earliest
    if stored > end:
        # The log is shorter than what was counted (an unclean leader election, a log rebuilt empty):
        # resuming below the stored offset could read again records already counted, so reading
        # goes on at the end; what was written after the truncation, below it, is not counted.
        plan.events.append(Event(TRUNCATED, topic, partition, stored, end,
                                 f"stored next offset beyond the partition's end {end} under the same topic ID "
                                 "(log truncated): resumed at the end, so nothing is counted twice"))
        return end
    return stored


def give_up(plan: Plan, topic: str, rows: dict[int, Row], loss_kind: str, what: str) -> None:
    """Live rows of a topic or partition that is gone: each retired when counted to the end the job
    last saw, else a loss of `loss_kind` (the range it knows it did not read)."""
    for p, row in sorted(rows.items()):
        plan.give_up.append(TopicPartition(topic, p))
        if row.counted_to_end():
            plan.events.append(Event(RETIRED, topic, p, row.next_offset, row.next_offset,
                                     f"{what}; every record the job saw of it (to offset {row.seen_end}) was counted"))
            continue
        seen = "an unknown end" if row.seen_end is None else f"end {row.seen_end}"
        plan.events.append(Event(loss_kind, topic, p, row.next_offset, max(row.seen_end or 0, row.next_offset),
                                 f"{what}; the job had counted to offset {row.next_offset} of {seen}: records "
                                 "after it may never have been counted"))


def older_ids(rows: dict[int, Row]) -> str:
    return "/".join(sorted({row.topic_id or "unknown" for row in rows.values()}))


def describe_losses(losses: list[Event]) -> str:
    """The DataLossError's message: every partition and range, and the two ways on."""
    parts = [f"topic {e.topic!r} partition {e.partition} ({e.kind}): " + (
        f"offsets {e.stored} to {e.resume}" if e.stored < e.resume else f"stored next offset {e.stored}"
        + (f", partition end {e.resume}" if e.kind == TRUNCATED else "")) + f": {e.why}" for e in losses]
    return ("records the job has not counted are no longer in Kafka: " + "; ".join(parts) + ". Nothing was "
            "changed. To accept the loss and go on, restart once with ON_DATA_LOSS=skip (each range is recorded in "
            "skipped_offsets, docs/operations.md 'After a skip'); or restore the topic.")


@dataclass(frozen=True)
class Resume:
    """Where a new query starts: the offsets MySQL stores (the plan's), how many partitions the
    topics have, Spark's startingOffsets JSON for them, each topic's ID, the end offsets seen
    (stored with the offsets) and the IDs of given-up topics not read now (one that comes back with
    such an ID while the query runs is planned at a restart, never read from its start)."""

    stored: Position
    partitions: int
    starting_offsets: str
    topic_ids: dict[str, str]
    seen: Position = field(default_factory=dict)
    given_up: dict[str, set[str]] = field(default_factory=dict)
