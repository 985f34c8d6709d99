"""counted_through's rule (errorcount/counted_through.py): the cases one by one, then a simulated
Kafka with open transactions, rate limits, idle and truncated partitions, against an independent
statement of the contract (every record committed before the mark lies below the stored offset)."""

import random

from errorcount.counted_through import Marks, Observation, Through, advance, into_complete, oldest, thinned, through, unshrunk
from errorcount.offsets import TopicPartition

A0, A1, B0 = TopicPartition("a", 0), TopicPartition("a", 1), TopicPartition("b", 0)
IDS = {"a": "ID-a", "b": "ID-b"}


def seen(at_ms, ends, ids=IDS):
    return Observation(at_ms, ends, ids)


def test_a_partition_is_counted_through_an_observation_once_its_end_is_stored():
    looks = [seen(1000, {A0: 10, A1: 5}), seen(2000, {A0: 20, A1: 5})]
    assert advance(looks, {A0: 10, A1: 5}, IDS, {}) == {A0: 1000, A1: 2000}
    assert advance(looks, {A0: 9, A1: 4}, IDS, {}) == {}
    assert advance(looks, {A0: 25, A1: 5}, IDS, {}) == {A0: 2000, A1: 2000}


def test_marks_never_go_back_and_a_partition_without_offsets_starts_at_zero():
    assert advance([seen(1000, {A0: 10})], {A0: 10}, IDS, {A0: 5000}) == {A0: 5000}
    assert advance([seen(1000, {A1: 0})], {}, IDS, {}) == {A1: 1000}  # empty, never read: nothing missed
    assert advance([seen(1000, {A1: 3})], {}, IDS, {}) == {}


def test_a_topic_under_another_id_or_unknown_advances_nothing():
    assert advance([seen(1000, {A0: 10}, {"a": "ID-new"})], {A0: 10}, IDS, {}) == {}
    assert advance([seen(1000, {A0: 10}, {})], {A0: 10}, IDS, {}) == {}
    assert advance([seen(1000, {A0: 10})], {A0: 10}, {}, {}) == {}


def test_an_end_below_one_seen_before_under_the_same_topic_id_is_left_out():
    look = seen(1000, {A0: 3, A1: 8})
    assert unshrunk(look, {("ID-a", A0): 10, ("ID-a", A1): 8}).ends == {A1: 8}
    assert unshrunk(look, {}) is look
    assert unshrunk(look, {("ID-old", A0): 10}) is look  # another topic under the name: a floor of its own
    assert unshrunk(look, {(None, A0): 10}).ends == {A1: 8}  # stored before IDs were kept: any ID


def test_a_look_at_another_topic_id_leaves_the_jobs_floor_where_it_was():
    marks = Marks()
    marks.observe(seen(1000, {A0: 10}))
    marks.observe(seen(2000, {A0: 500}, {"a": "ID-new"}))  # a recreated topic's higher end
    marks.observe(seen(3000, {A0: 12}))  # the job's topic again: not truncated
    assert marks.propose({A0: 12}, IDS).partitions == {A0: 3000}
    marks.observe(seen(4000, {A0: 11}))  # below its own 12: truncated, left out
    assert marks.newest_ends(IDS) == {}


def test_the_job_and_each_topic_are_as_far_as_their_oldest_partition():
    marks = {A0: 3000, A1: 1000, B0: 2000}
    result = through(marks, [A0, A1, B0], None)
    assert (result.topics, result.job) == ({"a": 1000, "b": 2000}, 1000)
    held = through({A0: 3000, B0: 2000}, [A0, A1, B0], None)
    assert (held.topics, held.job) == ({"b": 2000}, None)
    assert through({}, [], seen(7000, {})).job == 7000  # a pattern matching nothing yet
    assert through({}, [], None).job is None
    assert oldest({A0: 1}, []) is None


def test_thinning_keeps_the_newest():
    looks = [seen(t, {}) for t in range(100)]
    kept = thinned(looks, keep=64)
    assert [o.at_ms for o in kept[-50:]] == list(range(50, 100)) and len(kept) == 75
    assert thinned(looks[:10], keep=64) == looks[:10]


def test_a_rate_limited_partition_holds_the_job_back_and_an_idle_topic_moves_on():
    marks = Marks()
    marks.observe(seen(1000, {A0: 100, B0: 7}))
    marks.observe(seen(2000, {A0: 100, B0: 7}))
    step = marks.propose({A0: 40, B0: 7}, IDS)  # a still behind
    assert (step.topics, step.job) == ({"b": 2000}, None)
    marks.settled(step)
    caught_up = marks.propose({A0: 100, B0: 7}, IDS)
    assert (caught_up.job, caught_up.topics) == (2000, {"a": 2000, "b": 2000})
    marks.settled(caught_up)
    marks.observe(seen(3000, {A0: 100, B0: 7}))  # idle
    assert marks.propose({A0: 100, B0: 7}, IDS).job == 3000 and marks.stored_job == 2000


def test_a_driver_starts_from_the_stored_topic_marks_and_the_seen_ends():
    marks = Marks.of({A0: 10, A1: 10, B0: 4}, {"a": 5000}, 4000, seen={A0: 12})
    assert marks.stored_job == 4000
    assert marks.propose({A0: 10, A1: 10, B0: 4}, IDS) == Through({A0: 5000, A1: 5000}, {"a": 5000}, None)
    marks.observe(seen(9000, {A0: 11, A1: 10, B0: 4}))  # a-0 below its seen end: truncated
    assert marks.propose({A0: 11, A1: 10, B0: 4}, IDS).partitions == {A0: 5000, A1: 9000, B0: 9000}
    by_id = Marks.of({A0: 10}, {}, None, seen={A0: 12}, ids={"a": "ID-a"})
    by_id.observe(seen(9000, {A0: 11}, {"a": "ID-new"}))  # the seen end was another topic's under the name
    assert by_id.newest_ends({"a": "ID-new"}) == {A0: 11}
    by_id.observe(seen(9500, {A0: 11}))
    assert by_id.newest_ends(IDS) == {}  # its own topic below its seen end: truncated


class SimulatedPartition:
    """A partition's records as (commit time or None while its transaction is open, aborted)."""

    def __init__(self):
        self.records: list[list] = []  # [appended_at, committed_at | None, aborted]

    def stable(self) -> int:
        """The last stable offset: the first record of a transaction still open."""
        return next((i for i, r in enumerate(self.records) if r[1] is None), len(self.records))


def simulate(seed: int) -> int:
    """Random appends (plain and transactional), commits, aborts, observations, rate-limited and
    idle reading, and commits of the marks; after every commit, the contract is checked."""
    rng = random.Random(seed)
    parts = {A0: SimulatedPartition(), A1: SimulatedPartition(), B0: SimulatedPartition()}
    stored = {tp: 0 for tp in parts}
    marks, checked = Marks(), 0
    for now in range(0, 3000, 3):
        for part in parts.values():
            roll = rng.random()
            if roll < 0.3:
                part.records.append([now, now, False])
            elif roll < 0.4:
                part.records.append([now, None, False])  # a transaction's record, open
            open_ones = [r for r in part.records if r[1] is None]
            if open_ones and rng.random() < 0.2:
                for r in open_ones:
                    r[1], r[2] = now, rng.random() < 0.3  # the transaction ends: committed or aborted
        if rng.random() < 0.5:
            marks.observe(Observation(now + 1, {tp: len(p.records) for tp, p in parts.items()}, IDS))
        for tp, part in parts.items():  # the job reads up to the last stable offset, sometimes limited
            if rng.random() < 0.6:
                stored[tp] = min(part.stable(), stored[tp] + rng.choice([1, 3, 50]))
        proposed = marks.propose(dict(stored), IDS)
        marks.settled(proposed)
        if proposed.job is not None:
            for tp, part in parts.items():
                late = [i for i, r in enumerate(part.records) if r[1] is not None and r[1] < proposed.job
                        and not r[2] and i >= stored[tp]]
                assert late == [], f"seed {seed}: {tp} records {late} committed before {proposed.job} are not counted"
            checked += 1
    return checked


def test_the_marks_never_run_ahead_of_what_is_counted():
    assert sum(simulate(seed) for seed in range(16)) > 500


def test_counts_land_in_a_complete_minute_when_the_minute_ended_at_or_before_the_mark_less_lateness():
    # minute 100 is [6 000 000, 6 060 000) ms: complete once complete_before reaches its end
    minutes = {99: 4, 100: 3, 101: 5, 102: 0}
    assert into_complete(minutes, None) == (0, None)  # no mark yet: nothing reads as complete
    assert into_complete(minutes, 6_059_999) == (4, 99)
    assert into_complete(minutes, 6_060_000) == (7, 99)  # the minute's end itself
    assert into_complete(minutes, 6_180_000) == (12, 99)  # a minute of 0 is no minute that changed
    assert into_complete({}, 6_180_000) == (0, None)


def test_a_heartbeat_is_due_when_one_topic_moves_while_another_holds_the_job_back():
    marks = Marks.of({TopicPartition("a", 0): 5, TopicPartition("b", 0): 7}, {"a": 10_000, "b": 10_000}, 10_000, {})
    held = Through({}, {"a": 10_500, "b": 10_000}, 10_000)
    assert not marks.moves(held, 1000)  # half a second: not yet
    moved = Through({}, {"a": 12_000, "b": 10_000}, 10_000)
    assert marks.moves(moved, 1000)  # the job's mark stays, topic a's moves on
    marks.settled(moved)
    assert marks.stored_topics == {"a": 12_000, "b": 10_000} and not marks.moves(moved, 1000)
    assert marks.moves(Through({}, {"a": 12_000, "b": 11_000}, 11_000), 1000)  # the job's mark moves
