"""Driver: read config, build the session, wire Kafka -> parse -> aggregate -> MySQL, await.

Run with spark-submit (scripts/run.sh). Exit codes are listed in app/errors.py.
"""

import logging
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

from pyspark.errors import StreamingQueryException
from pyspark.sql import SparkSession

from app import errors, kafka_meta, offsets, sink
from app.batch import BatchCommitter
from app.config import Config, load_config
from app.errors import ConfigError, JobStop

log = logging.getLogger("errorcount")


def build_session(cfg: Config) -> SparkSession:
    spark = SparkSession.builder.appName(f"errorcount[{cfg.job_name}]").getOrCreate()
    if spark.conf.get("spark.sql.streaming.checkpointLocation", None):
        raise ConfigError("spark.sql.streaming.checkpointLocation is set: Spark would resume from that "
                          "checkpoint and silently ignore the offsets stored in MySQL. Unset it for this job.")
    return spark


def install_signal_handlers(stop: threading.Event) -> None:
    """First SIGTERM/SIGINT: stop at the next batch boundary. Second: exit at once (the open
    transaction, if any, is rolled back by MySQL when the connection drops)."""
    def handle(signum, _frame):
        if stop.is_set():
            log.warning("second stop signal: exiting now")
            os._exit(errors.EXIT_INTERRUPTED)
        log.info("%s received: stopping after the in-flight batch (send it again to exit at once)",
                 signal.Signals(signum).name)
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, handle)


def run(cfg: Config, spark: SparkSession, stop: threading.Event) -> int:
    conn = sink.connect(cfg)
    sink.verify_schema(conn, cfg.mysql_database)
    stored = sink.load_offsets(conn, cfg.job_name, cfg.kafka_topic)
    topic = kafka_meta.describe_topic(spark, cfg)
    offsets.check_stored_offsets(cfg.kafka_topic, stored, topic.earliest, topic.latest)
    start = offsets.starting_offsets_json(cfg.kafka_topic, topic.partitions, stored, cfg.starting_offsets)
    log.info("job %r: topic %r partitions %s, resuming from %s (unknown partitions: %s)",
             cfg.job_name, cfg.kafka_topic, topic.partitions, dict(sorted(stored.items())), cfg.starting_offsets)

    committer = BatchCommitter(cfg, conn, stored)
    checkpoint = tempfile.mkdtemp(prefix="errorcount-checkpoint-")  # never reused: MySQL is the truth
    try:
        query = (kafka_meta.kafka_stream_df(spark, cfg, start).writeStream
                 .queryName(f"errorcount-{cfg.job_name}")
                 .option("checkpointLocation", "file://" + checkpoint)
                 .trigger(processingTime=cfg.trigger_interval)
                 .foreachBatch(committer)
                 .start())
        return await_query(query, committer, stop)
    finally:
        shutil.rmtree(checkpoint, ignore_errors=True)
        conn.close()


def await_query(query, committer: BatchCommitter, stop: threading.Event) -> int:
    try:
        while query.isActive and not stop.is_set():
            query.awaitTermination(0.5)
    except StreamingQueryException:
        if committer.failure:
            raise committer.failure from None
        raise
    if stop.is_set():
        with committer.lock:  # waits for an in-flight batch to commit or roll back
            committer.stopping = True
        query.stop()
        log.info("stopped cleanly at a batch boundary; stored offsets %s", dict(sorted(committer.expected.items())))
    return errors.EXIT_OK


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.Formatter.converter = time.gmtime  # log times in UTC, like the minute keys
    logging.getLogger("py4j").setLevel(logging.WARNING)  # one line per callback otherwise
    stop = threading.Event()
    install_signal_handlers(stop)
    try:
        cfg = load_config(sys.argv[1:] if argv is None else argv, os.environ)
        logging.getLogger().setLevel(cfg.log_level)
        spark = build_session(cfg)
        try:
            return run(cfg, spark, stop)
        finally:
            spark.stop()
    except JobStop as failure:
        log.error("%s [exit %d]", failure.message, failure.exit_code)
        return failure.exit_code


if __name__ == "__main__":
    sys.exit(main())
