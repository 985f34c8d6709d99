"""The real OpenTelemetry Collector (tests/otel/collector, built by scripts/otelcol.sh) tails a log
file with its filelog receiver (a regex parser setting the time, the severity, service.name and
http.route) and ships it through its kafka exporter to two topics, otlp_proto and otlp_json; a job
per topic (LOG_FORMAT=otlp, the documented settings) must count both exactly as the file says,
by minute, by service and route, errors and lines, computed here from the lines written.
Run by `make otel-check` (not in CI: building the Collector takes minutes)."""

import random
import subprocess
from collections import Counter
from datetime import datetime, timedelta

import pytest

from errorcount.tools import kafka_admin
from tests.harness.admin_db import drop_counts_table
from tests.support import ROOT, catch_up, error_log, make_schema, query, series_counts, unique, wait_until

GROUP_BY = "attr:http.route,resource:service.name"  # canonical
SERVICES = ("checkout", "payments", "caf\u00e9-api")
ROUTES = ("/api/orders", "/health", "")
LEVELS = {"ERROR": True, "error": True, "FATAL": True, "WARN": False, "INFO": False, "DEBUG": False}
CONFIG = """
receivers:
  filelog:
    include: [{log}]
    start_at: beginning
    operators:
      - type: regex_parser
        regex: '^(?P<time>\\S+) (?P<sev>\\S+) service=(?P<service>\\S+) route=(?P<route>\\S*) (?P<msg>.*)$'
        timestamp:
          parse_from: attributes.time
          layout_type: gotime
          layout: '2006-01-02T15:04:05.000Z07:00'
        severity:
          parse_from: attributes.sev
      - type: move
        from: attributes.service
        to: resource["service.name"]
      - type: move
        from: attributes.route
        to: attributes["http.route"]
processors:
  batch:
    send_batch_size: 200
    timeout: 200ms
exporters:
  kafka/proto:
    brokers: ["{bootstrap}"]
    logs:
      topic: {proto}
      encoding: otlp_proto
  kafka/json:
    brokers: ["{bootstrap}"]
    logs:
      topic: {json}
      encoding: otlp_json
service:
  pipelines:
    logs:
      receivers: [filelog]
      processors: [batch]
      exporters: [kafka/proto, kafka/json]
  telemetry:
    metrics:
      level: none
"""


def write_log(path, count: int) -> tuple[Counter, Counter, Counter]:
    """The log file, and what it counts: errors and lines per minute, errors per (minute, series)."""
    rng = random.Random(45)
    start = datetime(2037, 5, 1, 8, 0)
    errors, lines, series = Counter(), Counter(), Counter()
    with open(path, "w", encoding="utf-8") as log:
        for _ in range(count):
            instant = start + timedelta(milliseconds=rng.randrange(40 * 60_000))
            level, service, route = rng.choice(list(LEVELS)), rng.choice(SERVICES), rng.choice(ROUTES)
            zone = rng.choice(("Z", "+02:00", "-05:30"))
            offset = timedelta(0) if zone == "Z" else (1 if zone[0] == "+" else -1) * timedelta(
                hours=int(zone[1:3]), minutes=int(zone[4:6]))
            local = instant + offset
            log.write(f"{local:%Y-%m-%dT%H:%M:%S}.{local.microsecond // 1000:03d}{zone} {level} service={service} "
                      f"route={route} request {rng.randrange(10**6)}\n")
            minute = instant.strftime("%Y-%m-%d %H:%M:00")
            lines[minute] += 1
            if LEVELS[level]:
                errors[minute] += 1
                series[minute, (route, service)] += 1
    return errors, lines, series


@pytest.fixture
def counts_tables(admin):
    tables = {encoding: unique(f"otel_{encoding}").replace("-", "_") for encoding in ("proto", "json")}
    yield tables
    for table in tables.values():
        drop_counts_table(admin, table)
        query(admin, "DELETE FROM counts_tables WHERE counts_table = %s", (table,))


def test_the_collectors_topics_in_both_encodings_count_as_the_file_says(admin, counts_tables, make_topic, start_driver,
                                                                       tmp_path):
    binary = subprocess.run([str(ROOT / "scripts" / "otelcol.sh")], capture_output=True, text=True, check=True,
                            timeout=1800).stdout.strip()
    topics = {encoding: make_topic(partitions=2) for encoding in ("proto", "json")}
    errors, lines, series = write_log(tmp_path / "app.log", 3000)
    config = tmp_path / "collector.yaml"
    config.write_text(CONFIG.format(log=tmp_path / "app.log", bootstrap=kafka_admin.bootstrap(), **topics))
    jobs, drivers = {}, {}
    for encoding, topic in topics.items():
        make_schema(counts_tables[encoding])
        jobs[encoding] = unique(f"otel-{encoding}")
        drivers[encoding] = start_driver(jobs[encoding], topic, env={
            "LOG_FORMAT": "otlp", "GROUP_BY": GROUP_BY, "COUNT_LINES": "true", "COUNTS_TABLE": counts_tables[encoding]})
    with open(tmp_path / "collector.out", "wb") as out:
        collector = subprocess.Popen([binary, "--config", f"file:{config}"], stdout=out, stderr=subprocess.STDOUT)

        def counted(table: str, encoding: str) -> bool:
            drivers[encoding].check_alive()
            assert collector.poll() is None, (f"the Collector exited with {collector.returncode}:\n"
                                              + (tmp_path / "collector.out").read_text(errors="replace")[-3000:])
            return sum(error_log(admin, table, "line_count").values()) >= sum(lines.values())
        try:
            for encoding, table in counts_tables.items():
                wait_until(lambda t=table, e=encoding: counted(t, e), 300, f"the {encoding} job to count the file's lines")
        finally:
            collector.terminate()
            collector.wait(60)
    for encoding, topic in topics.items():
        catch_up(admin, jobs[encoding], topic, drivers[encoding])
        assert error_log(admin, counts_tables[encoding]) == errors, encoding
        assert error_log(admin, counts_tables[encoding], "line_count") == lines, encoding
        assert series_counts(admin, jobs[encoding], GROUP_BY) == series, encoding
        records = query(admin, "SELECT SUM(records), SUM(log_records) FROM ingest_batches WHERE job = %s", (jobs[encoding],))
        assert int(records[0][1]) == sum(lines.values()) and 0 < int(records[0][0]) < sum(lines.values())
        assert drivers[encoding].stop() == 0
