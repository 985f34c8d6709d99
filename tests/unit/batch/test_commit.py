"""How a batch's size is known before it runs (the committer's choice of plan); what a COMMIT
whose reply was lost did."""

import pytest

from errorcount.batch.commit import APPLIED, FENCED, NOT_APPLIED, BatchCommitter, TopicChanged, unknown_outcome
from errorcount.config.load import load_config
from errorcount.offsets import of_topic, stored_state
from errorcount.start_plan import Resume
from errorcount.store.retention import Retention
from errorcount.store.transactions import Store


def offset_log(directory, batch_id: int, ends: dict[int, int]) -> None:
    (directory / "offsets").mkdir(exist_ok=True)
    offsets = ",".join(f'"{partition}":{offset}' for partition, offset in ends.items())
    (directory / "offsets" / str(batch_id)).write_text(f'v1\n{{"batchWatermarkMs":0}}\n{{"logs":{{{offsets}}}}}')


def test_planned_records_are_the_end_offsets_less_the_previous_batchs_or_the_stored_ones(tmp_path):
    committer = BatchCommitter(load_config([], {"KAFKA_TOPIC": "logs"}), Store(None, "job", ["logs"]),
                               Resume(of_topic("logs", {0: 100, 1: 40}), 2, "", {"logs": "ID"}), Retention(0),
                               str(tmp_path))
    assert committer.planned_records(0) is None  # nothing in the offset log yet
    offset_log(tmp_path, 0, {0: 130, 1: 45})
    offset_log(tmp_path, 1, {0: 131, 1: 1045})
    offset_log(tmp_path, 3, {0: 140, 1: 1045, 2: 9})  # a partition added after batch 1
    assert committer.planned_records(0) == 30 + 5  # from the stored offsets
    assert committer.planned_records(1) == 1 + 1000  # from batch 0's end offsets
    assert committer.planned_records(2) is None  # no entry
    assert committer.planned_records(3) is None  # from the stored offsets, which lack partition 2
    offset_log(tmp_path, 4, {0: 150, 1: 1045, 2: 10})
    assert committer.planned_records(4) == 10 + 0 + 1


@pytest.mark.parametrize("stored, outcome", [
    ({0: 20, 1: 5}, APPLIED),        # the batch's own offsets
    ({0: 10, 1: 5}, NOT_APPLIED),    # the previous ones: not applied, or not yet (the retry's lock waits for it)
    ({0: 10, 1: 9}, FENCED),         # someone else's
    ({0: 20}, FENCED),               # a row gone
    ({0: 20, 1: 5, 2: 1}, FENCED),   # a row more
])
def test_a_lost_commit_is_resolved_from_the_stored_offsets(stored, outcome):
    assert unknown_outcome({0: 10, 1: 5}, {0: 20, 1: 5}, stored, holder=4, epoch=4) == outcome


@pytest.mark.parametrize("stored", [{0: 20, 1: 5}, {0: 10, 1: 5}])
def test_a_lost_commit_under_a_lease_another_epoch_holds_is_fenced_whatever_the_offsets(stored):
    """A newer instance started from the previous offsets and committed the same records itself:
    the stored offsets are this batch's, but not this instance's doing."""
    assert unknown_outcome({0: 10, 1: 5}, {0: 20, 1: 5}, stored, holder=5, epoch=4) == FENCED
    assert unknown_outcome({0: 10, 1: 5}, {0: 20, 1: 5}, stored, holder=None, epoch=4) == FENCED


def test_a_late_applied_commit_is_read_as_not_applied_then_found_applied_by_the_retry():
    """The reply was lost and the COMMIT not yet visible: the plain read sees the previous offsets
    (commit again); the retry's locking read (Store.check_owner, the same rule) waits for it, finds
    the batch's own offsets and writes nothing: counted once."""
    before, after = {0: 10, 1: 5}, {0: 20, 1: 5}
    assert unknown_outcome(before, after, stored=before, holder=1, epoch=1) == NOT_APPLIED
    assert stored_state(after, before, after) == APPLIED  # Store.check_owner: AlreadyApplied, nothing written
    assert stored_state(before, before, after) == NOT_APPLIED  # truly not applied: the retry writes the batch


def test_a_batch_read_from_a_topic_that_changed_under_the_query_is_not_committed(tmp_path):
    answers = iter([{"logs": "ID-1", "more": "ID-M"}, {"logs": "ID-2", "more": "ID-M"}, {"logs": "ID-1", "more": None},
                    {"logs": "ID-1", "more": "ID-M", "new": "ID-N"}, {"logs": "ID-1", "more": "ID-M", "new": "ID-X"},
                    {"logs": "ID-1", "more": "ID-M", "new": "ID-N", "back": "ID-B"},
                    {"logs": "ID-1", "more": "ID-M", "new": "ID-N", "fresh": None}])
    asked: list[list[str]] = []

    def topic_now(names: list[str]) -> dict:
        asked.append(names)
        return next(answers)
    resume = Resume(of_topic("logs", {0: 100}), 1, "", {"logs": "ID-1", "more": "ID-M"}, given_up={"back": {"ID-B"}})
    committer = BatchCommitter(load_config([], {"KAFKA_TOPIC": "logs,more"}), Store(None, "job", ["logs", "more"]),
                               resume, Retention(0), str(tmp_path), topic_now=topic_now)
    committer.check_topic(7, {"logs"})  # still the topics the offsets belong to
    with pytest.raises(TopicChanged, match="batch 8: topic 'logs' now has ID ID-2, not ID-1"):
        committer.check_topic(8, {"logs"})
    with pytest.raises(TopicChanged, match="batch 9: topic 'more' no longer exists"):  # deleted
        committer.check_topic(9, {"logs"})
    asked.clear()
    committer.check_topic(10, {"logs", "new"})  # a topic created under the running query (a pattern)
    assert asked == [["logs", "more", "new"]] and committer.topic_ids["new"] == "ID-N"
    with pytest.raises(TopicChanged, match="batch 11: topic 'new' now has ID ID-X, not ID-N"):
        committer.check_topic(11, {"new"})
    # Back under the ID the job gave up: its stored offsets are where it goes on, not offset 0.
    with pytest.raises(TopicChanged, match="batch 12: topic 'back' is back with ID ID-B, which the job gave up"):
        committer.check_topic(12, {"back"})
    # A topic in the batch whose ID Kafka does not return: never committed without one.
    with pytest.raises(TopicChanged, match="batch 13: topic 'fresh' no longer exists"):
        committer.check_topic(13, {"fresh"})
    assert "fresh" not in committer.topic_ids
