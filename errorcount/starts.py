"""A start around the pure planner (errorcount/start_plan.py): what MySQL and Kafka hold read (their
outages waited out), the job's first start planned before its lease (Store.acquire_lease stores it
with the job's first epoch), every query's start planned, logged and stored."""

import logging
from collections.abc import Callable
from dataclasses import dataclass

from errorcount import offsets, start_plan, store
from errorcount.batch import sizing
from errorcount.config.load import Config
from errorcount.errors import ConfigError
from errorcount.kafka import topic_metadata
from errorcount.kafka.admin import KafkaAdmin
from errorcount.kafka.client import KafkaClient, KafkaUnavailable, TopicMissing
from errorcount.kafka.subscription import Subscription
from errorcount.observe import logline
from errorcount.retry import retry

log = logging.getLogger("errorcount.supervisor")  # the start's lines read as the supervisor's, as before


@dataclass(frozen=True)
class StartSettings:
    """The settings a start plans with."""

    job_name: str
    starting_offsets: str
    skip: bool  # ON_DATA_LOSS=skip
    retry_seconds: int
    max_offsets_per_trigger: int = 0

    @classmethod
    def of(cls, cfg: Config) -> "StartSettings":
        return cls(cfg.job_name, cfg.starting_offsets, cfg.on_data_loss == "skip", cfg.retry_seconds,
                   cfg.max_offsets_per_trigger)


class Starts:
    """Plans the job's starts on `jvm`'s Kafka clients; `mysql(what, action)` runs a MySQL action with
    the job's retries, `sleep` waits between Kafka's (ending early on a stop)."""

    def __init__(self, settings: StartSettings, jvm, kafka: KafkaClient, mysql: Callable, sleep: Callable[[float], None]):
        self.settings, self.jvm, self.kafka, self.mysql, self.sleep = settings, jvm, kafka, mysql, sleep

    def first_plan(self, job_store: store.Store, subscription: Subscription, admin: KafkaAdmin) -> start_plan.Plan | None:
        """The job's first start plan when it never stored a start (STARTING_OFFSETS resolved now),
        for the lease's transaction to store with the job's epoch; None for every later start."""
        settings = self.settings
        start = self.mysql("reading whether the job ever started", job_store.load_start)
        if not start.first_start:
            return None
        earlier = self.mysql("reading the job's lease", job_store.earlier_lease)
        found = self.topics_now(subscription, admin, first=True)
        return start_plan.plan_start(start.rows, found, True, settings.starting_offsets, settings.skip, earlier)

    def prepare(self, job_store: store.Store, subscription: Subscription, admin: KafkaAdmin,
                first: bool) -> start_plan.Resume:
        """Reads what MySQL holds and the topics as Kafka holds them, plans where every partition
        starts (start_plan.plan_start: DataLossError, or what to record), logs and stores the plan:
        where a new query starts. `first`: the driver's first query (a listed topic missing is a
        config error then)."""
        settings = self.settings
        start = self.mysql("reading stored offsets", job_store.load_start)
        found = self.topics_now(subscription, admin, first)
        plan = start_plan.plan_start(start.rows, found, start.first_start, settings.starting_offsets, settings.skip)
        log_plan(plan)
        self.mysql("storing where the job starts", lambda: job_store.settle(start, plan))
        partitions = {topic: state.partitions for topic, state in found.items()}
        if not found:
            log.info("job %r: %s matches no topic yet: waiting; a matching topic created later is read from its "
                     "first record", settings.job_name, subscription)
        else:
            log.info("job %r: %s, resuming from %s", settings.job_name, logline.topics_read(
                {topic: (state.topic_id, state.partitions) for topic, state in found.items()}), logline.brief(plan.offsets))
            log.debug("job %r: resuming from %s", settings.job_name, logline.format_value(plan.offsets))
            advice = sizing.batch_advice(settings.max_offsets_per_trigger, sum(len(p) for p in partitions.values()))
            if advice:
                log.warning("job %r: %s", settings.job_name, advice)
        # No topic yet (a pattern): any that appears before Spark first lists them starts at its first record.
        begin = offsets.starting_offsets_json(partitions, plan.offsets) if found else "earliest"
        return start_plan.Resume(plan.offsets, sum(len(p) for p in partitions.values()), begin, plan.topic_ids,
                                 plan.seen, plan.away)

    def topics_now(self, subscription: Subscription, admin: KafkaAdmin, first: bool) -> dict[str, topic_metadata.TopicState]:
        """read_topics, Kafka's outages waited out. A listed topic missing at a driver's `first`
        start is a config error; one deleted under a running driver may come back, so it is waited for."""
        try:
            return retry("reading topic metadata", lambda: self.read_topics(subscription, admin),
                         self.settings.retry_seconds,
                         lambda error: isinstance(error, KafkaUnavailable) and not (first and isinstance(error, TopicMissing)),
                         self.sleep)
        except TopicMissing as missing:
            raise ConfigError(str(missing)) from None

    def read_topics(self, subscription: Subscription, admin: KafkaAdmin) -> dict[str, topic_metadata.TopicState]:
        """The topics read now, as Kafka holds them: the listed ones (TopicMissing for one that does
        not exist), or those the pattern matches (one deleted while listed: try again)."""
        names = subscription.current(admin.list_topics() if subscription.is_pattern else ())
        try:
            return topic_metadata.describe_topics(self.jvm, self.kafka, admin, names)
        except TopicMissing as missing:
            if subscription.is_pattern:
                raise KafkaUnavailable(f"{missing} (listed a moment ago); trying again") from None
            raise


def log_plan(plan: start_plan.Plan) -> None:
    """A start plan's notes, warnings and events, as the log says them."""
    for note in plan.notes:
        log.info("%s", note)
    for detail in plan.details:
        log.debug("%s", detail)
    for warning in plan.warnings:
        log.warning("%s", warning)
    for event in plan.events:
        (log.warning if event.loss else log.info)(
            "topic %r partition %d: %s at offset %d%s: %s", event.topic, event.partition,
            "skipped, as ON_DATA_LOSS=skip allows," if event.loss else "retired", event.stored,
            f" (to {event.resume})" if event.resume != event.stored else "", event.why)
