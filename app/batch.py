"""The foreachBatch handler: one Spark job to aggregate, one MySQL transaction to commit."""

import logging
import threading
import time

from pyspark.sql import DataFrame

from app import offsets, sink
from app.aggregate import batch_summary_df, summarize
from app.config import Config
from app.errors import JobStop
from app.parse import classify_lines_df

log = logging.getLogger("errorcount.batch")


class BatchCommitter:
    """Holds what this driver believes MySQL stores (`expected`) and commits batches on top of it.

    `lock` is held for the whole of a batch, so a stop request can wait for a batch boundary;
    `failure` keeps the JobStop that ended the query, so main() can exit with its code."""

    def __init__(self, cfg: Config, conn, expected: dict[int, int]):
        self.cfg = cfg
        self.conn = conn
        self.expected = dict(expected)
        self.lock = threading.Lock()
        self.stopping = False
        self.failure: JobStop | None = None

    def __call__(self, batch_df: DataFrame, batch_id: int) -> None:
        with self.lock:
            if self.stopping:
                return  # stop requested: leave the batch uncommitted, it is read again next start
            try:
                self.process(batch_df, batch_id)
            except JobStop as stop:
                self.failure = stop
                raise

    def process(self, batch_df: DataFrame, batch_id: int) -> None:
        started = time.monotonic()
        summary = summarize(batch_df.transform(classify_lines_df).transform(batch_summary_df).collect())
        if not summary.records:
            return
        offsets.check_no_overlap(self.expected, summary.ranges)
        new_offsets = offsets.advance(self.expected, summary.ranges)
        commit_started = time.monotonic()
        sink.commit_batch(self.conn, self.cfg.job_name, self.cfg.kafka_topic, self.expected,
                          summary.minute_counts, new_offsets)
        done = time.monotonic()
        self.expected = new_offsets
        log.info("batch %d: records=%d errors=%d rejected=%d minutes=%d offsets=%s commit_ms=%d batch_ms=%d",
                 batch_id, summary.records, summary.errors, summary.rejected, len(summary.minute_counts),
                 dict(sorted(new_offsets.items())), (done - commit_started) * 1000, (done - started) * 1000)
