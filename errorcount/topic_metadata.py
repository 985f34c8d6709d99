"""Topic metadata from the driver JVM's Kafka client: the same client library, options and
security settings that Spark's Kafka source uses, with no extra Python Kafka dependency.

Offsets are read as the job reads records, read_committed: a partition's end is its last stable
offset (nothing of a transaction still open lies before it). The topic's ID (Kafka's, new for
every topic created under a name) tells a recreated topic from the one the offsets were stored for."""

import contextlib
from dataclasses import dataclass

from pyspark.sql import SparkSession

from errorcount import session
from errorcount.config import Config
from errorcount.errors import ConfigError
from errorcount.retry import first_line


class KafkaUnavailable(Exception):
    """Topic metadata could not be read (broker down or unreachable): worth retrying."""


class TopicMissing(KafkaUnavailable):
    """The topic does not exist: a config error at the first start; while the job runs (a topic
    deleted under it) worth waiting for, up to RETRY_SECONDS."""


@dataclass(frozen=True)
class TopicState:
    """Current partitions with their earliest and end (last stable) offsets, and the topic's ID."""

    partitions: list[int]
    earliest: dict[int, int]
    latest: dict[int, int]
    topic_id: str


def client_options(cfg: Config) -> dict[str, str]:
    """Kafka client properties: bootstrap servers plus every kafka.* pass-through option."""
    options = {name[len("kafka."):]: value for name, value in cfg.kafka_options.items()}
    options["bootstrap.servers"] = cfg.kafka_bootstrap_servers
    options["isolation.level"] = "read_committed"
    return options


def unavailable(cfg: Config, error: BaseException) -> "KafkaUnavailable":
    return KafkaUnavailable(f"cannot read metadata of topic {cfg.kafka_topic!r} from {cfg.kafka_bootstrap_servers} "
                            f"within {cfg.kafka_timeout} s ({first_line(error)}); check that Kafka is up and "
                            "KAFKA_BOOTSTRAP_SERVERS and the kafka.* security options are right")


class TopicIdentity:
    """Asks the broker for the topic's ID through one JVM admin client, kept for the driver's life:
    once at each start and once per batch, before its commit (a topic recreated under a running
    query must not be resumed mid-topic)."""

    def __init__(self, spark: SparkSession, cfg: Config):
        self.jvm, self.cfg = session.jvm(spark), cfg
        props = self.jvm.java.util.Properties()
        for name, value in client_options(cfg).items():
            if name != "isolation.level":  # a consumer setting: the admin client would warn about it
                props.setProperty(name, value)
        try:
            self.admin = self.jvm.org.apache.kafka.clients.admin.Admin.create(props)
        except Exception as error:
            raise ConfigError(f"cannot create a Kafka admin client from the kafka.* options: {first_line(error)}") from None

    def current(self) -> str | None:
        """The topic's ID now; None if the topic does not exist. KafkaUnavailable if Kafka does not answer."""
        names = self.jvm.java.util.Collections.singletonList(self.cfg.kafka_topic)
        try:
            described = self.admin.describeTopics(names).allTopicNames().get(
                self.cfg.kafka_timeout, self.jvm.java.util.concurrent.TimeUnit.SECONDS)
            return str(described.get(self.cfg.kafka_topic).topicId().toString())
        except Exception as error:
            if "UnknownTopicOrPartition" in str(error):
                return None
            raise unavailable(self.cfg, error) from None

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the driver is stopping: nothing to do about a failed close
            self.admin.close(self.jvm.java.time.Duration.ofSeconds(5))


def describe_topic(spark: SparkSession, cfg: Config, identity: TopicIdentity) -> TopicState:
    jvm = session.jvm(spark)
    props = jvm.java.util.Properties()
    for name, value in client_options(cfg).items():
        props.setProperty(name, value)
    deserializer = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
    props.setProperty("key.deserializer", deserializer)
    props.setProperty("value.deserializer", deserializer)
    timeout = jvm.java.time.Duration.ofSeconds(cfg.kafka_timeout)
    try:
        consumer = jvm.org.apache.kafka.clients.consumer.KafkaConsumer(props)
    except Exception as error:
        raise ConfigError(f"cannot create a Kafka client from the kafka.* options: {error}") from None
    try:
        infos = consumer.partitionsFor(cfg.kafka_topic, timeout)
        partitions = sorted(int(info.partition()) for info in infos)
        if not partitions:
            raise TopicMissing(f"topic {cfg.kafka_topic!r} does not exist on {cfg.kafka_bootstrap_servers}: "
                               "create it (make topic) or fix KAFKA_TOPIC, then restart")
        topic_partitions = jvm.java.util.ArrayList()
        for partition in partitions:
            topic_partitions.add(jvm.org.apache.kafka.common.TopicPartition(cfg.kafka_topic, partition))
        earliest = consumer.beginningOffsets(topic_partitions, timeout)
        latest = consumer.endOffsets(topic_partitions, timeout)
        topic_id = identity.current()
        if topic_id is None:
            raise KafkaUnavailable(f"topic {cfg.kafka_topic!r} vanished while its metadata was read; trying again")
        return TopicState(partitions=partitions,
                          earliest={int(tp.partition()): int(earliest.get(tp)) for tp in topic_partitions},
                          latest={int(tp.partition()): int(latest.get(tp)) for tp in topic_partitions},
                          topic_id=topic_id)
    except (ConfigError, KafkaUnavailable):
        raise
    except Exception as error:
        raise unavailable(cfg, error) from None
    finally:
        consumer.close()
