"""Topic metadata from the driver JVM's Kafka client: the same client library, options and
security settings that Spark's Kafka source uses, with no extra Python Kafka dependency.

Offsets are read as the job reads records, read_committed: a partition's end is its last stable
offset (nothing of a transaction still open lies before it). The topic's ID (Kafka's, new for
every topic created under a name) tells a recreated topic from the one the offsets were stored for."""

from errorcount.errors import ConfigError
from errorcount.kafka.admin import KafkaAdmin
from errorcount.kafka.client import KafkaClient, KafkaUnavailable, TopicMissing, java_properties
from errorcount.start_plan import TopicState


def describe_topics(jvm, client: KafkaClient, admin: KafkaAdmin, topics: list[str]) -> dict[str, TopicState]:
    """`topics` as Kafka holds them now; TopicMissing naming those that do not exist."""
    props = java_properties(jvm, client.consumer_properties())
    deserializer = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
    props.setProperty("key.deserializer", deserializer)
    props.setProperty("value.deserializer", deserializer)
    try:
        consumer = jvm.org.apache.kafka.clients.consumer.KafkaConsumer(props)
    except Exception as error:
        raise ConfigError(f"cannot create a Kafka client from the kafka.* options: {error}") from None
    try:
        ids = admin.topic_ids(topics)
        missing = [topic for topic, topic_id in ids.items() if topic_id is None]
        if missing:
            named = ", ".join(repr(t) for t in sorted(missing))
            raise TopicMissing((f"topic {named} does not exist" if len(missing) == 1 else f"topics {named} do not exist")
                               + f" on {client.bootstrap_servers}: create it (make topic) or fix KAFKA_TOPIC, then restart")
        return {topic: describe_one(jvm, consumer, client.timeout_s, topic, str(ids[topic])) for topic in topics}
    except (ConfigError, KafkaUnavailable):
        raise
    except Exception as error:
        raise client.unavailable(error) from None
    finally:
        consumer.close()


def describe_one(jvm, consumer, timeout_s: int, topic: str, topic_id: str) -> TopicState:
    timeout = jvm.java.time.Duration.ofSeconds(timeout_s)
    partitions = sorted(int(info.partition()) for info in consumer.partitionsFor(topic, timeout))
    if not partitions:
        raise KafkaUnavailable(f"topic {topic!r} vanished while its metadata was read; trying again")
    topic_partitions = jvm.java.util.ArrayList()
    for partition in partitions:
        topic_partitions.add(jvm.org.apache.kafka.common.TopicPartition(topic, partition))
    earliest = consumer.beginningOffsets(topic_partitions, timeout)
    latest = consumer.endOffsets(topic_partitions, timeout)
    return TopicState(partitions=partitions,
                      earliest={int(tp.partition()): int(earliest.get(tp)) for tp in topic_partitions},
                      latest={int(tp.partition()): int(latest.get(tp)) for tp in topic_partitions},
                      topic_id=topic_id)
