"""counted_through against a real driver, Kafka and MySQL: while records arrive in waves, a
transaction stays open with a plain record written after it, and the topic falls idle, every
snapshot of MySQL is checked against what this test's producers know independently: each record
acknowledged (acks=all, so readable) before the stored mark lies below the stored offset of its
partition, across a restart of the driver while the transaction is open, the first driver's clock
an hour ahead of the host's. The mark must also move on while the topic is idle, and the minutes
views must tell complete minutes from the rest by it."""

import os
import re
import subprocess
import sys
import threading
import time
import uuid
from datetime import UTC, datetime, timedelta

import pytest
from confluent_kafka import Producer

from errorcount.tools import kafka_admin, samples
from tests.support import admin_connect, driver_env, free_port, query, scrape, served, unique, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.mysql]


class AckedRecords:
    """Records with the partition and offset Kafka gave them and the time their ack arrived here
    (after the broker made them readable)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked: list[tuple[int, int, float]] = []

    def delivered(self, error, message) -> None:
        assert error is None, error
        with self.lock:
            self.acked.append((message.partition(), message.offset(), time.time()))

    def before(self, at_s: float) -> list[tuple[int, int, float]]:
        with self.lock:
            return [r for r in self.acked if r[2] < at_s]


def snapshot(conn, job: str, topic: str) -> tuple[float | None, float | None, dict[int, int]]:
    """The job's and the topic's counted_through (epoch s) and the stored offsets, read in one snapshot."""
    conn.begin()
    try:
        marks = dict(query(conn, "SELECT topic, UNIX_TIMESTAMP(through_at) FROM counted_through WHERE job = %s", (job,)))
        stored = dict(query(conn, "SELECT kafka_partition, next_offset FROM kafka_offsets WHERE job = %s AND topic = %s",
                            (job, topic)))
    finally:
        conn.commit()
    job_mark, topic_mark = marks.get(""), marks.get(topic)
    return (None if job_mark is None else float(job_mark)), (None if topic_mark is None else float(topic_mark)), stored


def never_ahead(conn, job: str, topic: str, records: AckedRecords) -> float | None:
    """Checks one snapshot; returns the job's mark."""
    job_mark, topic_mark, stored = snapshot(conn, job, topic)
    for mark in (job_mark, topic_mark):
        if mark is not None:
            missed = [(p, o) for p, o, _ in records.before(mark) if o >= stored.get(p, 0)]
            assert missed == [], f"counted_through {mark} is ahead: acknowledged records {missed[:5]} are not counted"
    if job_mark is not None and topic_mark is not None:
        assert job_mark <= topic_mark + 0.001  # the job's is the oldest of its topics'
    return job_mark


def test_counted_through_never_runs_ahead_and_moves_on_when_idle(clean_error_log, make_topic, start_driver):  # noqa: ARG001
    admin = admin_connect()  # its own: snapshots are transactions
    admin.autocommit(False)
    topic, job, port = make_topic(partitions=2), unique("job"), free_port()
    records = AckedRecords()
    plain = Producer({"bootstrap.servers": kafka_admin.bootstrap(), "acks": "all", "linger.ms": 5})
    # open across a driver's restart below: well inside the broker's transaction.max.timeout.ms (15 min)
    transactional = Producer({"bootstrap.servers": kafka_admin.bootstrap(), "transactional.id": f"t-{uuid.uuid4().hex}",
                              "transaction.timeout.ms": 600_000})
    transactional.init_transactions(30)
    settings = {"LATENESS": "0", "COUNT_LINES": "true", "GROUP_BY": "level"}
    # The first driver's clock runs an hour ahead (a host with a wrong clock): its marks must follow
    # the SQL server's clock, or every check below sees the mark past records it has not counted.
    driver = start_driver(job, topic, env={"METRICS_PORT": str(port), "ERRORCOUNT_CLOCK_OFFSET_S": "3600", **settings})
    # Lines from 10 minutes ago to 10 minutes ahead: some minutes end before the mark, some after.
    now = datetime.now(UTC).replace(tzinfo=None, second=0, microsecond=0)
    events = samples.generate("app", 3000, 11, now - timedelta(minutes=10), 20)
    marks: list[float] = []

    def check() -> None:
        driver.check_alive()  # a dead driver fails at once, with its log, instead of a timeout
        mark = never_ahead(admin, job, topic, records)
        if mark is not None and (not marks or mark > marks[-1]):
            marks.append(mark)

    wait_until(lambda: (check() or True) and marks, 120, "a first counted_through on the empty topic")
    for wave in range(6):  # waves of plain records while the job counts the ones before
        for i, event in enumerate(events[wave * 500:(wave + 1) * 500]):
            plain.produce(topic, event.value, partition=i % 2, on_delivery=records.delivered)
        plain.flush(30)
        deadline = time.time() + 1.5
        while time.time() < deadline:
            check()
    waves_acked = max(at for _p, _o, at in records.before(time.time()))
    wait_until(lambda: (check() or True) and marks[-1] > waves_acked, 120, "counted_through to pass the waves")
    # A transaction left open, then a plain record after it on the same partition: under
    # read_committed the job cannot read past the open transaction, so the mark must wait for it.
    transactional.begin_transaction()
    in_transaction: list[int] = []
    transactional.produce(topic, events[0].value, partition=0,
                          on_delivery=lambda error, message: in_transaction.append(message.offset()))
    transactional.flush(30)
    opened = time.time()
    plain.produce(topic, events[1].value, partition=0, on_delivery=records.delivered)
    plain.flush(30)
    held = time.time() + 8
    while time.time() < held:
        check()
    assert marks[-1] < opened, "the mark went past a transaction still open"
    # A restart while the transaction stays open: the new driver exports the mark MySQL holds from
    # its start (a restart is no jump to 0 in a graph or an alert), and its own first observations
    # do not carry the mark past the open transaction either.
    first = scrape(f"127.0.0.1:{port}")  # the first driver's counters: nothing more is readable for it
    assert 3500 < first[("errorcount_clock_skew_seconds", f'job_name="{job}"')] < 3601
    assert driver.stop() == 0, driver.log()[-3000:]
    assert re.search(r"the driver's clock is 3[56]\d\d\.\d s ahead of the SQL server's", driver.log())
    stored_mark = snapshot(admin, job, topic)[0]
    port = free_port()
    driver = start_driver(job, topic, env={"METRICS_PORT": str(port), **settings})
    # 0 (no mark known) keeps waiting, as a driver that does not serve yet does
    exported = wait_until(lambda: served(driver, f"127.0.0.1:{port}", "errorcount_counted_through_seconds",
                                         f'job_name="{job}"'), 120, "the restarted driver to export counted_through")
    assert exported == pytest.approx(stored_mark, abs=0.001)
    held = time.time() + 4
    while time.time() < held:
        check()
    assert marks[-1] < opened, "the restarted driver's mark went past a transaction still open"
    transactional.commit_transaction(30)
    committed = time.time()
    with records.lock:  # readable from its commit on
        records.acked.append((0, in_transaction[0], committed))
    # Idle from here: the heartbeat must carry the mark past everything written.
    wait_until(lambda: (check() or True) and marks and marks[-1] > committed + 1, 90,
               "counted_through to pass the last record while the topic is idle")
    assert len(marks) >= 3  # on the empty topic, past the waves, past the last record

    job_mark, _topic_mark, stored = snapshot(admin, job, topic)
    # the waves, the transaction's record, its commit marker and the plain record after it
    assert sum(stored.values()) == 3000 + 3
    metrics = scrape(f"127.0.0.1:{port}")
    assert metrics[("errorcount_counted_through_seconds", f'job_name="{job}"')] <= job_mark + 0.001
    assert metrics[("errorcount_counted_through_seconds", f'job_name="{job}"')] >= marks[-2]
    assert abs(metrics[("errorcount_clock_skew_seconds", f'job_name="{job}"')]) < 5  # the restarted driver's own clock
    # The minutes' views: LATENESS 0, so a minute is complete once the mark is past its end.
    complete_before = query(admin, "SELECT complete_before FROM counted_through WHERE job = %s AND topic = ''", (job,))[0][0]
    rows = query(admin, "SELECT log_time, log_count, line_count, error_ratio, complete FROM error_log_minutes")
    written = events + [events[0], events[1]]
    assert {r[0].strftime("%Y-%m-%d %H:%M:00"): r[1] for r in rows if r[1]} == samples.expected_counts(written)
    assert {r[0].strftime("%Y-%m-%d %H:%M:00"): r[2] for r in rows if r[2]} == samples.expected_lines(written)
    # the burn-rate rules' two counters (COUNT_LINES on): every ERROR line and every line written
    label = f'job_name="{job}"'

    def both(name: str) -> float:  # the two drivers' counters together
        return first[(name, label)] + metrics[(name, label)]
    assert both("errorcount_lines_total") == sum(samples.expected_lines(written).values())
    assert (both("errorcount_ratio_error_lines_total") == both("errorcount_error_lines_total")
            == sum(samples.expected_counts(written).values()))
    # Lines counted into minutes that already read as complete (LATENESS 0, lines from 10 minutes
    # back): the mark each batch was committed on top of lies between the first mark (stored before
    # the waves) and the last, so the count lies between what those two marks make late.
    def late_by(counts: dict[str, int], mark_s: float) -> int:
        complete_before = datetime.fromtimestamp(mark_s, UTC).replace(tzinfo=None)
        return sum(n for minute, n in counts.items()
                   if datetime.strptime(minute, "%Y-%m-%d %H:%M:%S") + timedelta(minutes=1) <= complete_before)
    for name, counts in (("errorcount_late_error_lines_total", samples.expected_counts(written)),
                         ("errorcount_late_lines_total", samples.expected_lines(written))):
        assert 0 < late_by(counts, marks[0]) <= both(name) <= late_by(counts, job_mark), name
    for log_time, errors, lines, ratio, complete in rows:
        assert bool(complete) == (log_time + timedelta(minutes=1) <= complete_before)
        assert ratio is None if not lines else abs(float(ratio) - errors / lines) < 1e-4
    admin.commit()
    assert 0 < sum(1 for r in rows if r[4]) < len(rows)
    # make counts COMPLETE=1 lists exactly the minutes complete by the mark it names, newest first.
    shown = subprocess.run([sys.executable, "-m", "errorcount.tools.counts"], capture_output=True, text=True, timeout=120,
                           check=True, env={**os.environ, **driver_env(job, topic), "COUNT_LINES": "true", "COMPLETE": "1",
                                            "ROWS": "100"}).stdout.splitlines()
    named = datetime.strptime(shown[0].split("complete before ")[1][:19], "%Y-%m-%d %H:%M:%S")
    assert named >= complete_before.replace(microsecond=0)
    listed = [line[:16] for line in shown if line[:4].isdigit()]
    assert listed == [t.strftime("%Y-%m-%d %H:%M") for t, *_ in sorted(rows, reverse=True)
                      if t + timedelta(minutes=1) <= named]
    assert listed and all(line.endswith("yes") for line in shown if line[:4].isdigit())
    # make counts BY=level COMPLETE=1: per level, the ERROR lines, lines and ratio of exactly the
    # complete minutes, against the generator's own count of each level's lines.
    shown = subprocess.run([sys.executable, "-m", "errorcount.tools.counts"], capture_output=True, text=True, timeout=120,
                           check=True, env={**os.environ, **driver_env(job, topic), **settings, "COMPLETE": "1", "BY": "level",
                                            "ROWS": "100"}).stdout.splitlines()
    named = datetime.strptime(shown[0].split("complete before ")[1][:19], "%Y-%m-%d %H:%M:%S")
    assert named >= complete_before.replace(microsecond=0)
    complete = {minute for minute in samples.expected_lines(written)
                if datetime.strptime(minute, "%Y-%m-%d %H:%M:%S") + timedelta(minutes=1) <= named}
    errors = {(minute[:16], level): n for (minute, (level,)), n in samples.expected_series(written, ("level",)).items()}
    wanted = {(minute[:16], level or "(none)"): (errors.get((minute[:16], level), 0), n)
              for (minute, (level,)), n in samples.expected_series_lines(written, ("level",)).items() if minute in complete}
    got, minute = {}, ""
    for line in shown[2:-1]:
        minute = line[:16].strip() or minute
        value, n_errors, n_lines, ratio, done = line[18:].split()
        got[minute, value] = int(n_errors), int(n_lines)
        assert done == "yes" and ratio == f"{int(n_errors) / int(n_lines):.4f}"
    assert got == wanted and len({minute for minute, _level in got}) == len(complete) > 0
    driver.stop()
    admin.close()
