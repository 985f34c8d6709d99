"""The streaming source: Spark's built-in Kafka source with the job's options."""

from pyspark.sql import DataFrame, SparkSession

from errorcount.kafka.client import KafkaClient
from errorcount.kafka.subscription import Subscription


def reader_options(client: KafkaClient) -> dict[str, str]:
    """What every read of the job's topics (the stream, a recount's batch) passes Spark's Kafka
    source: the client's kafka.* pass-through (security settings) and read_committed."""
    # 500 records per poll (Kafka's default) makes Spark's reader poll thousands of times per
    # batch; 10000 read a backlog ~30 % faster (make bench). At the end of the log, a reader's
    # fetch waits up to fetch.max.wait.ms (500) for new records, and the next read on that pooled
    # consumer waits behind it: 20 ms cut a small batch by ~80 ms, 2 ms by another ~20-35 ms (a
    # one-task batch reads the partitions one after another). Spark's readers only ever ask for
    # offsets that exist, so a short wait costs no extra requests. Spark's reader opens a consumer
    # per partition and executor: each registering its metrics as JMX MBeans and asking the broker
    # for a telemetry subscription (KIP-714) was ~a third of opening one; without them a catch-up
    # over 512 partitions read ~10 % faster (docs/performance.md, 'Scale'). The job reports its
    # own metrics; a user who scrapes the consumers' JMX sets them back. kafka.* settings win.
    return {"kafka.max.poll.records": "10000", "kafka.fetch.max.wait.ms": "2",
            "kafka.auto.include.jmx.reporter": "false", "kafka.enable.metrics.push": "false",
            **{f"kafka.{name}": value for name, value in client.properties().items()},
            # Records of aborted or still open transactions are never read (docs/design.md).
            "kafka.isolation.level": "read_committed",
            # Records gone (retention) while they are read fail the read instead of going missing.
            "failOnDataLoss": "true"}


def source_options(client: KafkaClient, subscription: Subscription, starting_offsets: str,
                   max_offsets_per_trigger: int = 0) -> dict[str, str]:
    """Options of Spark's Kafka source: reader_options, the subscription, where to start (lost
    records stop the query; the restart then decides, ON_DATA_LOSS); MAX_OFFSETS_PER_TRIGGER when not 0."""
    options = {**reader_options(client), **subscription.source_options(), "startingOffsets": starting_offsets}
    if max_offsets_per_trigger:
        options["maxOffsetsPerTrigger"] = str(max_offsets_per_trigger)
    return options


def kafka_stream_df(spark: SparkSession, options: dict[str, str]) -> DataFrame:
    """The streaming source with `options` (source_options). Out: topic, partition, offset, value
    (binary), timestamp (the record's)."""
    return (spark.readStream.format("kafka").options(**options).load()
            .select("topic", "partition", "offset", "value", "timestamp"))
