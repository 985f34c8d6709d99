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
from dataclasses import dataclass

from pyspark.errors import StreamingQueryException
from pyspark.sql import SparkSession

from errorcount import (
    checkpoint,
    errors,
    faults,
    logline,
    mysql,
    offsets,
    progress,
    retention,
    session,
    source,
    store,
    topic_metadata,
    watch,
)
from errorcount.batch import BatchCommitter
from errorcount.config import Config
from errorcount.errors import ConfigError, JobStop
from errorcount.parse import Classify, Contract, classify_lines_df
from errorcount.retry import StopRequested, first_line, retry, stoppable_sleep
from errorcount.series import SeriesStore
from errorcount.stop_marker import StopMarker
from errorcount.subscription import Subscription
from errorcount.watch import Watch

log = logging.getLogger("errorcount")
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


@dataclass(frozen=True)
class Resume:
    """Where a new query starts: the offsets MySQL stores (after any ON_DATA_LOSS=skip), how many
    partitions the topics have, Spark's startingOffsets JSON for them and each topic's ID."""

    stored: offsets.Position
    partitions: int
    starting_offsets: str
    topic_ids: dict[str, str]


class Job:
    """`classify` turns the Kafka source's rows into classified lines (errorcount/parse.py's
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
                     describe=mysql.failure_text(self.cfg))

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

    def prepare(self, job_store: store.Store) -> Resume:
        """Reads the stored offsets and the topics, settles data loss, recreated topics and partitions
        seen for the first time (offsets.plan_start, per topic), stores the outcome: where a new
        query starts."""
        cfg = self.cfg
        stored, ids = self.mysql("reading stored offsets", job_store.load_position)
        try:  # a topic missing at the first start is a config error; one deleted under the job may come back
            found = retry("reading topic metadata", self.read_topics,
                          cfg.retry_seconds, lambda error: isinstance(error, topic_metadata.KafkaUnavailable) and (
                              self.queries > 0 or not isinstance(error, topic_metadata.TopicMissing)), self.sleep)
        except topic_metadata.TopicMissing as missing:
            raise ConfigError(str(missing)) from None
        skipped = [gap for topic in sorted({tp.topic for tp in stored} - found.keys())  # deleted, under a pattern
                   for gap in offsets.plan_gone(topic, offsets.in_topic(stored, topic), str(self.subscription),
                                                cfg.on_data_loss == "skip")]
        plans = {topic: self.plan_topic(topic, state, offsets.in_topic(stored, topic), ids.get(topic, set()), not stored)
                 for topic, state in found.items()}
        target = {tp: o for topic, plan in plans.items() for tp, o in offsets.of_topic(topic, plan.offsets).items()}
        for gap in skipped:
            log.warning("topic %r partition %d: given up at offset %d, as ON_DATA_LOSS=skip allows: %s",
                        gap.topic, gap.partition, gap.stored, gap.why)
        skipped += [gap for plan in plans.values() for gap in plan.skipped]
        topic_ids = {topic: state.topic_id for topic, state in found.items()}
        if target != stored or skipped or any(None in ids.get(topic, set()) for topic in found):
            self.mysql("storing where the job starts", lambda: job_store.settle(stored, target, topic_ids, skipped))
        partitions = {topic: state.partitions for topic, state in found.items()}
        if not found:
            log.info("job %r: %s matches no topic yet: waiting; a matching topic created later is read from its "
                     "first record", cfg.job_name, self.subscription)
        else:
            log.info("job %r: topics %s, resuming from %s", cfg.job_name, ", ".join(
                f"{topic!r} (ID {state.topic_id}, partitions {state.partitions})" for topic, state in found.items()),
                logline.format_value(target))
        # No topic yet (a pattern): any that appears before Spark first lists them starts at its first record.
        start = offsets.starting_offsets_json(partitions, target) if found else "earliest"
        return Resume(target, sum(len(p) for p in partitions.values()), start, topic_ids)

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

    def plan_topic(self, topic: str, state: topic_metadata.TopicState, stored: dict[int, int], ids: set[str | None],
                   first_start: bool) -> offsets.StartPlan:
        """One topic's offsets.plan_start, logged: adopted IDs, skipped gaps, partitions seen for the
        first time. STARTING_OFFSETS applies at the job's first start only (nothing stored for any of
        its topics): a topic or partition first seen later is read from its first offset."""
        default = self.cfg.starting_offsets if first_start else "earliest"
        plan = offsets.plan_start(topic, stored, {i for i in ids if i is not None}, state.topic_id, state.partitions,
                                  state.earliest, state.latest, default, self.cfg.on_data_loss == "skip")
        if None in ids:
            log.info("topic %r: adopting its current topic ID %s for offsets stored before topic IDs were kept",
                     topic, state.topic_id)
        for gap in plan.skipped:
            log.warning("topic %r partition %d: skipped from offset %d to %d, as ON_DATA_LOSS=skip allows: %s",
                        topic, gap.partition, gap.stored, gap.resume, gap.why)
        if plan.resolved:
            rule = f"STARTING_OFFSETS={default}" if first_start else "their earliest: the job has offsets"
            log.info("topic %r: partitions %s seen for the first time start at %s (%s), stored",
                     topic, sorted(plan.resolved), dict(sorted(plan.resolved.items())), rule)
        return plan

    def run_query(self, job_store: store.Store, resume: Resume) -> int:
        with checkpoint.fresh() as location:  # never reused: MySQL is the truth
            committer = BatchCommitter(self.cfg, job_store, resume.stored, resume.partitions, self.retention, location,
                                       self.watch, topic_ids=resume.topic_ids, topic_now=self.identity.current)
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
                while query.isActive and not self.stop_requested():
                    query.awaitTermination(0.5)  # type: ignore[arg-type]  # PySpark takes seconds as a float too
                    failed = committer.failed_commit()  # an overlapped commit, maybe with no batch after it yet
                    if failed is not None:
                        query.stop()
                        raise failed if isinstance(failed, JobStop) else QueryFailed(f"committing a batch: {first_line(failed)}")
            except StreamingQueryException as error:
                raise (committer.ended_by() or QueryFailed(first_line(error))) from None
            finally:
                committer.close()  # the connection is the next query's or the caller's after this
            if not self.stop.is_set():
                raise QueryFailed("the query stopped by itself")
            stored = committer.stop()  # after the in-flight batch, if any, committed or rolled back
            query.stop()
            log.info("stopped cleanly at a batch boundary; stored offsets %s", logline.format_value(stored))
            return errors.EXIT_OK
