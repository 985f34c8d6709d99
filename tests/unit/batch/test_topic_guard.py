"""Before a batch commits: its topics are still those its offsets belong to."""

import pytest

from errorcount.batch.topic_guard import TopicChanged, TopicGuard


def test_a_batch_read_from_a_topic_that_changed_under_the_query_is_not_committed():
    answers = iter([{"logs": "ID-1", "more": "ID-M"}, {"logs": "ID-2", "more": "ID-M"}, {"logs": "ID-1", "more": None},
                    {"logs": "ID-1", "more": "ID-M", "new": "ID-N"}, {"logs": "ID-1", "more": "ID-M", "new": "ID-X"},
                    {"logs": "ID-1", "more": "ID-M", "new": "ID-N", "back": "ID-B"},
                    {"logs": "ID-1", "more": "ID-M", "new": "ID-N", "fresh": None}])
    asked: list[list[str]] = []

    def topic_now(names: list[str]) -> dict:
        asked.append(names)
        return next(answers)
    guard = TopicGuard({"logs": "ID-1", "more": "ID-M"}, {"back": {"ID-B"}}, topic_now, retry_seconds=0)
    guard.check(7, {"logs"})  # still the topics the offsets belong to
    with pytest.raises(TopicChanged, match="batch 8: topic 'logs' now has ID ID-2, not ID-1"):
        guard.check(8, {"logs"})
    with pytest.raises(TopicChanged, match="batch 9: topic 'more' no longer exists"):  # deleted
        guard.check(9, {"logs"})
    asked.clear()
    guard.check(10, {"logs", "new"})  # a topic created under the running query (a pattern)
    assert asked == [["logs", "more", "new"]] and guard.ids["new"] == "ID-N"
    with pytest.raises(TopicChanged, match="batch 11: topic 'new' now has ID ID-X, not ID-N"):
        guard.check(11, {"new"})
    # Back under the ID the job gave up: its stored offsets are where it goes on, not offset 0.
    with pytest.raises(TopicChanged, match="batch 12: topic 'back' is back with ID ID-B, which the job gave up"):
        guard.check(12, {"back"})
    # A topic in the batch whose ID Kafka does not return: never committed without one.
    with pytest.raises(TopicChanged, match="batch 13: topic 'fresh' no longer exists"):
        guard.check(13, {"fresh"})
    assert "fresh" not in guard.ids
