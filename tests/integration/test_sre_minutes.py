"""What an SRE asks of the minutes, through one real driver over two topics (LATENESS 0,
COUNT_LINES, GROUP_BY=level): which complete minutes changed afterwards and by how much
(changed_minutes and make counts CHANGED=1), where each topic is complete (complete_by_topic and
make counts TOPIC=, one topic held back by an open transaction) and the quiet minutes between rows
(make counts' calendar). Every expectation comes from the generator's own count of what this test
wrote (errorcount/tools/samples.py), never from the job's tables."""

import os
import subprocess
import sys
import time
import uuid
from collections import defaultdict
from datetime import UTC, datetime, timedelta

import pytest
from confluent_kafka import Producer

from errorcount.tools import kafka_admin, samples
from tests.support import driver_env, query, unique, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.mysql]
SETTINGS = {"LATENESS": "0", "COUNT_LINES": "true", "GROUP_BY": "level"}


def produce(producer: Producer, topic: str, events: list, stamp: datetime | None = None) -> None:
    """`events` to `topic`, each with the Kafka timestamp `stamp` (UTC) when given."""
    at = {} if stamp is None else {"timestamp": int(stamp.replace(tzinfo=UTC).timestamp() * 1000)}
    for i, event in enumerate(events):
        producer.produce(topic, event.value, partition=i % 2, **at)
    producer.flush(30)


def rejects_of(events: list) -> int:
    return sum(e.rejected for e in samples.outcomes(events))


def stored_lines(admin) -> dict[str, int]:
    admin.commit()
    return {t.strftime("%Y-%m-%d %H:%M:00"): n for t, n in query(admin, "SELECT log_time, line_count FROM error_log")}


def changed(admin, job: str) -> list[tuple]:
    admin.commit()
    return query(admin, "SELECT DATE_FORMAT(log_time, '%%Y-%%m-%%d %%H:%%i:00'), series_id, ledger_id, errors_before, "
                        "errors_after, lines_before, lines_after FROM changed_minutes WHERE job = %s "
                        "ORDER BY series_id, log_time, ledger_id", (job,))


def chains(rows: list[tuple], above_ledger: int = 0) -> dict[tuple[str, int], list[tuple]]:
    """The rows of each (minute, series) in batch order, from batches past `above_ledger`."""
    found: dict[tuple[str, int], list[tuple]] = defaultdict(list)
    for minute, series, ledger, *values in rows:
        if ledger > above_ledger:
            found[minute, series].append(values)
    return found


def counts_tool(job: str, topic: str, **extra: str) -> list[str]:
    return subprocess.run([sys.executable, "-m", "errorcount.tools.counts"], capture_output=True, text=True, timeout=120,
                          check=True, env={**os.environ, **driver_env(job, topic), **SETTINGS, **extra}).stdout.splitlines()


def test_changed_minutes_topic_marks_and_quiet_minutes(clean_error_log, make_topic, start_driver):  # noqa: ARG001
    admin = clean_error_log
    first, second, job = make_topic(partitions=2), make_topic(partitions=2), unique("job")
    plain = Producer({"bootstrap.servers": kafka_admin.bootstrap(), "acks": "all", "linger.ms": 5})
    driver = start_driver(job, f"{first},{second}", env=SETTINGS)
    wait_until(lambda: driver.check_alive() or query(admin, "SELECT 1 FROM counted_through WHERE job = %s AND topic = '' "
                                                            "AND complete_before > UTC_TIMESTAMP() - INTERVAL 5 MINUTE", (job,)),
               120, "a first mark on the empty topics")  # so the first wave's past minutes are complete when counted
    now = datetime.now(UTC).replace(tzinfo=None, second=0, microsecond=0)
    past = samples.generate("app", 800, 21, now - timedelta(minutes=20), 10)     # complete once the mark passes now
    future = samples.generate("app", 200, 22, now + timedelta(minutes=30), 5)    # never complete in this test
    # Kafka timestamps of their own (mid-minute, inside the calendar below): rejected_minutes
    # counts each topic's rejects under them
    stamps = [now - timedelta(minutes=15 - m, seconds=-30) for m in range(3)]
    produce(plain, first, past[:400] + future, stamps[0])
    produce(plain, second, past[400:], stamps[1])
    wave = past + future
    wait_until(lambda: driver.check_alive() or stored_lines(admin) == samples.expected_lines(wave), 180,
               "the first wave to be counted")
    # The first wave's past minutes were complete (the idle topics' mark follows the clock) and
    # read 0 lines before: each changed from 0, through its batches, to the generator's count.
    expected_errors, expected_lines = samples.expected_counts(past), samples.expected_lines(past)
    totals = {key: rows for key, rows in chains(changed(admin, job)).items() if key[1] == 0}
    assert {minute for minute, _series in totals} == set(expected_lines), "only the past minutes changed"
    for (minute, _series), rows in totals.items():
        assert rows[0][0] == rows[0][2] == 0
        assert all(a[1] == b[0] and a[3] == b[2] for a, b in zip(rows, rows[1:], strict=False)), rows
        assert (rows[-1][1], rows[-1][3]) == (expected_errors.get(minute, 0), expected_lines[minute])
    settled = max(ledger for _m, _s, ledger, *_v in changed(admin, job))

    # A late wave into the same minutes, on one topic: each minute's rows start where the first
    # wave left it and end at both waves' count; per level, the series' changes add up to the total's.
    late = samples.generate("app", 300, 23, now - timedelta(minutes=20), 10)
    produce(plain, second, late, stamps[2])
    both = past + late
    wait_until(lambda: driver.check_alive() or stored_lines(admin) == samples.expected_lines(both + future), 180,
               "the late wave to be counted")
    rows = changed(admin, job)
    after_late = chains(rows, settled)
    for minute in samples.expected_lines(late):
        total = after_late[minute, 0]
        assert (total[0][0], total[0][2]) == (expected_errors.get(minute, 0), expected_lines[minute])
        assert (total[-1][1], total[-1][3]) == (samples.expected_counts(both).get(minute, 0),
                                                samples.expected_lines(both)[minute])
        series = [values for (m, s), chain in after_late.items() if m == minute and s for values in chain]
        assert sum(v[1] - v[0] for v in series) == sum(v[1] - v[0] for v in total)
        assert sum(v[3] - v[2] for v in series) == sum(v[3] - v[2] for v in total)
    assert {minute for minute, _s in after_late} == set(samples.expected_lines(late))
    # Rejects per topic and minute of their Kafka timestamp, against the generator's own rejects
    minute_of = {stamp: stamp.replace(second=0) for stamp in stamps}
    wanted_rejects = {(first, minute_of[stamps[0]]): rejects_of(past[:400] + future),
                      (second, minute_of[stamps[1]]): rejects_of(past[400:]), (second, minute_of[stamps[2]]): rejects_of(late)}
    assert all(wanted_rejects.values())
    assert {(t, m): int(n) for t, m, n in query(admin, "SELECT topic, log_time, rejected FROM rejected_minutes WHERE job = %s",
                                               (job,))} == wanted_rejects
    # make counts CHANGED=1 lists every row, newest first
    listed = [line for line in counts_tool(job, first, CHANGED="1", ROWS="100000") if line[:4].isdigit()]
    assert len(listed) == len(rows)
    assert sum("(minute total)" in line for line in listed) == sum(1 for r in rows if r[1] == 0)

    # Completeness per topic: a transaction left open on the second topic holds its mark (and the
    # job's) back, while the first topic's mark moves past a record written after it.
    transactional = Producer({"bootstrap.servers": kafka_admin.bootstrap(), "transactional.id": f"t-{uuid.uuid4().hex}",
                              "transaction.timeout.ms": 300_000})
    transactional.init_transactions(30)
    transactional.begin_transaction()
    transactional.produce(second, past[0].value, partition=0)
    transactional.flush(30)
    opened = time.time()
    produce(plain, first, past[:1], stamps[0])
    wanted_rejects[first, minute_of[stamps[0]]] += rejects_of(past[:1])

    def marks() -> dict[str, tuple[float, bool]]:
        admin.commit()
        return {topic: (float(mark), bool(holds)) for topic, mark, holds in query(
            admin, "SELECT topic, UNIX_TIMESTAMP(complete_before), holds_back_job FROM complete_by_topic WHERE job = %s",
            (job,))}
    wait_until(lambda: driver.check_alive() or marks().get(first, (0, False))[0] > opened + 1, 90,
               "the first topic's mark to pass the open transaction")
    topics = marks()
    job_mark = float(query(admin, "SELECT UNIX_TIMESTAMP(complete_before) FROM counted_through WHERE job = %s AND topic = ''",
                           (job,))[0][0])
    assert topics[second][0] < opened and topics[second][1], topics
    assert job_mark == topics[second][0] and not topics[first][1], (job_mark, topics)
    shown = counts_tool(job, first, TOPIC=second, ROWS="5")
    assert any(line.strip().startswith(second) and "holds the job's mark back" in line for line in shown), shown
    header = next(line for line in shown if line.startswith("error_log"))
    named = datetime.strptime(header.split("complete before ")[1][:19], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    assert abs(named.timestamp() - topics[second][0]) < 1
    transactional.abort_transaction(30)

    # The calendar: from the newest row back, every minute listed; a minute without a row is quiet.
    wanted = samples.expected_lines(both + future + past[:1])
    shown = counts_tool(job, first, ROWS="60")
    listed = [line for line in shown if line[:4].isdigit()]
    oldest, newest = (datetime.strptime(minute, "%Y-%m-%d %H:%M:%S") for minute in (min(wanted), max(wanted)))
    span = int((newest - oldest) / timedelta(minutes=1)) + 1
    assert [line[:16] for line in listed] == [(newest - timedelta(minutes=m)).strftime("%Y-%m-%d %H:%M") for m in range(span)]
    for line in listed:
        minute = line[:16] + ":00"
        cells = line[16:].split()
        if minute in wanted:
            assert int(cells[1]) == wanted[minute] and "quiet" not in line, line
        else:
            assert cells[:3] == ["0", "0", "quiet"], line
        at = datetime.strptime(minute, "%Y-%m-%d %H:%M:%S")
        assert int(cells[3]) == sum(n for (_t, m), n in wanted_rejects.items() if m == at), line
    assert driver.stop() == 0, driver.log()[-3000:]
