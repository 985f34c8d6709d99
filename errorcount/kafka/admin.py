"""The driver's one Kafka admin client (the JVM's, already on the driver's classpath), kept for the
driver's life: topic IDs at each start and before each batch's commit (a topic recreated under a
running query must not be resumed mid-topic), the topic list a pattern is matched against, the
partitions' high watermarks counted_through is derived from (errorcount/counted_through.py), and the
lag mirror's group offsets (errorcount/kafka/lag_mirror.py, from its own thread: Kafka's admin
client is thread-safe)."""

import contextlib
from collections.abc import Iterable, Mapping
from typing import Any

from errorcount.errors import ConfigError
from errorcount.kafka.client import KafkaClient, java_properties
from errorcount.offsets import Position, TopicPartition
from errorcount.retry import first_line


class KafkaAdmin:
    """One JVM Admin client made from `client`'s properties; ConfigError if they do not make one."""

    def __init__(self, jvm, client: KafkaClient):
        self.jvm, self.client = jvm, client
        try:
            self.admin = jvm.org.apache.kafka.clients.admin.Admin.create(java_properties(jvm, client.properties()))
        except Exception as error:
            raise ConfigError(f"cannot create a Kafka admin client from the kafka.* options: {first_line(error)}") from None

    def described(self, topics: Iterable[str]) -> dict:
        """Each topic's TopicDescription now (its ID, its partitions); None for a topic that does not
        exist. KafkaUnavailable if Kafka does not answer."""
        found: dict = {}
        names = self.jvm.java.util.ArrayList()
        for topic in topics:
            names.add(topic)
        if names.isEmpty():
            return found
        for topic, future in self.admin.describeTopics(names).topicNameValues().items():
            try:
                found[str(topic)] = future.get(self.client.timeout_s, self.seconds())
            except Exception as error:
                if "UnknownTopicOrPartition" not in str(error):
                    raise self.client.unavailable(error) from None
                found[str(topic)] = None
        return found

    def topic_ids(self, topics: Iterable[str]) -> dict[str, str | None]:
        """Each topic's ID now; None for a topic that does not exist. KafkaUnavailable if Kafka does not answer."""
        return {topic: None if found is None else str(found.topicId().toString())
                for topic, found in self.described(topics).items()}

    def high_watermarks(self, topics: Iterable[str]) -> tuple[dict[str, str], Position]:
        """Each existing topic's ID and every partition's high watermark (its end, read_uncommitted:
        past the records of transactions still open), in two requests. KafkaUnavailable if Kafka does
        not answer; a topic that does not exist (any longer) is left out."""
        described = {topic: found for topic, found in self.described(topics).items() if found is not None}
        latest = self.specs().latest()
        ends = self.list_offsets({TopicPartition(topic, int(info.partition())): latest
                                  for topic, found in described.items() for info in found.partitions()}, committed=False)
        return ({topic: str(found.topicId().toString()) for topic, found in described.items()},
                {tp: offset for tp, (offset, _time) in ends.items()})

    def list_offsets(self, specs: Mapping[TopicPartition, Any], committed: bool = True) -> dict[TopicPartition, tuple[int, int]]:
        """Kafka's answer to each partition's OffsetSpec (latest, earliest, forTimestamp(ms)): the
        offset and that record's timestamp (-1 each when Kafka has none, e.g. no record at or after a
        time), as a read_committed consumer sees them unless `committed` is False. One request;
        KafkaUnavailable if Kafka does not answer."""
        if not specs:
            return {}
        jvm = self.jvm
        java_specs = jvm.java.util.HashMap()
        for tp, spec in specs.items():
            java_specs.put(jvm.org.apache.kafka.common.TopicPartition(tp.topic, tp.partition), spec)
        isolation = jvm.org.apache.kafka.common.IsolationLevel
        options = jvm.org.apache.kafka.clients.admin.ListOffsetsOptions(
            isolation.READ_COMMITTED if committed else isolation.READ_UNCOMMITTED)
        try:
            answered = self.admin.listOffsets(java_specs, options).all().get(self.client.timeout_s, self.seconds())
        except Exception as error:
            raise self.client.unavailable(error) from None
        return {TopicPartition(str(tp.topic()), int(tp.partition())): (int(info.offset()), int(info.timestamp()))
                for tp, info in answered.items()}

    def specs(self):
        """Kafka's OffsetSpec class (earliest(), latest(), forTimestamp(ms)) for list_offsets."""
        return self.jvm.org.apache.kafka.clients.admin.OffsetSpec

    def list_topics(self) -> set[str]:
        """The names of every topic but Kafka's internal ones (as Spark's subscribePattern lists them)."""
        try:
            return {str(name) for name in self.admin.listTopics().names().get(self.client.timeout_s, self.seconds())}
        except Exception as error:
            raise self.client.unavailable(error) from None

    def write_group_offsets(self, group: str, offsets: Position, timeout_s: int) -> None:
        """Sets consumer group `group`'s committed offsets to `offsets`; raises what Kafka answered."""
        jvm = self.jvm
        java_offsets = jvm.java.util.HashMap()
        for (topic, partition), offset in sorted(offsets.items()):
            java_offsets.put(jvm.org.apache.kafka.common.TopicPartition(topic, partition),
                             jvm.org.apache.kafka.clients.consumer.OffsetAndMetadata(offset))
        options = jvm.org.apache.kafka.clients.admin.AlterConsumerGroupOffsetsOptions().timeoutMs(timeout_s * 1000)
        self.admin.alterConsumerGroupOffsets(group, java_offsets, options).all().get(timeout_s, self.seconds())

    def seconds(self):
        return self.jvm.java.util.concurrent.TimeUnit.SECONDS

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the driver is stopping: nothing to do about a failed close
            self.admin.close(self.jvm.java.time.Duration.ofSeconds(5))
