"""The streaming source: Spark's built-in Kafka source with the job's options."""

from pyspark.sql import DataFrame, SparkSession

from errorcount.config.load import Config, topics
from errorcount.kafka.subscription import Subscription
from errorcount.kafka.topic_metadata import client_properties


def source_options(cfg: Config, starting_offsets: str, subscription: Subscription | None = None) -> dict[str, str]:
    """Options of Spark's Kafka source: the kafka.* pass-through (security settings) included.
    `subscription`: the topics (default: KAFKA_TOPIC's list)."""
    # 500 records per poll (Kafka's default) makes Spark's reader poll thousands of times per
    # batch; 10000 read a backlog ~30 % faster (make bench). At the end of the log, a reader's
    # fetch waits up to fetch.max.wait.ms (500) for new records, and the next read on that pooled
    # consumer waits behind it: 20 ms cut a small batch by ~80 ms, 2 ms by another ~20-35 ms (a
    # one-task batch reads the partitions one after another). Spark's readers only ever ask for
    # offsets that exist, so a short wait costs no extra requests. kafka.* settings win.
    options = {"kafka.max.poll.records": "10000", "kafka.fetch.max.wait.ms": "2",
               **{f"kafka.{name}": value for name, value in client_properties(cfg).items()},
               # Records of aborted or still open transactions are never read (docs/design.md).
               "kafka.isolation.level": "read_committed",
               **(subscription or Subscription(topics(cfg))).source_options(), "startingOffsets": starting_offsets,
               # Lost records stop the query; the restart then decides (ON_DATA_LOSS).
               "failOnDataLoss": "true"}
    if cfg.max_offsets_per_trigger:
        options["maxOffsetsPerTrigger"] = str(cfg.max_offsets_per_trigger)
    return options


def kafka_stream_df(spark: SparkSession, cfg: Config, starting_offsets: str,
                    subscription: Subscription | None = None) -> DataFrame:
    """The streaming source. Out: topic, partition, offset, value (binary), timestamp (the record's)."""
    return (spark.readStream.format("kafka").options(**source_options(cfg, starting_offsets, subscription)).load()
            .select("topic", "partition", "offset", "value", "timestamp"))
