"""The recount against the real Kafka and SQL server, with a real job running: the rules change
(ERROR_LEVELS gains FATAL, GROUP_BY and COUNT_LINES come on), the job restarts under them, and a
past range is recounted while the job keeps committing new records of that very range. Every
expectation is a plain-Python count of the lines the test wrote (tests/harness/recount.py)."""

import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest

from errorcount.errors import EXIT_CONFIG, EXIT_DATA_LOSS, JobStop
from errorcount.recount.plan import Range
from errorcount.recount.run import Recount, Refused
from errorcount.store.recount import RecountStore
from errorcount.tools import kafka_admin
from tests.harness.drivers import Driver
from tests.harness.recount import NEW, OLD, Lines, counted_then_rules_changed, in_range, recent_range, recount_config
from tests.support import (
    catch_up,
    error_log,
    job_connection,
    launch,
    query,
    release_counts_table,
    series_counts,
    series_totals,
    unique,
)

pytestmark = pytest.mark.mysql


@dataclass
class Changed:
    """A job that counted lines under OLD and runs under NEW now, its topic and its lines."""

    admin: object
    job: str
    topic: str
    base: datetime
    span: Range
    lines: Lines
    live: Driver

    def config(self, **settings: str):
        return recount_config(self.job, self.topic, **{**NEW, **settings})

    def now(self) -> int:
        return int(time.time()) // 60


@pytest.fixture(scope="module")
def changed(admin):
    """One job for the module's tests (a driver start costs ~20 s): they run in order, each
    leaving the job as the next expects it (the last deletes records)."""
    release_counts_table(admin)
    topic, job = unique("it"), unique("recount")
    kafka_admin.create_topic(topic, 2)
    drivers: list[Driver] = []

    def start(job: str, topic: str, **kwargs) -> Driver:
        drivers.append(launch(job, topic, **kwargs))
        return drivers[-1]
    base, span = recent_range()
    lines = Lines(topic, base)
    try:
        yield Changed(admin, job, topic, base, span, lines, counted_then_rules_changed(admin, job, topic, start, lines))
    finally:
        for driver in drivers:
            driver.kill()
        kafka_admin.delete_topic(topic)


def test_a_recount_swaps_in_the_new_rules_while_the_job_commits_the_range(changed, spark):
    admin, job, topic, base, span, lines, live = (changed.admin, changed.job, changed.topic, changed.base, changed.span,
                                                  changed.lines, changed.live)

    # Under other rules than the job's: refused, nothing changed.
    with pytest.raises(Refused) as refused:
        Recount(recount_config(job, topic, **OLD), spark).run(span, False, int(time.time()) // 60)
    assert refused.value.exit_code == EXIT_CONFIG and "ERROR_LEVELS" in refused.value.message
    assert error_log(admin) == lines.errors({"ERROR"})

    # Rejects by the minute of their Kafka timestamp (each record's is its line's time here): as the
    # job counted them; then made wrong, as rules that rejected other records would have left them
    assert +rejected_minutes(admin, job) == lines.rejects()
    query(admin, "UPDATE rejected_minutes SET rejected = rejected + 5 WHERE job = %s", (job,))
    stale = set(rejected_minutes(admin, job))

    printed: list[str] = []
    recount = Recount(changed.config(RECOUNT_CHUNK_MINUTES="3"), spark, print_out=printed.append)
    read = recount.counter.aggregate

    def read_then_the_job_commits_more(spans):
        """The recount has planned and read; the live job now commits more records of the range
        (once: later reads are the recount's own, of what the job committed meanwhile)."""
        grouped = read(spans)
        if not lines.written[400:]:
            grouped.count()
            lines.write(300, seed=2)
            catch_up(admin, job, topic, live)
        return grouped
    recount.counter.aggregate = read_then_the_job_commits_more
    assert recount.run(span, False, int(time.time()) // 60) == 0

    new_levels = {"ERROR", "FATAL"}
    first_part = slice(0, 400)
    later_part = slice(400, None)
    expected = (in_range(lines.errors(new_levels), span, base)  # the range: every record under the new rules
                + in_range(lines.errors({"ERROR"}, first_part), span, base, inside=False)  # outside: as counted
                + in_range(lines.errors(new_levels, later_part), span, base, inside=False))
    assert error_log(admin) == expected
    assert in_range(error_log(admin, column="line_count"), span, base) == in_range(lines.lines(), span, base)
    series = in_range(series_counts(admin, job, "level"), span, base)
    assert +series == in_range(lines.series(new_levels, errors=True), span, base)
    assert in_range(series_totals(admin, job), span, base) == in_range(error_log(admin), span, base)

    ledger = query(admin, "SELECT first_minute, end_minute, offsets_to, errors_after FROM recounts WHERE job = %s "
                          "ORDER BY first_minute", (job,))
    assert [(a.strftime("%H:%M"), b.strftime("%H:%M")) for a, b, _to, _n in ledger] == [
        ((base + timedelta(minutes=m)).strftime("%H:%M"), (base + timedelta(minutes=min(m + 3, 10))).strftime("%H:%M"))
        for m in (0, 3, 6, 9)]
    assert sum(n for *_head, n in ledger) == sum(in_range(lines.errors(new_levels), span, base).values())
    assert printed[0].splitlines()[-1] == "10 of 10 minutes change"  # lines counted now, FATAL lines added
    # The range's rejects recounted, the job's committed during the recount once; outside, as they were
    rejects = rejected_minutes(admin, job)
    assert +in_range(rejects, span, base) == in_range(lines.rejects(), span, base)
    assert in_range(rejects, span, base, inside=False) == in_range(
        lines.rejects() + Counter({minute: 5 for minute in stale}), span, base, inside=False)
    in_range_before = sum(in_range(lines.rejects(), span, base).values()) + 5 * len(in_range(Counter(stale), span, base))
    in_range_after = sum(in_range(lines.rejects(), span, base).values())
    assert printed[0].splitlines()[-2].split()[:3] == ["rejects", str(in_range_before), str(in_range_after)]
    kept = query(admin, "SELECT SUM(rejects_before), SUM(rejects_after) FROM recounts WHERE job = %s", (job,))
    assert [(int(b), int(a)) for b, a in kept] == [(in_range_before, in_range_after)]  # the ledger keeps them too

    # A dry run afterwards: the range already holds what the rules count.
    shown: list[str] = []
    assert Recount(changed.config(), spark, print_out=shown.append).run(span, True, changed.now()) == 0
    assert shown[0].splitlines()[-1] == "0 of 10 minutes change"


def rejected_minutes(admin, job: str) -> Counter:
    """The job's rejects per minute of their Kafka timestamp (every topic), as rejected_minutes holds them."""
    return Counter({at.strftime("%Y-%m-%d %H:%M:00"): int(n) for at, n in query(
        admin, "SELECT log_time, SUM(rejected) FROM rejected_minutes WHERE job = %s GROUP BY log_time", (job,))})


def refused(changed: "Changed", spark, span: Range | None = None, **settings: str) -> JobStop:
    """The JobStop a recount of `span` (the module's range) under NEW and `settings` ends with; the
    counts are checked unchanged."""
    before = error_log(changed.admin), query(changed.admin, "SELECT COUNT(*) FROM recounts WHERE job = %s", (changed.job,))
    with pytest.raises(JobStop) as stopped:
        Recount(changed.config(**settings), spark).run(span or changed.span, False, changed.now())
    assert (error_log(changed.admin), query(changed.admin, "SELECT COUNT(*) FROM recounts WHERE job = %s",
                                            (changed.job,))) == before
    return stopped.value


def test_refusals_say_why_and_change_nothing(changed, spark):
    # Another recount of the job holds its lock: this one is refused at once.
    conn = job_connection()
    try:
        RecountStore(conn, changed.job, "error_log", None, "another").hold_lock()  # type: ignore[arg-type]
        assert "another recount" in refused(changed, spark).message
    finally:
        conn.close()
    future = Range(changed.now() + 5, changed.now() + 10)
    assert refused(changed, spark, future).exit_code == EXIT_CONFIG
    # Per-series rows older than SERIES_RETENTION_DAYS are pruned: a range before that is refused.
    stale = Range(changed.now() - 3 * 1440, changed.now() - 3 * 1440 + 10)
    assert "SERIES_RETENTION_DAYS" in refused(changed, spark, stale, SERIES_RETENTION_DAYS="1").message
    # A copied config naming another counts table than the job's (one that exists).
    query(changed.admin, "CREATE TABLE IF NOT EXISTS error_log_copy LIKE error_log")
    try:
        assert "does not write COUNTS_TABLE error_log_copy" in refused(changed, spark, COUNTS_TABLE="error_log_copy").message
    finally:
        query(changed.admin, "DROP TABLE error_log_copy")
    # Another job adds into the counts table.
    query(changed.admin, "INSERT INTO counts_tables (counts_table, job, shared) VALUES ('error_log', %s, TRUE)",
          (changed.job + "-other",))
    try:
        assert "SHARE_COUNTS_TABLE" in refused(changed, spark).message
    finally:
        query(changed.admin, "DELETE FROM counts_tables WHERE job = %s", (changed.job + "-other",))


def test_records_gone_from_kafka_refuse_the_range_with_exit_4(changed, spark):
    ends = kafka_admin.end_offsets(changed.topic)
    kafka_admin.delete_records(changed.topic, {0: ends[0] // 2})  # as retention would
    stopped = refused(changed, spark)
    assert stopped.exit_code == EXIT_DATA_LOSS and f"{changed.topic}-0" in stopped.message
    assert "retention" in stopped.message and "Nothing was changed" in stopped.message
