"""(a') Spark's Kafka source alone: the job's streaming query shape (the same source options,
maxOffsetsPerTrigger and trigger, from the job's configuration), with a foreachBatch that only
counts the batch's rows and commits nothing. Its batch lines (errorcount/observe/logline.py) are read as
(b)'s are, so its warm rate is taken exactly as (b)'s. Run by the bench through scripts/run.sh
(--driver); it reads from the earliest offsets until stopped."""

import logging
import os
import signal
import sys
import threading
import time

# The job's drivers import pyspark so too (errorcount/driver_path.py): starts compared alike.
import errorcount.driver_path  # noqa: F401  # isort: skip

from pyspark.sql import DataFrame, SparkSession

from errorcount.batch import checkpoint
from errorcount.config.load import load_config, topics
from errorcount.driver_path import FORWARDED
from errorcount.kafka.client import KafkaClient
from errorcount.kafka.subscription import Subscription
from errorcount.main import configure_logging
from errorcount.observe import logline
from errorcount.pipeline import source

log = logging.getLogger("errorcount.batch")


def count_only(batch_df: DataFrame, batch_id: int) -> None:
    started = time.monotonic()
    records = batch_df.count()
    if records:
        spent = int((time.monotonic() - started) * 1000)
        log.info("%s", logline.line(logline.BATCH, batch_id, records=records, count_ms=spent, commit_ms=0,
                                    batch_ms=spent))


def main() -> int:
    configure_logging(os.environ)
    logging.Formatter.converter = time.gmtime
    cfg = load_config(sys.argv[1:], os.environ)
    spark = SparkSession.builder.appName("errorcount-bench-source-only").getOrCreate()
    stop = threading.Event()
    for signum in (signal.SIGTERM, *FORWARDED):  # scripts/run.sh forwards a stop as SIGUSR1/SIGUSR2
        signal.signal(signum, lambda *_: stop.set())
    with checkpoint.fresh() as location:
        options = source.source_options(KafkaClient.of(cfg), Subscription(topics(cfg)), "earliest", cfg.max_offsets_per_trigger)
        query = (source.kafka_stream_df(spark, options).writeStream
                 .trigger(processingTime=cfg.trigger_interval).foreachBatch(count_only)
                 .option("checkpointLocation", "file://" + location).start())
        while query.isActive and not stop.is_set():
            query.awaitTermination(0.5)
        query.stop()
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
