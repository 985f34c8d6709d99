"""GROUP_BY through the real broker and server: each format's per-dimension counts against what the
sample generator wrote (errorcount/tools/samples.py), with COUNT_LINES every line's too (the
error ratio's denominator), the series adding up to the totals every minute in both columns, a
change of GROUP_BY between runs keeping history, and MAX_SERIES reached mid-batch."""

import os
import re
import subprocess
import sys
from collections import Counter
from datetime import datetime

import pytest

from errorcount.tools import produce, report, samples
from tests.harness.admin_db import drop_counts_table, ledger_log_records
from tests.support import ROOT, catch_up, error_log, ledger, make_schema, query, series_counts, series_totals, unique

# MariaDB only: what this tests is Kafka's and the classifier's side; every statement it makes
# runs on MySQL 8 too (test_sql_warnings, test_store_edges), docs/testing.md.
pytestmark = pytest.mark.slow

GROUP_BY = {name: kind.group_by for name, kind in samples.FORMATS.items()}  # every dimension the samples label


def documented_sql(job: str) -> list[str]:
    """The SQL of docs/operations.md's 'Counting by dimension', for `job`: by service, top paths, dropping a GROUP_BY."""
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8").split("## Counting by dimension")[1].split("\n## ")[0]
    return [block.replace("'error-counter'", f"'{job}'") for block in re.findall(r"```sql\n(.*?)```", text, re.DOTALL)]


def expected_series(events: list[samples.Event], group_by: str) -> Counter:
    return Counter(samples.expected_series(events, tuple(group_by.split(","))))


def wanted_lines_of(events: list[samples.Event], group_by: str) -> Counter:
    return Counter(samples.expected_series_lines(events, tuple(group_by.split(","))))


def registry(admin, job: str) -> list[tuple[str, int]]:
    return sorted((dims, int(overflow)) for dims, overflow in
                  query(admin, "SELECT dimensions, overflow FROM error_series WHERE job = %s", (job,)))


@pytest.fixture
def counts_tables(admin):
    tables = {log_format: unique(f"{log_format}_dims").replace("-", "_") for log_format in GROUP_BY}
    yield tables
    for table in tables.values():
        drop_counts_table(admin, table)
        query(admin, "DELETE FROM counts_tables WHERE counts_table = %s", (table,))


def test_each_format_counts_lines_and_errors_by_its_dimensions(admin, counts_tables, make_topic, start_driver, tmp_path,
                                                                monkeypatch):
    events, jobs, drivers, topics = {}, {}, {}, {}
    for seed, (log_format, group_by) in enumerate(GROUP_BY.items()):
        make_schema(counts_tables[log_format])
        topics[log_format] = make_topic(partitions=2)
        # otlp: requests of ~15 log records each, so about as many log records as the others' records
        events[log_format] = samples.generate(log_format, 300 if log_format == "otlp" else 4000, 40 + seed,
                                              datetime(2036, 3, 1), 30)
        produce.produce(topics[log_format], events[log_format])
        jobs[log_format] = unique(f"{log_format}-dims")
        drivers[log_format] = start_driver(jobs[log_format], topics[log_format], env={
            **samples.FORMATS[log_format].settings, "COUNTS_TABLE": counts_tables[log_format], "GROUP_BY": group_by,
            "SINGLE_TASK_MAX_RECORDS": "0", "MAX_OFFSETS_PER_TRIGGER": "1500", "COUNT_LINES": "true"})
    for log_format, group_by in GROUP_BY.items():
        job = jobs[log_format]
        catch_up(admin, job, topics[log_format], drivers[log_format], timeout=300)
        wanted = expected_series(events[log_format], group_by)
        assert series_counts(admin, job, group_by) == wanted, log_format
        total = error_log(admin, counts_tables[log_format])
        assert total == Counter(samples.expected_counts(events[log_format]))
        assert series_totals(admin, job) == total  # every minute: the series add up to the total
        lines = error_log(admin, counts_tables[log_format], "line_count")
        assert lines == Counter(samples.expected_lines(events[log_format])), log_format
        wanted_lines = wanted_lines_of(events[log_format], group_by)
        assert series_counts(admin, job, group_by, "line_count") == wanted_lines, log_format
        assert series_totals(admin, job, "line_count") == lines  # both columns add up
        assert all(total[minute] <= lines[minute] for minute in lines) and total.keys() <= lines.keys()
        # a series with lines and no ERROR line is a series: every line's values are registered
        assert registry(admin, job) == [(group_by, 0)] * len({values for _minute, values in wanted_lines}), log_format
        new_series, overflow = query(admin, "SELECT SUM(new_series), SUM(overflow_lines) FROM ingest_batches WHERE job = %s",
                                     (job,))[0]
        assert (int(new_series), int(overflow)) == (len(registry(admin, job)), 0)
        assert ledger_log_records(admin, job) == samples.expected_log_records(events[log_format]), log_format
    labelled = query(admin, "SELECT value, SUM(log_count) FROM error_counts_by_label WHERE job = %s AND dimension = 'path' "
                            "GROUP BY value HAVING SUM(log_count) > 0", (jobs["access"],))  # the view, as documented
    by_path = Counter()
    for (_minute, (_method, path, _status)), count in expected_series(events["access"], GROUP_BY["access"]).items():
        by_path[path] += count
    assert {value: int(n) for value, n in labelled} == dict(by_path)
    top_paths = query(admin, documented_sql(jobs["access"])[1])  # the minutes are in the future: "today" and on
    got_paths = [(path, int(n)) for path, n in top_paths]
    assert [n for _path, n in got_paths] == sorted((n for _path, n in got_paths), reverse=True)  # biggest first
    assert len(by_path) <= 10 and sorted(got_paths) == sorted(by_path.items())  # every path is in the top 10
    by_service = query(admin, documented_sql(jobs["json"])[0])
    wanted = Counter()
    for (minute, (service, _level)), count in expected_series(events["json"], GROUP_BY["json"]).items():
        wanted[minute, service] += count
    assert Counter({(t.strftime("%Y-%m-%d %H:%M:00"), s): int(n) for t, s, n in by_service}) == wanted
    for driver in drivers.values():
        assert driver.stop() == 0

    # make counts BY=path and make report --by path read the same figures back.
    job_env = {"JOB_NAME": jobs["access"], "COUNTS_TABLE": counts_tables["access"], **samples.FORMATS["access"].settings,
               "GROUP_BY": GROUP_BY["access"], "COUNT_LINES": "false"}  # the ERROR lines' view first
    shown = subprocess.run([sys.executable, "-m", "errorcount.tools.counts"], env={**os.environ, **job_env, "BY": "path",
                           "ROWS": "60"}, check=True, capture_output=True, text=True, timeout=120).stdout
    ranked = sorted(((n, path or "(none)") for path, n in by_path.items()), key=lambda c: (-c[0], c[1]))
    assert shown.splitlines()[-1] == "total: " + ", ".join(f"{path} {n}" for n, path in ranked)
    # With COUNT_LINES it shows every path's requests and 5xx ratio too, with or without a 5xx.
    lines_by_path = Counter()
    for (_minute, (_method, path, _status)), count in wanted_lines_of(events["access"], GROUP_BY["access"]).items():
        lines_by_path[path or "(none)"] += count
    shown = subprocess.run([sys.executable, "-m", "errorcount.tools.counts"], check=True, capture_output=True, text=True,
                           env={**os.environ, **job_env, "BY": "path", "ROWS": "60", "COUNT_LINES": "true"},
                           timeout=120).stdout
    errors_by_path = Counter({path or "(none)": n for path, n in by_path.items()})
    ranked_lines = sorted(lines_by_path, key=lambda path: (-errors_by_path[path], -lines_by_path[path], path))
    assert shown.splitlines()[-1] == "total: " + ", ".join(
        f"{path} {errors_by_path[path]} of {lines_by_path[path]} ({errors_by_path[path] / lines_by_path[path]:.4f})"
        for path in ranked_lines)
    for name, value in job_env.items():
        monkeypatch.setenv(name, value)
    assert report.main(["--since", "2036-03-01T00:00", "--until", "2036-03-01T01:00", "--by", "path",
                        "--out", str(tmp_path)]) == 0
    top = ", ".join(f"{path} {n}" for n, path in ranked[:report.TOP])
    rest = sum(n for n, _path in ranked[report.TOP:])
    assert f"; by path: {top}" + (f", (other values) {rest}" if rest else "") in (tmp_path / "report.html").read_text()


def test_a_new_group_by_keeps_history_and_the_cap_overflows_mid_batch(admin, clean_error_log, make_topic, start_driver):
    topic, job = make_topic(partitions=2), unique("regroup")
    first = samples.generate("json", 2000, 51, datetime(2036, 4, 1), 10)
    produce.produce(topic, first)
    driver = start_driver(job, topic, env={**samples.FORMATS["json"].settings, "GROUP_BY": "level"})
    catch_up(admin, job, topic, driver, timeout=240)
    assert driver.stop() == 0
    levels = expected_series(first, "level")
    assert series_counts(admin, job, "level") == levels
    registered = len({values for _minute, values in levels})

    second = samples.generate("json", 3000, 52, datetime(2036, 4, 1), 10)  # the same minutes, other series
    produce.produce(topic, second)
    cap = registered + 3
    driver = start_driver(job, topic, env={**samples.FORMATS["json"].settings, "GROUP_BY": "level,field:service.name",
                                           "MAX_SERIES": str(cap)})
    catch_up(admin, job, topic, driver, timeout=240)
    assert driver.stop() == 0

    assert series_counts(admin, job, "level") == levels  # history kept as it was counted
    wanted = expected_series(second, "field:service.name,level")
    by_series = Counter()
    for (_minute, values), count in wanted.items():
        by_series[values] += count
    admitted = sorted(by_series, key=lambda values: (-by_series[values], "\x1f".join(values)))[:3]
    got = series_counts(admin, job, "field:service.name,level")
    expected = Counter()
    for (minute, values), count in wanted.items():
        expected[minute, values if values in admitted else (None, None)] += count
    assert got == expected
    assert registry(admin, job) == [("field:service.name,level", 0)] * 3 + [("field:service.name,level", 1)] + \
        [("level", 0)] * registered
    assert series_totals(admin, job) == error_log(admin) == samples.expected_counts(first + second)
    overflow = query(admin, "SELECT SUM(overflow_lines) FROM ingest_batches WHERE job = %s", (job,))[0][0]
    assert int(overflow) == sum(n for (_m, values), n in expected.items() if values == (None, None)) > 0
    assert "counted into the overflow series" in driver.log()
    assert ledger(admin, job)[1:] == (len(first) + len(second), sum(samples.expected_counts(first + second).values()),
                                      sum(e.rejected for e in first + second))
    for statement in documented_sql(job)[2].split(";"):  # an admin drops the old GROUP_BY's series (job stopped)
        if statement.strip():
            query(admin, statement)
    assert registry(admin, job) == [("field:service.name,level", 0)] * 3 + [("field:service.name,level", 1)]
    assert series_counts(admin, job, "level") == Counter() and series_counts(admin, job, "field:service.name,level") == expected
    assert not query(admin, "SELECT * FROM error_series_labels l LEFT JOIN error_series s ON s.series_id = l.series_id "
                            "WHERE s.series_id IS NULL")
