"""The observing thread's one look (errorcount/kafka/observer.py): the clock is read before Kafka is
asked, a pattern lists the topics after it, and the interval stays within its bounds."""

from errorcount.counted_through import Marks
from errorcount.kafka.observer import EndObserver, look_interval
from errorcount.kafka.subscription import Subscription
from errorcount.offsets import TopicPartition


class RecordingAdmin:
    """Answers with fixed ends and records, in order, what was asked and when the clock was read."""

    def __init__(self, events):
        self.events = events

    def list_topics(self):
        self.events.append("list")
        return {"logs-1", "other"}

    def high_watermarks(self, names):
        self.events.append(("ends", list(names)))
        return {name: f"ID-{name}" for name in names}, {TopicPartition(name, 0): 5 for name in names}


def test_a_look_reads_the_clock_first_then_lists_and_asks():
    events = []

    def clock():
        events.append("clock")
        return 12.3456

    pattern = Subscription(pattern="logs-.*", matches=lambda t: t.startswith("logs-"))
    look = EndObserver(RecordingAdmin(events), pattern, Marks(), 1.0, clock).look()
    assert events == ["clock", "list", ("ends", ["logs-1"])]
    assert (look.at_ms, look.ends, look.ids) == (12345, {TopicPartition("logs-1", 0): 5}, {"logs-1": "ID-logs-1"})


def test_a_topic_list_is_asked_as_listed():
    events = []
    EndObserver(RecordingAdmin(events), Subscription(["a", "b"]), Marks(), 1.0, lambda: 1.0).look()
    assert events == [("ends", ["a", "b"])]


def test_the_interval_follows_the_trigger_within_one_to_ten_seconds():
    assert [look_interval(t) for t in ("100 milliseconds", "1 second", "4 seconds", "1 minute")] == [1.0, 1.0, 4.0, 10.0]
