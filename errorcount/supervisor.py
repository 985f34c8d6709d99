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
from dataclasses import dataclass

from pyspark.errors import StreamingQueryException
from pyspark.sql import SparkSession

from errorcount import errors, faults, session, start_plan, store
from errorcount.batch import checkpoint
from errorcount.batch.handler import BatchCommitter, BatchSettings
from errorcount.config.load import Config, topics
from errorcount.config.rules import Rules, change_warning
from errorcount.counted_through import Marks
from errorcount.errors import JobStop
from errorcount.kafka.admin import KafkaAdmin
from errorcount.kafka.client import KafkaClient
from errorcount.kafka.observer import EndObserver, look_interval
from errorcount.kafka.subscription import Subscription
from errorcount.observe import logline, progress, watch
from errorcount.observe.watch import Watch, WatchSettings
from errorcount.pipeline import source
from errorcount.pipeline.classify import Contract
from errorcount.retry import QueryFailed, RestartPolicy, StopRequested, first_line, retry, stoppable_sleep
from errorcount.starts import Starts, StartSettings, log_plan
from errorcount.stop_marker import StopMarker
from errorcount.store import failures, mysql, retention
from errorcount.store.clock import EarlierClock, ServerClock
from errorcount.store.series import SeriesStore

log = logging.getLogger(__name__)


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


@dataclass(frozen=True)
class Leased:
    """What the job works with while it holds the lease: its store (under the epoch taken), the
    topics it reads, what the outside sees, and the one Kafka admin client (topic IDs and lists)."""

    store: store.Store
    subscription: Subscription
    watch: Watch
    admin: KafkaAdmin
    marks: Marks


class Job:
    """The job under one driver: `stop` is set by a stop signal (or the stop marker); `hooks` are
    the test fault points (inert unless ERRORCOUNT_FAULT). The composition root: the one place the
    whole Config is read; each collaborator gets the few settings it uses."""

    def __init__(self, cfg: Config, spark: SparkSession, stop: threading.Event, hooks: faults.Hooks = faults.NO_FAULTS,
                 clock: Callable[[], float] = time.time):
        self.cfg, self.spark, self.stop, self.hooks = cfg, spark, stop, hooks
        self.clock = clock  # the driver's (epoch seconds): counted_through's observations read it
        self.owner = f"{socket.gethostname()} pid {os.getpid()} app {spark.sparkContext.applicationId}"
        self.marker = StopMarker(spark, cfg.stop_marker)
        # Backoff between retries and restarts ends early on a stop: nothing is in flight then.
        self.sleep = stoppable_sleep(self.stop_requested)
        self.describe = failures.failure_text(cfg.mysql_host, cfg.mysql_port)  # how a MySQL failure reads in the log
        self.kafka = KafkaClient.of(cfg)
        # outlives query restarts; per-dimension counts are pruned only while GROUP_BY is on
        self.retention = retention.Retention(cfg.retention_days, series_days=cfg.series_retention_days if cfg.group_by else 0)
        self.queries = 0  # started by this driver
        self.starts = Starts(StartSettings.of(cfg), session.jvm(spark), self.kafka, self.mysql, self.sleep)

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
        """Connects, checks the database, builds what the job works with (the metrics endpoint is
        taken before the lease: a port in use is a config error, and no lease is taken for it),
        takes the lease, then supervises queries until the job ends."""
        cfg, jvm = self.cfg, session.jvm(self.spark)
        subscription = Subscription.of(topics(cfg), cfg.kafka_topic_pattern, jvm)
        listener = progress.install(self.spark)
        admin = KafkaAdmin(jvm, self.kafka)
        try:
            job_watch = watch.build(WatchSettings.of(cfg), admin, lambda: listener.ends)
            try:
                return self.lease_and_supervise(subscription, job_watch, admin)
            finally:
                job_watch.close()  # the lag mirror's thread, before the admin client it writes through
        finally:
            admin.close()

    def lease_and_supervise(self, subscription: Subscription, job_watch: Watch, admin: KafkaAdmin) -> int:
        """On the job's MySQL connection: the database checked, the lease taken, queries supervised."""
        cfg = self.cfg
        conn = self.mysql("connecting to MySQL", lambda: mysql.connect(cfg))
        try:
            series = (SeriesStore(cfg.job_name, cfg.group_by, cfg.max_series, on_commit=job_watch.series_counted)
                      if cfg.group_by else None)
            job_store = store.Store(conn, cfg.job_name, subscription, cfg.counts_table, self.hooks, series,
                                    lateness_s=cfg.lateness)
            self.check_database(job_store)
            reattempt = yarn_reattempt(self.spark, os.environ)
            endpoint = WatchSettings.of(cfg).endpoint()
            rules = Rules.of(cfg)
            first = self.starts.first_plan(job_store, subscription, admin)
            epoch = self.mysql("taking the job lease",
                               lambda: job_store.acquire_lease(self.owner, reattempt, endpoint, rules, first))
            log.info("job %r: epoch %d taken by %s%s", cfg.job_name, epoch, self.owner,
                     ", with where the job's first start reads from" if job_store.first_stored else "")
            if first is not None and job_store.first_stored:
                log_plan(first)
            self.hooks.crash("after_lease")
            if changed := change_warning(cfg.job_name, job_store.replaced, rules):
                log.warning("%s", changed)
            job_watch.leased(epoch)
            marks = self.mysql("reading counted_through", lambda: marks_of(job_store))
            job_watch.counted_through(marks.stored_job)  # what MySQL holds, until a commit moves it
            server_clock = ServerClock(lambda: mysql.connect(cfg), self.describe)
            observer = EndObserver(admin, subscription, marks, look_interval(cfg.trigger_interval),
                                   EarlierClock(self.clock, server_clock.now, job_watch.clocks_compared)).start()
            try:
                return self.supervise(Leased(job_store, subscription, job_watch, admin, marks))
            finally:
                observer.close()
                server_clock.close()
        finally:
            conn.close()

    def check_database(self, job_store: store.Store) -> None:
        """The schema, the counts table's claim and what retention needs, before the lease."""
        cfg = self.cfg
        self.mysql("checking the schema", lambda: job_store.verify_schema(cfg.mysql_database))
        sharing = self.mysql("claiming the counts table", lambda: job_store.claim_counts_table(cfg.share_counts_table))
        if sharing:
            log.info("COUNTS_TABLE %s is shared with job(s) %s (SHARE_COUNTS_TABLE)", cfg.counts_table, sharing)
        if cfg.retention_days or self.retention.series_days:
            self.mysql("checking what retention needs", lambda: retention.check_ready(job_store, self.retention))

    def supervise(self, leased: Leased) -> int:
        policy = RestartPolicy()
        while True:
            resume = self.starts.prepare(leased.store, leased.subscription, leased.admin, first=self.queries == 0)
            try:
                return self.run_query(leased, resume)
            except QueryFailed as failure:
                delay = policy.delay_after(failure)
                log.warning("query failed (%s); restarting from the offsets stored in MySQL in %d s", failure, delay)
                leased.watch.query_restarted()
                self.sleep(delay)

    def run_query(self, leased: Leased, resume: start_plan.Resume) -> int:
        job_store = leased.store
        with checkpoint.fresh() as location:  # never reused: MySQL is the truth
            contract = Contract.of(self.cfg)  # what the query classifies with, and its batches are counted by
            settings = BatchSettings.of(self.cfg, contract)
            committer = BatchCommitter(settings, job_store, resume, self.retention, location,
                                       self.describe, leased.watch, topic_now=leased.admin.topic_ids, hooks=self.hooks,
                                       marks=leased.marks)
            # the batches get the Kafka rows and classify them as they count them, in one JVM pass
            # per task (errorcount/pipeline/one_pass.py)
            stream = source.kafka_stream_df(self.spark, source.source_options(
                self.kafka, leased.subscription, resume.starting_offsets, self.cfg.max_offsets_per_trigger))
            query = (stream.writeStream
                     .queryName(f"errorcount-{self.cfg.job_name}")
                     .option("checkpointLocation", "file://" + location)
                     .trigger(processingTime=self.cfg.trigger_interval)
                     .foreachBatch(committer)
                     .start())
            self.queries += 1
            log.info("%s", logline.line(logline.QUERY, self.queries, epoch=job_store.epoch,
                                        resuming=logline.brief(resume.stored)))
            try:
                await_stop(query, committer, self.stop_requested)
            finally:
                committer.close()  # the connection is the next query's or the caller's after this
            stored = committer.stop()  # after the in-flight batch, if any: its commit's failure is raised
            query.stop()
            log.info("stopped cleanly at a batch boundary; stored offsets %s", logline.brief(stored))
            return errors.EXIT_OK


def marks_of(job_store: store.Store) -> Marks:
    """counted_through as MySQL holds it, for a driver to go on from (errorcount/counted_through.py)."""
    start = job_store.load_start()
    topics, job = job_store.load_marks()
    live = {tp: row for tp, row in start.rows.items() if row.live}
    seen = {tp: row.seen_end for tp, row in live.items() if row.seen_end is not None}
    return Marks.of(start.live(), topics, job, seen, {tp.topic: row.topic_id for tp, row in live.items()})


def await_stop(query, committer: BatchCommitter, stop_requested: Callable[[], bool]) -> None:
    """Returns once a stop is requested while the query runs. Raises why it ended otherwise: the
    JobStop a batch or a commit raised (its exit code is owed), else QueryFailed (restarted).
    Between looks, counted_through's heartbeat (BatchCommitter.heartbeat)."""
    def failed(failure: BaseException) -> Exception:
        return failure if isinstance(failure, JobStop) else QueryFailed(f"committing a batch: {first_line(failure)}")

    def ended(otherwise: str) -> Exception:
        failure = committer.ended_by()
        return QueryFailed(otherwise) if failure is None else failed(failure)

    try:
        while not stop_requested():
            failure = committer.ended_by()
            if failure is not None:  # an overlapped commit failed, maybe with no batch after it yet
                query.stop()
                raise failed(failure)
            # True once the query has ended (raising what it failed with): the query's own end, not
            # isActive, so an end between two looks never loses the JobStop that caused it.
            if query.awaitTermination(0.5):
                raise ended("the query stopped by itself")
            committer.heartbeat()
    except StreamingQueryException as error:
        raise ended(first_line(error)) from None
