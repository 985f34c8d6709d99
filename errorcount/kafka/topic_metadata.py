"""Topic metadata from the driver JVM's Kafka client: the same client library, options and
security settings that Spark's Kafka source uses, with no extra Python Kafka dependency.

Offsets are read as the job reads records, read_committed: a partition's end is its last stable
offset (nothing of a transaction still open lies before it). The topic's ID (Kafka's, new for
every topic created under a name) tells a recreated topic from the one the offsets were stored for."""

import contextlib
from collections.abc import Iterable

from pyspark.sql import SparkSession

from errorcount import session
from errorcount.config.load import Config
from errorcount.errors import ConfigError
from errorcount.retry import first_line
from errorcount.start_plan import TopicState


class KafkaUnavailable(Exception):
    """Topic metadata could not be read (broker down or unreachable): worth retrying."""


class TopicMissing(KafkaUnavailable):
    """A topic the job reads does not exist: a config error at the first start; while the job runs
    (a topic deleted under it) worth waiting for, up to RETRY_SECONDS."""


def client_properties(cfg: Config) -> dict[str, str]:
    """What every Kafka client of the job is configured from (Spark's source with the `kafka.`
    prefix, the metadata consumer and admin client, the lag mirror): the bootstrap servers and every
    kafka.* pass-through option (security), built here once. isolation.level is the consumers'
    own, always read_committed (config.validate refuses another): an admin client warns about it."""
    return {**{name[len("kafka."):]: value for name, value in cfg.kafka_options.items() if name != "kafka.isolation.level"},
            "bootstrap.servers": cfg.kafka_bootstrap_servers}


def client_options(cfg: Config) -> dict[str, str]:
    """The metadata consumer's properties: offsets read as the job reads records, read_committed."""
    return {**client_properties(cfg), "isolation.level": "read_committed"}


def unavailable(cfg: Config, error: BaseException) -> "KafkaUnavailable":
    return KafkaUnavailable(f"cannot read metadata of topic(s) {cfg.kafka_topic!r} from {cfg.kafka_bootstrap_servers} "
                            f"within {cfg.kafka_timeout} s ({first_line(error)}); check that Kafka is up and "
                            "KAFKA_BOOTSTRAP_SERVERS and the kafka.* security options are right")


class TopicIdentity:
    """Asks the broker for the topics' IDs through one JVM admin client, kept for the driver's life:
    once at each start and once per batch, before its commit (a topic recreated under a running
    query must not be resumed mid-topic)."""

    def __init__(self, spark: SparkSession, cfg: Config):
        self.jvm, self.cfg = session.jvm(spark), cfg
        props = self.jvm.java.util.Properties()
        for name, value in client_properties(cfg).items():
            props.setProperty(name, value)
        try:
            self.admin = self.jvm.org.apache.kafka.clients.admin.Admin.create(props)
        except Exception as error:
            raise ConfigError(f"cannot create a Kafka admin client from the kafka.* options: {first_line(error)}") from None

    def current(self, topics: Iterable[str]) -> dict[str, str | None]:
        """Each topic's ID now; None for a topic that does not exist. KafkaUnavailable if Kafka does not answer."""
        found: dict[str, str | None] = {}
        names = self.jvm.java.util.ArrayList()
        for topic in topics:
            names.add(topic)
        if names.isEmpty():
            return found
        for topic, future in self.admin.describeTopics(names).topicNameValues().items():
            try:
                found[str(topic)] = str(future.get(self.cfg.kafka_timeout, self.jvm.java.util.concurrent.TimeUnit.SECONDS)
                                        .topicId().toString())
            except Exception as error:
                if "UnknownTopicOrPartition" not in str(error):
                    raise unavailable(self.cfg, error) from None
                found[str(topic)] = None
        return found

    def list_topics(self) -> set[str]:
        """The names of every topic but Kafka's internal ones (as Spark's subscribePattern lists them)."""
        try:
            names = self.admin.listTopics().names().get(self.cfg.kafka_timeout, self.jvm.java.util.concurrent.TimeUnit.SECONDS)
            return {str(name) for name in names}
        except Exception as error:
            raise unavailable(self.cfg, error) from None

    def close(self) -> None:
        with contextlib.suppress(Exception):  # the driver is stopping: nothing to do about a failed close
            self.admin.close(self.jvm.java.time.Duration.ofSeconds(5))


def describe_topics(spark: SparkSession, cfg: Config, identity: TopicIdentity, topics: list[str]) -> dict[str, TopicState]:
    """`topics` as Kafka holds them now; TopicMissing naming those that do not exist."""
    jvm = session.jvm(spark)
    props = jvm.java.util.Properties()
    for name, value in client_options(cfg).items():
        props.setProperty(name, value)
    deserializer = "org.apache.kafka.common.serialization.ByteArrayDeserializer"
    props.setProperty("key.deserializer", deserializer)
    props.setProperty("value.deserializer", deserializer)
    try:
        consumer = jvm.org.apache.kafka.clients.consumer.KafkaConsumer(props)
    except Exception as error:
        raise ConfigError(f"cannot create a Kafka client from the kafka.* options: {error}") from None
    try:
        ids = identity.current(topics)
        missing = [topic for topic, topic_id in ids.items() if topic_id is None]
        if missing:
            named = ", ".join(repr(t) for t in sorted(missing))
            raise TopicMissing((f"topic {named} does not exist" if len(missing) == 1 else f"topics {named} do not exist")
                               + f" on {cfg.kafka_bootstrap_servers}: create it (make topic) or fix KAFKA_TOPIC, then restart")
        return {topic: describe_one(jvm, consumer, cfg, topic, str(ids[topic])) for topic in topics}
    except (ConfigError, KafkaUnavailable):
        raise
    except Exception as error:
        raise unavailable(cfg, error) from None
    finally:
        consumer.close()


def describe_one(jvm, consumer, cfg: Config, topic: str, topic_id: str) -> TopicState:
    timeout = jvm.java.time.Duration.ofSeconds(cfg.kafka_timeout)
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
