"""The recount against the real Kafka and SQL server, with a real job running: the rules change
(ERROR_LEVELS gains FATAL, GROUP_BY and COUNT_LINES come on), the job restarts under them, and a
past range is recounted while the job keeps committing new records of that very range. Every
expectation is a plain-Python count of the lines the test wrote."""

import time
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest

from errorcount.config.load import load_config
from errorcount.errors import EXIT_CONFIG
from errorcount.recount.plan import Range
from errorcount.recount.run import Recount, Refused
from errorcount.tools import produce
from tests.support import (
    app_password,
    catch_up,
    driver_env,
    error_log,
    query,
    series_counts,
    series_totals,
    stored_offsets,
    unique,
    wait_until,
)

pytestmark = pytest.mark.mysql

LEVELS = ("ERROR", "FATAL", "WARN", "INFO", "fatal", "error", "DEBUG")
OLD = {"ERROR_LEVELS": "ERROR"}
NEW = {"ERROR_LEVELS": "ERROR,FATAL", "GROUP_BY": "level", "COUNT_LINES": "true"}


class Lines:
    """App lines written to the topic, and what each rule set counts of them, per minute."""

    def __init__(self, topic: str, base: datetime):
        self.topic, self.base = topic, base
        self.written: list[tuple[str, str | None]] = []  # (minute, level); level None: a reject

    def write(self, count: int, seed: int) -> None:
        writer = produce.Writer(self.topic)
        for i in range(count):
            n = seed * 7919 + i
            minute = self.base + timedelta(minutes=n % 14 - 2)  # two minutes before the range to two after
            if n % 23 == 0:
                writer.send(b"\xff not a line", i)
                self.written.append((minute.strftime("%Y-%m-%d %H:%M:00"), None))
                continue
            level = LEVELS[n % len(LEVELS)]
            stamp = (minute + timedelta(seconds=n % 60)).strftime("%Y-%m-%dT%H:%M:%SZ")
            writer.send(f"{stamp} {level} request {n}".encode(), i)
            self.written.append((minute.strftime("%Y-%m-%d %H:%M:00"), level))
        writer.flush()

    def errors(self, levels: set[str], part: slice = slice(None)) -> Counter:
        return Counter(m for m, level in self.written[part] if level and level.upper() in levels)

    def lines(self) -> Counter:
        return Counter(m for m, level in self.written if level)

    def series(self, levels: set[str], errors: bool) -> Counter:
        return Counter((m, (level.upper(),)) for m, level in self.written
                       if level and (not errors or level.upper() in levels))


def recount_config(job: str, topic: str, **settings: str):
    return load_config([], {**driver_env(job, topic), "MYSQL_PASSWORD": app_password(), **settings})


def in_range(counts: Counter, span: Range, base: datetime, inside: bool = True) -> Counter:
    first = base.strftime("%Y-%m-%d %H:%M:00")
    end = (base + timedelta(minutes=span.end - span.first)).strftime("%Y-%m-%d %H:%M:00")
    return Counter({k: v for k, v in counts.items() if (first <= (k if isinstance(k, str) else k[0]) < end) == inside})


def test_a_recount_swaps_in_the_new_rules_while_the_job_commits_the_range(clean_error_log, make_topic, start_driver, spark):
    admin = clean_error_log
    topic, job = make_topic(2), unique("recount")
    base = datetime.now(UTC).replace(tzinfo=None, second=0, microsecond=0) - timedelta(hours=3)
    first_minute = (base - datetime(1970, 1, 1)) // timedelta(minutes=1)
    span = Range(first_minute, first_minute + 10)
    # Written before the job's first start, which begins at the end (STARTING_OFFSETS=latest): never
    # counted by the job, so never by a recount either, though Kafka holds them and they are in the range.
    Lines(topic, base).write(100, seed=0)
    first = start_driver(job, topic, env={**OLD, "STARTING_OFFSETS": "latest"})
    wait_until(lambda: stored_offsets(admin, job, topic) or first.check_alive(), 120, "the job's first start")
    lines = Lines(topic, base)
    lines.write(400, seed=1)
    catch_up(admin, job, topic, first)
    assert first.stop() == 0
    assert error_log(admin) == lines.errors({"ERROR"})

    live = start_driver(job, topic, env=NEW)
    wait_until(lambda: "FATAL" in (query(admin, "SELECT rules FROM job_leases WHERE job = %s", (job,))[0][0] or ""),
               120, "the job's restart under the new rules")
    catch_up(admin, job, topic, live)

    # Under other rules than the job's: refused, nothing changed.
    with pytest.raises(Refused) as refused:
        Recount(recount_config(job, topic, **OLD), spark).run(span, False, int(time.time()) // 60)
    assert refused.value.exit_code == EXIT_CONFIG and "ERROR_LEVELS" in refused.value.message
    assert error_log(admin) == lines.errors({"ERROR"})

    printed: list[str] = []
    recount = Recount(recount_config(job, topic, **NEW, RECOUNT_CHUNK_MINUTES="3"), spark, print_out=printed.append)
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

    # A dry run afterwards: the range already holds what the rules count.
    shown: list[str] = []
    assert Recount(recount_config(job, topic, **NEW), spark, print_out=shown.append).run(span, True, int(time.time()) // 60) == 0
    assert shown[0].splitlines()[-1] == "0 of 10 minutes change"
    assert live.stop() == 0
