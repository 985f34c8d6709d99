"""counted_through: a time such that every record Kafka had made readable before it is counted,
derived from what the job itself observed (docs/design.md, "Why counted_through never runs ahead").

An Observation is the partitions' high watermarks (Kafka's end offsets, read_uncommitted) asked
for at `at_ms` on the driver's clock, the clock read *before* the request left: every record
appended before `at_ms` lies below the ends the broker answered. So once the job has committed a
partition's next offset at or past that end, every record of the partition appended before
`at_ms` is counted: committed records, and under read_committed also those of transactions that
were still open then (the job cannot have read past them before they ended). A partition's mark is
the newest such `at_ms`; a topic's, the oldest mark of its partitions; the job's, the oldest of
all. An observation advances nothing for a topic under another ID than the job's (recreated) nor
for a partition whose end fell below one already seen (truncated): there the offsets no longer say
what was counted. Marks never go back.
"""

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from errorcount.offsets import Position, TopicPartition

KEEP = 64  # observations kept while not yet covered; the older half is thinned beyond it


@dataclass(frozen=True)
class Observation:
    at_ms: int                   # the driver's clock (epoch ms), read before Kafka was asked
    ends: Position               # every partition of every topic read then, at its high watermark
    ids: Mapping[str, str]       # each topic's ID then


@dataclass(frozen=True)
class Through:
    """Marks (epoch ms) as a commit would store them: per partition, per topic, for the job (None:
    some partition has none yet)."""
    partitions: dict[TopicPartition, int]
    topics: dict[str, int] = field(default_factory=dict)
    job: int | None = None


def same_topic(observation: Observation, topic: str, ids: Mapping[str, str]) -> bool:
    """Whether `observation` saw `topic` under its ID in `ids` (the job's): another topic under the
    name, or one whose ID is unknown, says nothing of what the job counted."""
    seen = observation.ids.get(topic)
    return seen is not None and seen == ids.get(topic)


def advance(observations: Iterable[Observation], stored: Position, ids: Mapping[str, str],
            previous: Mapping[TopicPartition, int]) -> dict[TopicPartition, int]:
    """Pure: each partition's mark once `stored` (the next offsets MySQL holds, or will with the
    commit these marks go into) is stored. `ids`: the topic IDs the offsets belong to; `previous`:
    the marks so far, never lowered. A partition the job holds no offset for starts at 0."""
    marks = dict(previous)
    for seen in observations:
        for tp, end in seen.ends.items():
            if not same_topic(seen, tp.topic, ids):
                continue
            if stored.get(tp, 0) >= end:
                marks[tp] = max(marks.get(tp, seen.at_ms), seen.at_ms)
    return marks


# The highest end known per (topic ID, partition); a None ID (offsets stored before IDs were kept)
# stands for any.
Floor = Mapping[tuple[str | None, TopicPartition], int]


def floor_at(floor: Floor, observation: Observation, tp: TopicPartition) -> int:
    """The highest end known of `tp` under the topic ID `observation` saw it with (or under any ID)."""
    return max(floor.get((observation.ids.get(tp.topic), tp), 0), floor.get((None, tp), 0))


def unshrunk(observation: Observation, floor: Floor) -> Observation:
    """`observation` without the partitions whose end fell below `floor` (the highest end known
    before it, of the same topic ID): truncated, their offsets no longer tell what was counted. A
    topic recreated under the name starts a floor of its own."""
    ends = {tp: end for tp, end in observation.ends.items() if end >= floor_at(floor, observation, tp)}
    return observation if len(ends) == len(observation.ends) else Observation(observation.at_ms, ends, observation.ids)


def oldest(marks: Mapping[TopicPartition, int], partitions: Iterable[TopicPartition]) -> int | None:
    """The oldest mark of `partitions`; None when one has none."""
    found = [marks.get(tp) for tp in partitions]
    known = [m for m in found if m is not None]
    return None if len(known) < len(found) else min(known, default=None)


def through(marks: Mapping[TopicPartition, int], partitions: Iterable[TopicPartition], newest: Observation | None) -> Through:
    """The marks of `partitions` (every partition the job reads: those it holds offsets for and
    those the newest observation lists) per topic and for the job. With no partition at all (a
    pattern matching nothing yet) the job's mark is the newest observation's time."""
    every = sorted(set(partitions))
    topics = {topic: oldest(marks, [tp for tp in every if tp.topic == topic]) for topic in {tp.topic for tp in every}}
    job = oldest(marks, every) if every else (newest.at_ms if newest else None)
    return Through({tp: marks[tp] for tp in every if tp in marks},
                   {t: m for t, m in sorted(topics.items()) if m is not None}, job)


def thinned(observations: list[Observation], keep: int = KEEP) -> list[Observation]:
    """At most about `keep` observations: every other one of the older half dropped when over
    (the newest always stay: they are the ones a commit can reach soonest)."""
    if len(observations) <= keep:
        return observations
    half = len(observations) // 2
    return observations[:half:2] + observations[half:]


class Marks:
    """The job's observations and its partitions' marks, shared by the observing thread (observe),
    the batches (propose, on the offsets a commit stores) and the commits (settled, once stored)."""

    def __init__(self, previous: Mapping[TopicPartition, int] | None = None, job: int | None = None,
                 floor: Floor | None = None):
        self._lock = threading.Lock()
        self._observations: list[Observation] = []
        self._marks: dict[TopicPartition, int] = dict(previous or {})
        self._floor: dict[tuple[str | None, TopicPartition], int] = dict(floor or {})
        self.stored_job: int | None = job  # the job's mark MySQL holds
        self.stored_topics: dict[str, int] = {}  # each topic's mark MySQL holds (as this driver stored or read it)

    @classmethod
    def of(cls, stored: Position, topics: Mapping[str, int], job: int | None, seen: Position,
           ids: Mapping[str, str | None] | None = None) -> "Marks":
        """The marks a driver starts from: each stored partition at its topic's stored mark (true of
        every partition of the topic), the job's, and the end offsets the job has seen as the floor,
        under the topic IDs they were stored with (`ids`; None or missing: any ID)."""
        floor = {((ids or {}).get(tp.topic), tp): end for tp, end in seen.items()}
        marks = cls({tp: topics[tp.topic] for tp in stored if tp.topic in topics}, job, floor)
        marks.stored_topics = dict(topics)
        return marks

    def observe(self, observation: Observation) -> None:
        with self._lock:
            kept = unshrunk(observation, self._floor)
            for tp, end in observation.ends.items():
                topic_id = observation.ids.get(tp.topic)
                if topic_id is not None:  # an unknown ID advances nothing (same_topic), nor raises a floor
                    self._floor[topic_id, tp] = max(self._floor.get((topic_id, tp), end), end)
            self._observations = thinned(self._observations + [kept])

    def propose(self, stored: Position, ids: Mapping[str, str]) -> Through:
        """The marks once `stored` is committed (nothing changes until settled)."""
        with self._lock:
            observations, previous = list(self._observations), dict(self._marks)
        newest = observations[-1] if observations else None
        marks = advance(observations, stored, ids, previous)
        return through(marks, set(stored) | set(newest.ends if newest else ()), newest)

    def newest_ends(self, ids: Mapping[str, str]) -> Position:
        """The newest observation's ends of the topics it saw under the IDs in `ids` (the job's):
        the end offsets seen that a commit stores (kafka_offsets.seen_end)."""
        with self._lock:
            newest = self._observations[-1] if self._observations else None
        if newest is None:
            return {}
        return {tp: end for tp, end in newest.ends.items() if same_topic(newest, tp.topic, ids)}

    def settled(self, marks: Through) -> None:
        """`marks` were committed: keep them; drop the observations every partition has passed."""
        with self._lock:
            for tp, at in marks.partitions.items():
                self._marks[tp] = max(self._marks.get(tp, at), at)
            self._observations = [o for o in self._observations
                                  if any(self._marks.get(tp, -1) < o.at_ms for tp in o.ends)] or self._observations[-1:]
            if marks.job is not None:
                self.stored_job = max(self.stored_job or marks.job, marks.job)
            for topic, at in marks.topics.items():
                self.stored_topics[topic] = max(self.stored_topics.get(topic, at), at)

    def moves(self, marks: Through, step_ms: int) -> bool:
        """Whether `marks` move the job's mark, or one topic's, at least `step_ms` past what MySQL
        holds: a topic that lags (an open transaction, a stalled partition) holds the job's mark
        back, and the other topics' marks still move (docs/operations.md, "Completeness per topic")."""
        with self._lock:
            job_moves = marks.job is not None and marks.job >= (self.stored_job or 0) + step_ms
            return job_moves or any(at >= self.stored_topics.get(topic, 0) + step_ms for topic, at in marks.topics.items())


def into_complete(minutes: Mapping[int, int], complete_before_ms: int | None) -> tuple[int, int | None]:
    """Pure: of a batch's counts per epoch minute, those that land in minutes already complete (the
    minute ends at or before `complete_before_ms`, the stored mark less LATENESS; None: no mark,
    nothing complete) and the oldest such minute. A complete minute whose count changes is what
    readers of complete minutes were promised would not happen: a line later than LATENESS."""
    if complete_before_ms is None:
        return 0, None
    late = {minute: count for minute, count in minutes.items() if count and (minute + 1) * 60_000 <= complete_before_ms}
    return sum(late.values()), min(late, default=None)
