"""Topic metadata from the driver JVM's Kafka client: the same client library, options and
security settings that Spark's Kafka source uses, with no extra Python Kafka dependency."""

from dataclasses import dataclass

from pyspark.sql import SparkSession

from errorcount.config import Config
from errorcount.errors import ConfigError
from errorcount.retry import first_line


class KafkaUnavailable(Exception):
    """Topic metadata could not be read (broker down or unreachable): worth retrying."""


@dataclass(frozen=True)
class TopicState:
    """Current partitions with their earliest and end (next to be written) offsets."""

    partitions: list[int]
    earliest: dict[int, int]
    latest: dict[int, int]


def client_options(cfg: Config) -> dict[str, str]:
    """Kafka client properties: bootstrap servers plus every kafka.* pass-through option."""
    options = {name[len("kafka."):]: value for name, value in cfg.kafka_options.items()}
    options["bootstrap.servers"] = cfg.kafka_bootstrap_servers
    return options


def describe_topic(spark: SparkSession, cfg: Config) -> TopicState:
    jvm = spark.sparkContext._jvm
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
            raise ConfigError(f"topic {cfg.kafka_topic!r} does not exist on {cfg.kafka_bootstrap_servers}: "
                              "create it (make topic) or fix KAFKA_TOPIC, then restart")
        topic_partitions = jvm.java.util.ArrayList()
        for partition in partitions:
            topic_partitions.add(jvm.org.apache.kafka.common.TopicPartition(cfg.kafka_topic, partition))
        earliest = consumer.beginningOffsets(topic_partitions, timeout)
        latest = consumer.endOffsets(topic_partitions, timeout)
        return TopicState(partitions=partitions,
                          earliest={int(tp.partition()): int(earliest.get(tp)) for tp in topic_partitions},
                          latest={int(tp.partition()): int(latest.get(tp)) for tp in topic_partitions})
    except ConfigError:
        raise
    except Exception as error:
        raise KafkaUnavailable(f"cannot read metadata of topic {cfg.kafka_topic!r} from {cfg.kafka_bootstrap_servers} "
                               f"within {cfg.kafka_timeout} s ({first_line(error)}); check that Kafka is up and "
                               "KAFKA_BOOTSTRAP_SERVERS and the kafka.* security options are right") from None
    finally:
        consumer.close()
