"""Spark's own timing of each micro-batch, logged next to the job's batch line, so an operator
(and make bench) can see where a batch's time goes outside foreachBatch."""

import logging

from pyspark.sql import SparkSession
from pyspark.sql.streaming import StreamingQueryListener

from errorcount.observe import lag, logline
from errorcount.offsets import Position

log = logging.getLogger(__name__)

# Spark's durationMs keys -> the names logged: the whole trigger, the foreachBatch call, writing
# the offset log before and the commit log after the batch, asking Kafka for its end offsets, and
# planning the batch's query.
STEPS = {"triggerExecution": "trigger_ms", "addBatch": "foreach_batch_ms", "walCommit": "offset_log_ms",
         "commitOffsets": "commit_log_ms", "latestOffset": "latest_offset_ms", "queryPlanning": "planning_ms"}


def progress_line(batch_id: int, rows: int, durations: dict[str, int]) -> str:
    """The logged text for one batch's progress event (durations: Spark's durationMs)."""
    return logline.line(logline.SPARK_BATCH, batch_id, rows=rows,
                        **{name: durations.get(key, 0) for key, name in STEPS.items()})


class ProgressLogger(StreamingQueryListener):
    """Logs each progress event that carried records; idle triggers are not logged. Events
    arrive on Spark's listener bus, after the batch: nothing here slows a batch down. Keeps the
    topics' end offsets of the newest event (`ends`, for errorcount/observe/lag.py)."""

    def __init__(self):
        super().__init__()
        self.ends: Position | None = None

    def onQueryStarted(self, event) -> None:
        pass

    def onQueryProgress(self, event) -> None:
        progress = event.progress
        for source in progress.sources:
            ends = lag.end_offsets(source.latestOffset)
            if ends is not None:
                self.ends = ends
        if progress.numInputRows:
            log.info("%s", progress_line(progress.batchId, progress.numInputRows, dict(progress.durationMs)))

    def onQueryIdle(self, event) -> None:
        pass

    def onQueryTerminated(self, event) -> None:
        pass


def install(spark: SparkSession) -> ProgressLogger:
    listener = ProgressLogger()
    spark.streams.addListener(listener)
    return listener
