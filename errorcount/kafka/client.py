"""How every Kafka client of the driver is made, built once from the settings: Spark's source (with
the `kafka.` prefix), the metadata consumer, and the one admin client (errorcount/kafka/admin.py)
that asks for topic IDs and writes the lag mirror's group. Plain values: no client is opened here."""

from dataclasses import dataclass

from errorcount.config.load import Config
from errorcount.retry import first_line


class KafkaUnavailable(Exception):
    """Topic metadata could not be read (broker down or unreachable): worth retrying."""


class TopicMissing(KafkaUnavailable):
    """A topic the job reads does not exist: a config error at the first start; while the job runs
    (a topic deleted under it) worth waiting for, up to RETRY_SECONDS."""


@dataclass(frozen=True)
class KafkaClient:
    """The bootstrap servers, every kafka.* pass-through option (security) but isolation.level, which
    is the consumers' own and always read_committed (config.validate refuses another; an admin
    client warns about it), and KAFKA_TIMEOUT. `topics` names what the job reads, for messages."""

    bootstrap_servers: str
    options: tuple[tuple[str, str], ...]
    timeout_s: int
    topics: str = ""

    @classmethod
    def of(cls, cfg: Config) -> "KafkaClient":
        options = tuple(sorted((name[len("kafka."):], value) for name, value in cfg.kafka_options.items()
                               if name != "kafka.isolation.level"))
        return cls(cfg.kafka_bootstrap_servers, options, cfg.kafka_timeout, cfg.kafka_topic or cfg.kafka_topic_pattern)

    def properties(self) -> dict[str, str]:
        """What every client is configured from: the options and the bootstrap servers."""
        return {**dict(self.options), "bootstrap.servers": self.bootstrap_servers}

    def consumer_properties(self) -> dict[str, str]:
        """The metadata consumer's: offsets read as the job reads records, read_committed."""
        return {**self.properties(), "isolation.level": "read_committed"}

    def unavailable(self, error: BaseException) -> KafkaUnavailable:
        return KafkaUnavailable(f"cannot read metadata of topic(s) {self.topics!r} from {self.bootstrap_servers} "
                                f"within {self.timeout_s} s ({first_line(error)}); check that Kafka is up and "
                                "KAFKA_BOOTSTRAP_SERVERS and the kafka.* security options are right")


def java_properties(jvm, properties: dict[str, str]):
    """`properties` as the java.util.Properties a JVM client takes."""
    props = jvm.java.util.Properties()
    for name, value in properties.items():
        props.setProperty(name, value)
    return props
