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
        return consumer_view(admin, consumer, client.timeout_s, {topic: str(ids[topic]) for topic in topics})
    except (ConfigError, KafkaUnavailable):
        raise
    except Exception as error:
        raise client.unavailable(error) from None
    finally:
        consumer.close()


def consumer_view(admin: KafkaAdmin, consumer, timeout_s: int, ids: dict[str, str]) -> dict[str, TopicState]:
    """Each topic's partitions and their earliest and latest offsets as `consumer` reads them, in one
    call into the JVM (java/errorcount/KafkaOffsets.java: a py4j call per partition took 5.7 s at 2 048)."""
    text = admin.offsets().consumerOffsets(consumer, "\n".join(ids), timeout_s * 1000)
    found: dict[str, TopicState] = {topic: TopicState([], {}, {}, topic_id) for topic, topic_id in ids.items()}
    for line in str(text).splitlines():
        fields = line.split("\t")
        if len(fields) == 1:
            raise KafkaUnavailable(f"topic {fields[0]!r} vanished while its metadata was read; trying again")
        state, partition = found[fields[0]], int(fields[1])
        state.partitions.append(partition)
        state.earliest[partition], state.latest[partition] = int(fields[2]), int(fields[3])
    return found
