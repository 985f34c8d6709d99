"""Each LOG_FORMAT through the real broker: realistic samples (errorcount/tools/samples.py, whose
expectations are computed there with plain datetimes) plus hand-labelled bad records, two jobs
of different formats at once, each into its own COUNTS_TABLE created by `make schema`'s script,
and a third job on one of those topics keeping its own dead letters. One set of drivers serves
every check."""

from collections import Counter
from datetime import datetime

import pytest

from errorcount import store
from errorcount.errors import ConfigError
from errorcount.tools import produce, samples
from tests.harness.admin_db import drop_counts_table
from tests.support import catch_up, error_log, job_connection, ledger, local_stack, make_schema, query, unique

# MariaDB only: what this tests is Kafka's and the classifier's side; every statement it makes
# runs on MySQL 8 too (test_sql_warnings, test_store_edges), docs/testing.md.
pytestmark = pytest.mark.slow

BIG = b"x" * 500_000
DEEP = b"[" * 100_000 + b"]" * 100_000  # far past Jackson's default nesting limit of 1000
ACCESS_BAD = [  # (value, reason)
    (b'h - - [10/Oct/2035:13:55:36 -0700] "' + BIG + b'" 503 0', None),  # a 500 KB request still counts
    (b'h - - [10/Oct/2035:13:55:36 -0700] "GET" 503 0 ' + BIG, None),
    (b"h - - " + BIG, "bad_access_line"),
    (bytes(range(256)), "bad_access_line"),
    (b'h - - [10/Oct/2035:13:55:36 -0700] "GET" 600 0', "bad_status"),
    (b'h - - [29/Feb/2035:13:55:36 -0700] "GET" 503 0', "impossible_date"),
    (b'h - - [31/Dec/0999:13:55:36 -0700] "GET" 503 0', "minute_out_of_range"),
    (None, "null_value"),
    (b"\r\n", "empty_line"),
]
JSON_BAD = [
    (b'{"level": "ERROR", "ts": 2074859736, "deep": ' + DEEP + b"}", None),  # 2035-10-01 13:55 UTC
    (b'{"level": "ERROR", "ts": 2074859736, "blob": "' + BIG + b'"}', None),
    (b'{"level": "ERROR", "ts": 2074859736, "deep": ' + DEEP[:-1] + b"}", "bad_json"),
    (b'{"level": "ERROR", "ts": ' + b"9" * 400_000 + b"}", "minute_out_of_range"),
    (b'{"level": "ERROR", "ts": 1e999999999999999999}', "minute_out_of_range"),
    (b'{"level": ' + b"1" * 300_000 + b', "ts": 2074859736}', None),  # a huge numeric level, not an error
    (b'{"level": "ERROR", "ts": "2035-02-29T10:00:00Z"}', "impossible_date"),
    (b'{"level": "ERROR"}', "bad_timestamp"),
    (b'{"ts": 2074859736, "level": false}', "bad_level"),
    (bytes(range(256)), "bad_json"),
    (None, "null_value"),
    (b" \n", "empty_line"),
]
BAD_MINUTES = {"access": "2035-10-10 20:55:00", "json": "2035-10-01 13:55:00"}


def events_of(log_format: str, bad: list[tuple], seed: int) -> list[samples.Event]:
    events = samples.generate(log_format, 4000, seed, datetime(2035, 6, 1), 90)
    return events + [samples.Event(value, None if reason else BAD_MINUTES[log_format] if log_format == "access"
                                   or b'"ERROR"' in value else None, reason is not None) for value, reason in bad]


def expected_errors(events: list[samples.Event]) -> dict[str, int]:
    return dict(Counter(e.error_minute for e in events if e.error_minute))


@pytest.fixture
def counts_tables(admin):
    tables = {"access": unique("access_counts").replace("-", "_"), "json": unique("json_counts").replace("-", "_")}
    yield tables
    for table in tables.values():
        drop_counts_table(admin, table)
        query(admin, "DELETE FROM counts_tables WHERE counts_table = %s", (table,))


def test_each_format_counts_exactly_into_its_own_table(admin, counts_tables, make_topic, start_driver):
    for table in counts_tables.values():
        make_schema(table)
    topics = {log_format: make_topic(partitions=2) for log_format in ("access", "json")}
    events = {"access": events_of("access", ACCESS_BAD, 11), "json": events_of("json", JSON_BAD, 12)}
    jobs = {log_format: unique(f"{log_format}-job") for log_format in topics}
    drivers = {}
    for log_format, topic in topics.items():
        produce.produce(topic, events[log_format])
        env = {**samples.FORMATS[log_format].settings, "COUNTS_TABLE": counts_tables[log_format],
               "SHARE_COUNTS_TABLE": str(log_format == "json").lower()}
        drivers[log_format] = start_driver(jobs[log_format], topic, env=env)
    # A json job reading the access topic, sharing the json job's table on purpose (both set
    # SHARE_COUNTS_TABLE): every record is bad_json, kept as its own dead letters.
    stranger = unique("json-on-access")
    drivers["stranger"] = start_driver(stranger, topics["access"], env={
        "LOG_FORMAT": "json", "COUNTS_TABLE": counts_tables["json"], "DEAD_LETTER_LIMIT": "100000",
        "SHARE_COUNTS_TABLE": "true"})

    for log_format, topic in topics.items():
        catch_up(admin, jobs[log_format], topic, drivers[log_format], timeout=300)
    catch_up(admin, stranger, topics["access"], drivers["stranger"], timeout=300)
    owners = query(admin, "SELECT job, shared FROM counts_tables WHERE counts_table = %s", (counts_tables["json"],))
    assert sorted((job, int(shared)) for job, shared in owners) == sorted([(jobs["json"], 1), (stranger, 1)])

    for log_format in topics:
        assert error_log(admin, counts_tables[log_format]) == expected_errors(events[log_format]), log_format
        rejected = sum(e.rejected for e in events[log_format])
        assert ledger(admin, jobs[log_format])[1:] == (len(events[log_format]),
                                                       sum(expected_errors(events[log_format]).values()), rejected)
        kept = query(admin, "SELECT reason, COUNT(*) FROM rejected_lines WHERE job = %s GROUP BY reason",
                     (jobs[log_format],))
        assert sum(n for _r, n in kept) == rejected, log_format
    for log_format, bad in (("access", ACCESS_BAD), ("json", JSON_BAD)):
        first = len(events[log_format]) - len(bad)
        rows = query(admin, "SELECT kafka_partition, kafka_offset, reason FROM rejected_lines WHERE job = %s",
                     (jobs[log_format],))
        by_index = {int(offset) * 2 + int(partition): reason for partition, offset, reason in rows}
        assert [by_index.get(first + i) for i in range(len(bad))] == [reason for _v, reason in bad], log_format
    stranger_rows = query(admin, "SELECT reason, COUNT(*) FROM rejected_lines WHERE job = %s GROUP BY reason", (stranger,))
    expected = Counter("null_value" if e.value is None else "empty_line" if not e.value.strip(b" \t\r\n")
                       else "bad_json" for e in events["access"])  # no access line is a JSON object
    assert dict(stranger_rows) == dict(expected)
    assert ledger(admin, stranger)[1:] == (len(events["access"]), 0, len(events["access"]))
    assert error_log(admin, counts_tables["json"]) == expected_errors(events["json"])  # the stranger added nothing
    for driver in drivers.values():
        assert driver.stop() == 0


def test_the_job_checks_its_counts_table_at_startup(admin):
    conn = job_connection()
    try:
        database = local_stack()["MYSQL_DATABASE"]
        store.Store(conn, "j", ["t"]).verify_schema(database)  # error_log: there
        with pytest.raises(ConfigError, match=r"lacks table no_such_counts: .*COUNTS_TABLE"):
            store.Store(conn, "j", ["t"], "no_such_counts").verify_schema(database)
    finally:
        conn.close()
