"""Watching a real running driver: its Prometheus endpoint scraped over HTTP against MySQL, the
lag in its batch lines, and the committed offsets mirrored to a Kafka consumer group as Kafka's
own kafka-consumer-groups tool and the admin API see them, also while a live consumer in that
group makes the broker refuse the writes. One driver serves every check."""

import hashlib
import json
import re
import subprocess
from datetime import datetime

import pytest
from confluent_kafka import Consumer

from errorcount.observe import logline
from errorcount.tools import kafka_admin, produce, samples
from tests.support import (
    ROOT,
    catch_up,
    error_log,
    free_port,
    group_offsets,
    ledger,
    query,
    scrape,
    stored_offsets,
    unique,
    wait_until,
)

pytestmark = [pytest.mark.slow]


def describe(group: str) -> dict[int, tuple[int, int]]:
    """kafka-consumer-groups --describe from the broker's own jars: {partition: (offset, lag)}."""
    lib = subprocess.run([str(ROOT / "scripts" / "jars.sh"), "kafka"], check=True, capture_output=True,
                         text=True).stdout.strip()
    out = subprocess.run(["java", "-Xmx256m", "-cp", f"{lib}/*", "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                          "--bootstrap-server", kafka_admin.bootstrap(), "--describe", "--group", group],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    rows = [line.split() for line in out.splitlines() if line.startswith(group + " ")]
    return {int(r[2]): (int(r[3]), int(r[5])) for r in rows}  # GROUP TOPIC PARTITION CURRENT END LAG ...


def test_metrics_lag_and_the_mirrored_group_match_mysql(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job, port = make_topic(partitions=2), unique("job"), free_port()
    writer = produce.Writer(topic, 2)
    first = samples.generate("app", 2000, 3, datetime(2036, 2, 1), 20)
    writer.write(first)
    # GROUP_BY with WARN lines counted too and room for one series: the other overflows.
    driver = start_driver(job, topic, env={"METRICS_PORT": str(port), "GROUP_BY": "level", "ERROR_LEVELS": "ERROR,WARN",
                                           "MAX_SERIES": "1"})
    catch_up(admin, job, topic, driver)
    second = samples.generate("app", 500, 4, datetime(2036, 2, 1), 20)
    writer.write(second, first_index=len(first))  # a second batch: its commit knows the first's end offsets
    catch_up(admin, job, topic, driver)
    group, stored = f"errorcount-{job}", stored_offsets(admin, job, topic)

    wait_until(lambda: group_offsets(group, topic, 2) == stored, 60, "the mirrored group to hold MySQL's offsets")
    assert describe(group) == {p: (o, 0) for p, o in stored.items()}
    batches, records, errors, rejected = ledger(admin, job)
    metrics = scrape(f"127.0.0.1:{port}")
    label = f'job_name="{job}"'
    assert metrics[("errorcount_batches_total", label)] == batches
    assert metrics[("errorcount_records_total", label)] == records == len(first) + len(second)
    assert metrics[("errorcount_error_lines_total", label)] == errors == sum(error_log(admin).values())
    # COUNT_LINES off: no line counted, so no ERROR line for the burn-rate rules' ratio either
    assert metrics[("errorcount_lines_total", label)] == metrics[("errorcount_ratio_error_lines_total", label)] == 0
    assert metrics[("errorcount_rejected_records_total", label)] == rejected
    for partition, offset in stored.items():
        assert metrics[("errorcount_committed_offset", f'{label},partition="{partition}",topic="{topic}"')] == offset
        assert metrics[("errorcount_lag_records", f'{label},partition="{partition}",topic="{topic}"')] == 0
    assert metrics[("errorcount_lag_mirror_failures_total", label)] == 0
    assert metrics[("errorcount_epoch", label)] == 1
    assert metrics[("errorcount_trigger_interval_seconds", label)] == 1  # TRIGGER_INTERVAL, as the stall alerts read it
    assert (metrics[("errorcount_series", label)], metrics[("errorcount_series_limit", label)]) == (1, 1)
    overflow = query(admin, "SELECT SUM(overflow_lines) FROM ingest_batches WHERE job = %s", (job,))[0][0]
    assert metrics[("errorcount_overflow_lines_total", label)] == int(overflow) > 0
    assert query(admin, "SELECT metrics_endpoint FROM job_leases WHERE job = %s", (job,)) == [(f"127.0.0.1:{port}",)]
    digest, rules = query(admin, "SELECT rules_digest, rules FROM job_leases WHERE job = %s", (job,))[0]
    assert digest == hashlib.sha256(rules.encode("utf-8")).hexdigest()
    assert {k: json.loads(rules)[k] for k in ("GROUP_BY", "ERROR_LEVELS", "MAX_SERIES", "LOG_FORMAT")} == {
        "GROUP_BY": "level", "ERROR_LEVELS": "ERROR,WARN", "MAX_SERIES": "1", "LOG_FORMAT": "app"}
    exported = {name for name, _labels in metrics}
    for path in ("conf/prometheus/alerts.yml", "conf/grafana/dashboards/errorcount.json"):
        used = set(re.findall(r"\berrorcount_[a-z_]+", (ROOT / path).read_text(encoding="utf-8")))
        assert used and used <= exported, f"{path} names series the job does not export: {used - exported}"
    last = logline.parse(driver.log())[-1]
    assert last.fields["lag"] == "0" and float(last.fields["lag_s"]) >= 0

    # A live consumer in the group: the broker refuses the mirror's writes; batches go on.
    member = Consumer({"bootstrap.servers": kafka_admin.bootstrap(), "group.id": group, "enable.auto.commit": False})
    member.subscribe([topic])
    try:
        wait_until(lambda: member.poll(0.5) is not None or bool(member.assignment()), 60, "the consumer to join")
        third = samples.generate("app", 300, 5, datetime(2036, 2, 1), 20)
        writer.write(third, first_index=len(first) + len(second))
        catch_up(admin, job, topic, driver)
        wait_until(lambda: scrape(f"127.0.0.1:{port}")[("errorcount_lag_mirror_failures_total", label)] > 0, 60,
                   "the refused mirror write to be counted")
        assert ledger(admin, job)[1] == len(first) + len(second) + len(third)
        assert "lag mirror: writing the committed offsets" in driver.log()
    finally:
        member.close()
    assert driver.stop() == 0
