"""Where a batch's time goes, per record: the job's steps applied one after another to the same
range of the corpus topic as plain batch reads, each timed warm (best of 3 after one warm-up run):
the read, the classifier, its columns, then the one pass (the job's count) and the aggregate path
it replaced. Run by `make bench` through scripts/run.sh (--driver); prints one PROFILE line."""

import json
import os
import sys
import time

# The job's drivers import pyspark so too (errorcount/driver_path.py): starts compared alike.
import errorcount.driver_path  # noqa: F401  # isort: skip

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from errorcount.config.load import load_config
from errorcount.offsets import TopicPartition
from errorcount.pipeline.classify import Contract, classify_lines_df, register_classifier
from errorcount.pipeline.one_pass import one_pass_summary_df
from errorcount.pipeline.summary import dead_letter_slots
from tests.oracles.catalyst import batch_summary_df


def timed(action, runs: int = 3) -> float:
    action()  # warm-up: code generation and JIT
    best = float("inf")
    for _ in range(runs):
        started = time.monotonic()
        action()
        best = min(best, time.monotonic() - started)
    return best


def main() -> int:
    topic, records = os.environ["KAFKA_TOPIC"], int(os.environ["BENCH_PROFILE_RECORDS"])
    spark = SparkSession.builder.appName("errorcount-bench-profile").getOrCreate()
    cfg = load_config(sys.argv[1:], os.environ)  # scripts/run.sh passes --config
    contract = Contract.of(cfg)  # the log format of the corpus (LOG_FORMAT...)
    function = register_classifier(spark, contract)

    def classify(df: DataFrame) -> DataFrame:
        return classify_lines_df(df, contract)

    partitions = int(os.environ["BENCH_PARTITIONS"])
    ends = {topic: {str(p): records // partitions for p in range(partitions)}}
    source = (spark.read.format("kafka").option("kafka.bootstrap.servers", os.environ["KAFKA_BOOTSTRAP_SERVERS"])
              .option("subscribe", topic).option("startingOffsets", "earliest")
              .option("endingOffsets", json.dumps(ends)).option("kafka.max.poll.records", "10000").load()
              .select("topic", "partition", "offset", "value"))
    count = records // partitions * partitions

    def consume(df: DataFrame) -> None:
        df.agg(*[F.max(F.length(c) if c in ("value", "text") else c).alias(f"c{i}")
                 for i, c in enumerate(df.columns)]).collect()

    slots = dead_letter_slots(1000, partitions)  # DEAD_LETTER_LIMIT's default
    # the job's bounds: each partition from its first offset (the corpus topics start at 0) to the read's end
    bounds = {TopicPartition(topic, p): (0, records // partitions) for p in range(partitions)}
    timed_source = source.withColumn("timestamp", F.current_timestamp())  # the job's rows carry Kafka's time (the lag)
    steps = [("Kafka read (Spark source)", lambda: consume(source)),
             ("+ the JVM classifier (packed outcome)", lambda: consume(source.select(
                 "topic", "partition", "offset", F.call_function(function, F.col("value")).getField("packed").alias("packed")))),
             ("+ minute, reject reason, raw prefix (classify_lines_df)",
              lambda: consume(source.transform(classify))),
             ("the one pass instead, without dead letters (OnePass)",
              lambda: one_pass_summary_df(timed_source, contract, 0, bounds).collect()),
             ("+ dead letters (the job's one Spark job per batch)",
              lambda: one_pass_summary_df(timed_source, contract, slots, bounds).collect()),
             ("the aggregate path it replaced (classify_lines_df, Spark's aggregate, dead letters)",
              lambda: batch_summary_df(source.transform(classify), slots, bounds, contract.every_line).collect())]
    result = []
    for name, action, runs in [(name, action, 3) for name, action in steps]:
        seconds = timed(action, runs)
        result.append({"step": name, "seconds": seconds, "records_per_s": count / seconds,
                       "core_us_per_record": seconds * 1e6 * spark.sparkContext.defaultParallelism / count})
        print(f"profile: {name}: {seconds:.2f} s", file=sys.stderr, flush=True)
    print("PROFILE " + json.dumps({"records": count, "cores": spark.sparkContext.defaultParallelism, "steps": result}),
          flush=True)
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
