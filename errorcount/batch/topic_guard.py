"""Before a batch commits: every topic it read is still the one its offsets belong to."""

import logging
from collections.abc import Callable, Mapping

from errorcount.kafka.client import KafkaUnavailable
from errorcount.retry import retry

log = logging.getLogger(__name__)


class TopicChanged(Exception):
    """A topic is no longer the one the query read (deleted, recreated under another ID, or back
    with an ID the job gave up): the batch may hold records read from the wrong offsets. Nothing is
    committed; the query fails and the restart plans it, as at any start (errorcount/start_plan.py)."""


class TopicGuard:
    """Holds each topic's ID as the query first read it (`ids`, stored with its offsets) and checks
    them against Kafka's answer (`topic_now`: topic -> ID or None) before each batch commits.
    `given_up`: the IDs of topics the job gave up, which a restart resumes from their rows."""

    def __init__(self, ids: Mapping[str, str], given_up: Mapping[str, set[str]],
                 topic_now: Callable[[list[str]], dict[str, str | None]] | None, retry_seconds: float):
        self.ids = dict(ids)
        self.given_up, self.topic_now, self.retry_seconds = given_up, topic_now, retry_seconds

    def check(self, batch_id: int, topics: set[str]) -> None:
        """After the batch was read, before it commits: TopicChanged for a topic deleted, recreated
        under the running query, or back under an ID the job gave up. A topic new to the query
        (created while it runs, under a pattern) gets its ID now, to be stored with its offsets."""
        ask = self.topic_now
        if ask is None:
            return
        names = sorted(self.ids.keys() | topics)
        now = retry("reading the topics' IDs", lambda: ask(names), self.retry_seconds,
                    lambda error: isinstance(error, KafkaUnavailable))
        for topic in names:
            current, known = now.get(topic), self.ids.get(topic)
            if current is None:
                raise TopicChanged(f"batch {batch_id}: topic {topic!r} no longer exists (ID {known} when first read): "
                                   "nothing of this batch is committed")
            if known is None and current in self.given_up.get(topic, set()):
                raise TopicChanged(f"batch {batch_id}: topic {topic!r} is back with ID {current}, which the job gave "
                                   "up: nothing of this batch is committed; the restart resumes it from its stored offsets")
            if known is None:
                log.info("topic %r (ID %s) appeared while the job runs: read from its first record", topic, current)
                self.ids[topic] = str(current)
            elif current != known:
                raise TopicChanged(f"batch {batch_id}: topic {topic!r} now has ID {current}, not {known} as when it "
                                   "was first read (deleted or recreated): nothing of this batch is committed")
