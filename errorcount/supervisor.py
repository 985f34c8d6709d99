"""Running the job: take the lease, start the query from MySQL's offsets, supervise, stop.

A query that fails for a reason other than a JobStop (Kafka away, a lost executor) is started
again inside the same driver from the offsets stored in MySQL, with backoff; only repeated
failures end the driver.
"""

import logging
import os
import socket
import threading
import time
from collections.abc import Callable

from pyspark.errors import StreamingQueryException
from pyspark.sql import SparkSession

from errorcount import errors, faults, offsets, session, start_plan, store
from errorcount.batch import checkpoint
from errorcount.batch.commit import BatchCommitter
from errorcount.config.load import Config
from errorcount.errors import ConfigError, JobStop
from errorcount.kafka import topic_metadata
from errorcount.kafka.subscription import Subscription
from errorcount.observe import logline, progress, watch
from errorcount.observe.watch import Watch
from errorcount.pipeline import source
from errorcount.pipeline.classify import Classify, Contract, classify_lines_df
from errorcount.retry import StopRequested, first_line, retry, stoppable_sleep
from errorcount.stop_marker import StopMarker
from errorcount.store import mysql, retention
from errorcount.store.series import SeriesStore

log = logging.getLogger(__name__)
MAX_RESTARTS = 5          # query failures tolerated within RESTART_WINDOW seconds
RESTART_WINDOW = 600


def yarn_reattempt(spark: SparkSession, env) -> store.Reattempt | None:
    """Set when this driver is a YARN re-attempt (attempt 2 or later) that knows when its
    application was submitted (the ResourceManager puts that in the AM's environment)."""
    attempt = spark.sparkContext._jsc.sc().applicationAttemptId()  # a Scala Option
    submitted = env.get("APP_SUBMIT_TIME_ENV", "")
    if spark.sparkContext.master != "yarn" or not attempt.isDefined() or attempt.get() == "1":
        return None
    if not submitted.isdigit():
        log.warning("YARN attempt %s without APP_SUBMIT_TIME_ENV: taking the job lease like a new start", attempt.get())
        return None
    return store.Reattempt(spark.sparkContext.applicationId, int(submitted))


class QueryFailed(Exception):
    """The streaming query ended with an error that was not a JobStop."""


class Job:
    """`classify` turns the Kafka source's rows into classified lines (errorcount/pipeline/classify.py's
    classify_lines_df; the bench passes its naive UDF variant)."""

    identity: topic_metadata.TopicIdentity  # asks Kafka for the topics' IDs; made once the lease is taken
    subscription: Subscription  # the topics read (KAFKA_TOPIC or KAFKA_TOPIC_PATTERN)

    def __init__(self, cfg: Config, spark: SparkSession, stop: threading.Event,
                 classify: Classify = classify_lines_df, hooks: faults.Hooks = faults.NO_FAULTS):
        self.cfg, self.spark, self.stop, self.classify, self.hooks = cfg, spark, stop, classify, hooks
        self.owner = f"{socket.gethostname()} pid {os.getpid()} app {spark.sparkContext.applicationId}"
        self.marker = StopMarker(spark, cfg.stop_marker)
        # Backoff between retries and restarts ends early on a stop: nothing is in flight then.
        self.sleep = stoppable_sleep(self.stop_requested)
        self.describe = mysql.failure_text(cfg)  # how a MySQL failure reads in the log
        # outlives query restarts; per-dimension counts are pruned only while GROUP_BY is on
        self.retention = retention.Retention(cfg.retention_days, series_days=cfg.series_retention_days if cfg.group_by else 0)
        self.queries = 0  # started by this driver
        self.watch = Watch()  # lag, metrics and the offsets mirror, once the lease is taken

    def stop_requested(self) -> bool:
        """A signal or the stop marker; the marker's first sighting is logged and latched into `stop`."""
        if not self.stop.is_set() and self.marker.present():
            log.info("stop marker %s found: stopping after the in-flight batch", self.cfg.stop_marker)
            self.stop.set()
        return self.stop.is_set()

    def mysql(self, what: str, action):
        """Runs a MySQL action, retrying transient failures; none of these actions is a batch, and
        each is safe to repeat, so a COMMIT whose outcome was lost is simply tried again."""
        return retry(what, action, self.cfg.retry_seconds, store.retry_outside_batch, self.sleep,
                     describe=self.describe)

    def run(self) -> int:
        if self.marker.present():
            # A restart or a YARN re-attempt after the operator asked the job to stop: nothing to do.
            log.info("stop marker %s exists: not starting (remove it to run the job)", self.cfg.stop_marker)
            return errors.EXIT_OK
        try:
            return self.connect_and_supervise()
        except StopRequested:
            log.info("stop requested while waiting out an outage or a query restart: exiting; no batch was in flight")
            return errors.EXIT_OK

    def connect_and_supervise(self) -> int:
        cfg = self.cfg
        conn = self.mysql("connecting to MySQL", lambda: mysql.connect(cfg))
        try:
            series = SeriesStore(cfg.job_name, cfg.group_by, cfg.max_series) if cfg.group_by else None
            self.subscription = Subscription.of(cfg, session.jvm(self.spark))
            job_store = store.Store(conn, cfg.job_name, self.subscription, cfg.counts_table, self.hooks, series)
            self.mysql("checking the schema", lambda: job_store.verify_schema(cfg.mysql_database))
            sharing = self.mysql("claiming the counts table", lambda: job_store.claim_counts_table(cfg.share_counts_table))
            if sharing:
                log.info("COUNTS_TABLE %s is shared with job(s) %s (SHARE_COUNTS_TABLE)", cfg.counts_table, sharing)
            if cfg.retention_days or self.retention.series_days:
                self.mysql("checking what retention needs", lambda: retention.check_ready(conn, self.retention))
            reattempt = yarn_reattempt(self.spark, os.environ)
            endpoint = watch.endpoint(cfg)
            epoch = self.mysql("taking the job lease", lambda: job_store.acquire_lease(self.owner, reattempt, endpoint))
            log.info("job %r: epoch %d taken by %s", cfg.job_name, epoch, self.owner)
            listener = progress.install(self.spark)
            self.watch = watch.build(cfg, session.jvm(self.spark), lambda: listener.ends)
            self.watch.leased(epoch)
            if series:
                series.on_commit = self.watch.series_counted
            self.identity = topic_metadata.TopicIdentity(self.spark, cfg)
            try:
                return self.supervise(job_store)
            finally:
                self.identity.close()
                self.watch.close()
        finally:
            conn.close()

    def supervise(self, job_store: store.Store) -> int:
        failures: list[float] = []
        while True:
            resume = self.prepare(job_store)
            try:
                return self.run_query(job_store, resume)
            except QueryFailed as failure:
                now = time.monotonic()
                failures = [t for t in failures if now - t < RESTART_WINDOW] + [now]
                if len(failures) > MAX_RESTARTS:
                    raise JobStop(f"the streaming query failed {len(failures)} times within {RESTART_WINDOW} s, "
                                  f"last: {failure}. Nothing was half-committed; see the log above.") from None
                delay = min(2 ** len(failures), 30)
                log.warning("query failed (%s); restarting from the offsets stored in MySQL in %d s", failure, delay)
                self.watch.query_restarted()
                self.sleep(delay)

    def prepare(self, job_store: store.Store) -> start_plan.Resume:
        """Reads what MySQL holds and the topics as Kafka holds them, plans where every partition
        starts (start_plan.plan_start: DataLossError, or what to record), logs and stores the plan:
        where a new query starts."""
        cfg = self.cfg
        start = self.mysql("reading stored offsets", job_store.load_start)
        try:  # a topic missing at the first start is a config error; one deleted under the job may come back
            found = retry("reading topic metadata", self.read_topics,
                          cfg.retry_seconds, lambda error: isinstance(error, topic_metadata.KafkaUnavailable) and (
                              self.queries > 0 or not isinstance(error, topic_metadata.TopicMissing)), self.sleep)
        except topic_metadata.TopicMissing as missing:
            raise ConfigError(str(missing)) from None
        plan = start_plan.plan_start(start.rows, found, start.first_start, cfg.starting_offsets,
                                     cfg.on_data_loss == "skip")
        for note in plan.notes:
            log.info("%s", note)
        for event in plan.events:
            (log.warning if event.loss else log.info)(
                "topic %r partition %d: %s at offset %d%s: %s", event.topic, event.partition,
                "skipped, as ON_DATA_LOSS=skip allows," if event.loss else "retired", event.stored,
                f" (to {event.resume})" if event.resume != event.stored else "", event.why)
        self.mysql("storing where the job starts", lambda: job_store.settle(start, plan))
        partitions = {topic: state.partitions for topic, state in found.items()}
        if not found:
            log.info("job %r: %s matches no topic yet: waiting; a matching topic created later is read from its "
                     "first record", cfg.job_name, self.subscription)
        else:
            log.info("job %r: topics %s, resuming from %s", cfg.job_name, ", ".join(
                f"{topic!r} (ID {state.topic_id}, partitions {state.partitions})" for topic, state in found.items()),
                logline.format_value(plan.offsets))
        # No topic yet (a pattern): any that appears before Spark first lists them starts at its first record.
        begin = offsets.starting_offsets_json(partitions, plan.offsets) if found else "earliest"
        return start_plan.Resume(plan.offsets, sum(len(p) for p in partitions.values()), begin, plan.topic_ids,
                                 plan.seen, plan.away)

    def read_topics(self) -> dict[str, topic_metadata.TopicState]:
        """The topics read now, as Kafka holds them: the listed ones (TopicMissing for one that does
        not exist), or those the pattern matches (one deleted while listed: try again)."""
        subscription = self.subscription
        names = subscription.current(self.identity.list_topics() if subscription.is_pattern else ())
        try:
            return topic_metadata.describe_topics(self.spark, self.cfg, self.identity, names)
        except topic_metadata.TopicMissing as missing:
            if subscription.is_pattern:
                raise topic_metadata.KafkaUnavailable(f"{missing} (listed a moment ago); trying again") from None
            raise

    def run_query(self, job_store: store.Store, resume: start_plan.Resume) -> int:
        with checkpoint.fresh() as location:  # never reused: MySQL is the truth
            committer = BatchCommitter(self.cfg, job_store, resume, self.retention, location, self.watch,
                                       topic_now=self.identity.current)
            # The parse is part of the streaming plan, so each batch arrives parsed and analysed
            # in the JVM; built in foreachBatch from Python it cost ~100 ms more per batch.
            stream = source.kafka_stream_df(self.spark, self.cfg, resume.starting_offsets, self.subscription)
            lines = self.classify(stream, Contract.of(self.cfg))
            query = (lines.writeStream
                     .queryName(f"errorcount-{self.cfg.job_name}")
                     .option("checkpointLocation", "file://" + location)
                     .trigger(processingTime=self.cfg.trigger_interval)
                     .foreachBatch(committer)
                     .start())
            self.queries += 1
            log.info("%s", logline.line(logline.QUERY, self.queries, epoch=job_store.epoch, resuming=resume.stored))
            try:
                await_stop(query, committer, self.stop_requested)
            finally:
                committer.close()  # the connection is the next query's or the caller's after this
            stored = committer.stop()  # after the in-flight batch, if any: its commit's failure is raised
            query.stop()
            log.info("stopped cleanly at a batch boundary; stored offsets %s", logline.format_value(stored))
            return errors.EXIT_OK


def await_stop(query, committer: BatchCommitter, stop_requested: Callable[[], bool]) -> None:
    """Returns once a stop is requested while the query runs. Raises why it ended otherwise: the
    JobStop a batch or a commit raised (its exit code is owed), else QueryFailed (restarted)."""
    try:
        while not stop_requested():
            failed = committer.failed_commit()  # an overlapped commit, maybe with no batch after it yet
            if failed is not None:
                query.stop()
                raise failed if isinstance(failed, JobStop) else QueryFailed(f"committing a batch: {first_line(failed)}")
            # True once the query has ended (raising what it failed with): the query's own end, not
            # isActive, so an end between two looks never loses the JobStop that caused it.
            if query.awaitTermination(0.5):
                raise committer.ended_by() or QueryFailed("the query stopped by itself")
    except StreamingQueryException as error:
        raise (committer.ended_by() or QueryFailed(first_line(error))) from None
