"""The driver's one Kafka admin client (the JVM's, already on the driver's classpath), kept for the
driver's life: topic IDs at each start and before each batch's commit (a topic recreated under a
running query must not be resumed mid-topic), the topic list a pattern is matched against, the
partitions' high watermarks counted_through is derived from (errorcount/counted_through.py), and the
lag mirror's group offsets (errorcount/kafka/lag_mirror.py, from its own thread: Kafka's admin
client is thread-safe)."""

import contextlib
from collections.abc import Iterable, Mapping
from typing import NamedTuple

from errorcount.errors import ConfigError
from errorcount.kafka.client import KafkaClient, java_properties
from errorcount.offsets import Position, TopicPartition
from errorcount.retry import first_line


class Described(NamedTuple):
    """A topic as Kafka describes it: its ID and its partitions."""

    topic_id: str
    partitions: list[int]


class KafkaAdmin:
    """One JVM Admin client made from `client`'s properties; ConfigError if they do not make one."""

    def __init__(self, jvm, client: KafkaClient):
        self.jvm, self.client = jvm, client
        try:
            self.admin = jvm.org.apache.kafka.clients.admin.Admin.create(java_properties(jvm, client.properties()))
        except Exception as error:
            raise ConfigError(f"cannot create a Kafka admin client from the kafka.* options: {first_line(error)}") from None

    def described(self, topics: Iterable[str]) -> dict[str, "Described | None"]:
        """Each topic's ID and partitions now; None for a topic that does not exist. KafkaUnavailable if
        Kafka does not answer. One call into the JVM (java/errorcount/KafkaOffsets.java) whatever the
        partitions: py4j costs ~3 ms a call."""
        names = sorted(set(topics))
        if not names:
            return {}
        try:
            text = self.offsets().describe(self.admin, "\n".join(names), self.client.timeout_s * 1000)
        except Exception as error:
            raise self.client.unavailable(error) from None
        found: dict[str, Described | None] = {}
        for line in str(text).splitlines():
            topic, topic_id, partitions = line.split("\t")
            found[topic] = None if topic_id == "-" else Described(topic_id, [int(p) for p in partitions.split(",") if p])
        return found

    def topic_ids(self, topics: Iterable[str]) -> dict[str, str | None]:
        """Each topic's ID now; None for a topic that does not exist. KafkaUnavailable if Kafka does not answer."""
        return {topic: None if found is None else found.topic_id for topic, found in self.described(topics).items()}

    def high_watermarks(self, topics: Iterable[str]) -> tuple[dict[str, str], Position]:
        """Each existing topic's ID and every partition's high watermark (its end, read_uncommitted:
        past the records of transactions still open), in two requests. KafkaUnavailable if Kafka does
        not answer; a topic that does not exist (any longer) is left out."""
        described = {topic: found for topic, found in self.described(topics).items() if found is not None}
        ends = self.list_offsets({TopicPartition(topic, partition): "latest"
                                  for topic, found in described.items() for partition in found.partitions}, committed=False)
        return ({topic: found.topic_id for topic, found in described.items()},
                {tp: offset for tp, (offset, _time) in ends.items()})

    def list_offsets(self, specs: Mapping[TopicPartition, str | int],
                     committed: bool = True) -> dict[TopicPartition, tuple[int, int]]:
        """Kafka's answer to each partition's spec ("earliest", "latest", or a timestamp in ms: the
        first record at or after it): the offset and that record's timestamp (-1 each when Kafka has
        none, e.g. no record at or after a time), as a read_committed consumer sees them unless
        `committed` is False. One request; KafkaUnavailable if Kafka does not answer."""
        if not specs:
            return {}
        request = "".join(f"{tp.topic}\t{tp.partition}\t{spec}\n" for tp, spec in specs.items())
        try:
            text = self.offsets().listOffsets(self.admin, request, committed, self.client.timeout_s * 1000)
        except Exception as error:
            raise self.client.unavailable(error) from None
        answered = {}
        for line in str(text).splitlines():
            topic, partition, offset, timestamp = line.split("\t")
            answered[TopicPartition(topic, int(partition))] = (int(offset), int(timestamp))
        return answered

    def offsets(self):
        """The project's bulk look-ups in the JVM (java/errorcount/KafkaOffsets.java)."""
        return self.jvm.errorcount.KafkaOffsets

    def list_topics(self) -> set[str]:
        """The names of every topic but Kafka's internal ones (as Spark's subscribePattern lists them)."""
        try:
            return {str(name) for name in self.admin.listTopics().names().get(self.client.timeout_s, self.seconds())}
        except Exception as error:
            raise self.client.unavailable(error) from None

    def write_group_offsets(self, group: str, offsets: Position, timeout_s: int) -> None:
        """Sets consumer group `group`'s committed offsets to `offsets`; raises what Kafka answered."""
        text = "".join(f"{topic}\t{partition}\t{offset}\n" for (topic, partition), offset in sorted(offsets.items()))
        self.offsets().alterGroupOffsets(self.admin, group, text, timeout_s * 1000)

    def seconds(self):
        return self.jvm.java.util.concurrent.TimeUnit.SECONDS

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the driver is stopping: nothing to do about a failed close
            self.admin.close(self.jvm.java.time.Duration.ofSeconds(5))
