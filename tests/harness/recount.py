"""What the recount's tests share: app lines written to a topic with what each set of counting
rules counts of them (plain Python), and a recount's configuration on the local stack."""

from collections import Counter
from datetime import UTC, datetime, timedelta

from errorcount.config.load import load_config
from errorcount.recount.plan import Range
from errorcount.tools import produce
from tests.harness.admin_db import error_log, query, stored_offsets
from tests.harness.drivers import Driver, driver_env, wait_until
from tests.support import app_password, catch_up

LEVELS = ("ERROR", "FATAL", "WARN", "INFO", "fatal", "error", "DEBUG")
OLD = {"ERROR_LEVELS": "ERROR"}
NEW = {"ERROR_LEVELS": "ERROR,FATAL", "GROUP_BY": "level", "COUNT_LINES": "true"}


class Lines:
    """App lines written to the topic, and what each rule set counts of them, per minute."""

    def __init__(self, topic: str, base: datetime):
        self.topic, self.base = topic, base
        self.written: list[tuple[str, str | None]] = []  # (minute, level); level None: a reject

    def write(self, count: int, seed: int) -> None:
        """`count` records, each with its line's time as its Kafka timestamp, as a live producer
        sends them (a reject's minute: its Kafka timestamp's, as rejected_minutes keys it)."""
        writer = produce.Writer(self.topic)
        for i in range(count):
            n = seed * 7919 + i
            minute = self.base + timedelta(minutes=n % 14 - 2)  # two minutes before the range to two after
            at = minute + timedelta(seconds=n % 60)
            kafka_ms = (at - datetime(1970, 1, 1)) // timedelta(milliseconds=1)
            if n % 23 == 0:
                writer.send(b"\xff not a line", i, kafka_ms)
                self.written.append((minute.strftime("%Y-%m-%d %H:%M:00"), None))
                continue
            level = LEVELS[n % len(LEVELS)]
            stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
            writer.send(f"{stamp} {level} request {n}".encode(), i, kafka_ms)
            self.written.append((minute.strftime("%Y-%m-%d %H:%M:00"), level))
        writer.flush()

    def errors(self, levels: set[str], part: slice = slice(None)) -> Counter:
        return Counter(m for m, level in self.written[part] if level and level.upper() in levels)

    def lines(self) -> Counter:
        return Counter(m for m, level in self.written if level)

    def rejects(self) -> Counter:
        return Counter(m for m, level in self.written if level is None)

    def series(self, levels: set[str], errors: bool) -> Counter:
        return Counter((m, (level.upper(),)) for m, level in self.written
                       if level and (not errors or level.upper() in levels))


def recount_config(job: str, topic: str, **settings: str):
    return load_config([], {**driver_env(job, topic), "MYSQL_PASSWORD": app_password(), **settings})


def in_range(counts: Counter, span: Range, base: datetime, inside: bool = True) -> Counter:
    first = base.strftime("%Y-%m-%d %H:%M:00")
    end = (base + timedelta(minutes=span.end - span.first)).strftime("%Y-%m-%d %H:%M:00")
    return Counter({k: v for k, v in counts.items() if (first <= (k if isinstance(k, str) else k[0]) < end) == inside})




def recent_range(minutes: int = 10, hours_ago: int = 3) -> tuple[datetime, Range]:
    """A range of whole UTC minutes that starts `hours_ago` hours ago: its first minute and the Range."""
    base = datetime.now(UTC).replace(tzinfo=None, second=0, microsecond=0) - timedelta(hours=hours_ago)
    first = (base - datetime(1970, 1, 1)) // timedelta(minutes=1)
    return base, Range(first, first + minutes)


def counted_then_rules_changed(admin, job: str, topic: str, start_driver, lines: Lines, count: int = 400) -> Driver:
    """The story every recount test starts from: lines Kafka held before the job's first start (at
    the end: never counted), `count` lines counted under OLD, then the job restarted under NEW and
    caught up. Returns that running driver."""
    Lines(topic, lines.base).write(100, seed=0)
    first = start_driver(job, topic, env={**OLD, "STARTING_OFFSETS": "latest"})
    wait_until(lambda: stored_offsets(admin, job, topic) or first.check_alive(), 120, "the job's first start")
    lines.write(count, seed=1)
    catch_up(admin, job, topic, first)
    assert first.stop() == 0
    assert error_log(admin) == lines.errors({"ERROR"})
    assert "counts under other rules" not in first.log()  # a first start replaces no rules
    [(epoch,)] = query(admin, "SELECT epoch FROM job_leases WHERE job = %s", (job,))
    live = start_driver(job, topic, env=NEW)
    wait_until(lambda: "FATAL" in (query(admin, "SELECT rules FROM job_leases WHERE job = %s", (job,))[0][0] or ""),
               120, "the job's restart under the new rules")
    said = wait_until(lambda: "counts under other rules" in live.log() and live.log(), 60, "the restart's word on the rules")
    assert (f"counts under other rules than epoch {epoch} did (COUNT_LINES 'false' before, 'true' now; ERROR_LEVELS "
            "'ERROR' before, 'ERROR,FATAL' now; GROUP_BY '' before, 'level' now)") in said
    catch_up(admin, job, topic, live)
    return live
