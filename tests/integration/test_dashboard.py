"""The Grafana dashboard, its data sources, the Prometheus rules and their compose services:
validated here without a Docker engine. The dashboard's structure is checked against what
Grafana's provisioning reads, and every SQL query of the dashboard runs against the real database
as the read-only user sql/grafana_reader.sql creates, with Grafana's time macros expanded the way
its MySQL data source does, on known rows."""

import json
import re
import uuid
from datetime import UTC, datetime, timedelta

import pymysql
import pytest
import yaml

from tests.harness.admin_db import apply_sql_file, drop_counts_table
from tests.support import ROOT, compose_config, local_stack, query, seed_counts_and_ledger

DASHBOARD = json.loads((ROOT / "conf" / "grafana" / "dashboards" / "errorcount.json").read_text(encoding="utf-8"))
PROVISIONED = yaml.safe_load((ROOT / "conf" / "grafana" / "provisioning" / "datasources" / "errorcount.yml")
                             .read_text(encoding="utf-8"))
SOURCES = {source["uid"]: source for source in PROVISIONED["datasources"]}


def targets(kind: str) -> list[dict]:
    return [t for p in DASHBOARD["panels"] for t in p["targets"] if t["datasource"]["type"] == kind]


def test_compose_runs_prometheus_and_grafana_provisioned_with_pinned_images():
    env, text = local_stack(), compose_config()
    services = yaml.safe_load(text)["services"]
    assert services["prometheus"]["image"] == f"prom/prometheus:{env['PROMETHEUS_VERSION']}"
    assert services["grafana"]["image"] == f"grafana/grafana:{env['GRAFANA_VERSION']}"
    mounts = {name: dict(volume.split(":")[1::-1] for volume in services[name]["volumes"])
              for name in ("prometheus", "grafana")}  # {container path: host path}
    prometheus = yaml.safe_load((ROOT / "conf" / "prometheus" / "prometheus.yml").read_text(encoding="utf-8"))
    providers = yaml.safe_load((ROOT / "conf" / "grafana" / "provisioning" / "dashboards" / "errorcount.yml")
                               .read_text(encoding="utf-8"))["providers"]
    # Every path a provisioned file names inside its container is the repo's file mounted there.
    expected = {("prometheus", "/etc/prometheus/prometheus.yml"): "conf/prometheus/prometheus.yml",
                ("grafana", "/etc/grafana/provisioning"): "conf/grafana/provisioning",
                ("grafana", providers[0]["options"]["path"]): "conf/grafana/dashboards",
                **{("prometheus", path): "conf/prometheus/alerts.yml" for path in prometheus["rule_files"]}}
    for (service, inside), repo_path in expected.items():
        assert mounts[service].get(inside) == str(ROOT / repo_path), (service, inside)
    assert "host.docker.internal:host-gateway" in services["prometheus"]["extra_hosts"]
    secret = SOURCES["errorcount-mysql"]["secureJsonData"]["password"]
    assert secret == "$__file{/run/secrets/grafana_reader_password}"  # no password in the repo
    assert {"source": "grafana_reader_password"} in services["grafana"]["secrets"]
    assert "/docker-entrypoint-initdb.d/30-grafana-reader.sh" in text


def test_the_dashboard_has_the_structure_grafana_provisioning_reads():
    assert PROVISIONED["apiVersion"] == 1
    uids = set(SOURCES)
    assert {uid: source["type"] for uid, source in SOURCES.items()} == {
        "errorcount-prometheus": "prometheus", "errorcount-mysql": "mysql"}
    assert DASHBOARD["uid"] and DASHBOARD["title"] and isinstance(DASHBOARD["schemaVersion"], int)
    variables = {v["name"] for v in DASHBOARD["templating"]["list"]}
    assert len({p["id"] for p in DASHBOARD["panels"]}) == len(DASHBOARD["panels"])
    for panel in DASHBOARD["panels"]:
        assert {"id", "type", "title", "gridPos", "targets", "datasource"} <= panel.keys(), panel.get("title")
        assert set(panel["gridPos"]) == {"x", "y", "w", "h"} and panel["gridPos"]["x"] + panel["gridPos"]["w"] <= 24
        assert panel["datasource"]["uid"] in uids and panel["targets"]
        assert len({t["refId"] for t in panel["targets"]}) == len(panel["targets"])
        for target in panel["targets"]:
            assert target["datasource"]["type"] == SOURCES[target["datasource"]["uid"]]["type"]
            text = target.get("rawSql") or target.get("expr")
            assert text, panel["title"]
            assert set(re.findall(r"\$\{?(\w+)\}?", text)) - {"__timeFilter", "__timeGroupAlias"} <= variables
    assert targets("mysql") and targets("prometheus")
    assert SOURCES["errorcount-mysql"]["jsonData"]["timezone"] == "+00:00"  # the job's session zone: UTC keys


def expand(sql: str, start: datetime, end: datetime, table: str, job: str) -> str:
    """Grafana's MySQL data source macros, as it expands them (epoch seconds, FROM_UNIXTIME)."""
    sql = re.sub(r"\$__timeFilter\(([\w.]+)\)",
                 lambda m: f"{m[1]} BETWEEN FROM_UNIXTIME({int(start.timestamp())}) AND FROM_UNIXTIME({int(end.timestamp())})",
                 sql)
    sql = re.sub(r"\$__timeGroupAlias\((\w+), *1m\)",
                 lambda m: f'cast(cast(UNIX_TIMESTAMP({m[1]})/(60) as signed)*60 as signed) AS "time"', sql)
    return sql.replace("${counts_table}", table).replace("$job", job).replace("$dimension", "field:service.name")


@pytest.mark.mysql
def test_every_dashboard_query_runs_as_the_read_only_user_on_known_rows(admin):
    suffix = uuid.uuid4().hex[:8]
    table, job, password = f"dash_{suffix}", f"dash-{suffix}", uuid.uuid4().hex
    database = local_stack()["MYSQL_DATABASE"]
    apply_sql_file(admin, "counts_table.sql", COUNTS_TABLE=table)
    apply_sql_file(admin, "grafana_reader.sql", READER_PASSWORD=password, MYSQL_DATABASE=database, COUNTS_TABLE=table)
    base = datetime(2036, 3, 1, 12, 0)
    counts = {base + timedelta(minutes=m): 3 * m + 1 for m in range(10)}
    # Ledger rows of two topics (a batch of a job reading several writes one per topic).
    batches = [(base + timedelta(minutes=m // 3, seconds=10 * (m % 3)), m % 4, "t" if m % 5 else "u") for m in range(24)]
    services = [f"svc{i:02d}" for i in range(14)] + [None]  # None: the overflow series
    by_service = {(base + timedelta(minutes=m), service): (i * 7 + m) % 9 + 1 for m in range(10)
                  for i, service in enumerate(services) if (i + m) % 3}
    try:
        seed_counts_and_ledger(admin, table, counts, job, batches)
        seed_series(admin, job, by_service)
        # Lines beside the errors, the table claimed by the job, and its counted_through: minutes
        # ending at or before base + 5 min are complete.
        query(admin, f"UPDATE `{table}` SET line_count = 4 * log_count + 2")
        query(admin, "INSERT INTO counts_tables (counts_table, job, shared) VALUES (%s, %s, FALSE)", (table, job))
        query(admin, "INSERT INTO counted_through (job, topic, through_at, complete_before) VALUES (%s, '', %s, %s)",
              (job, base + timedelta(minutes=7), base + timedelta(minutes=5)))
        reader = pymysql.connect(host="127.0.0.1", port=int(local_stack()["MYSQL_PORT"]),
                                 user=SOURCES["errorcount-mysql"]["user"], password=password, database=database,
                                 init_command="SET time_zone = '+00:00'")
        start, end = (base + timedelta(minutes=2)).replace(tzinfo=UTC), (base + timedelta(minutes=6)).replace(tzinfo=UTC)
        results = []
        with reader.cursor() as cursor:
            for target in targets("mysql"):
                cursor.execute(expand(target["rawSql"], start, end, table, job))
                results.append(cursor.fetchall())
            [variable] = [v for v in DASHBOARD["templating"]["list"] if v["name"] == "dimension"]
            cursor.execute(expand(variable["query"], start, end, table, job))
            assert cursor.fetchall() == (("field:service.name",), ("level",))
            with pytest.raises(pymysql.err.OperationalError):  # read-only: no writes
                cursor.execute(f"DELETE FROM `{table}`")
            for private in ("job_leases", "kafka_offsets", "counts_tables", "skipped_offsets"):  # hosts, pids, offsets
                with pytest.raises(pymysql.err.OperationalError, match="denied"):
                    cursor.execute(f"SELECT * FROM `{private}`")
        reader.close()
        in_range = lambda t: start.replace(tzinfo=None) <= t <= end.replace(tzinfo=None)  # noqa: E731
        assert [(t, n) for t, n in results[0]] == [(t, n) for t, n in sorted(counts.items()) if in_range(t)]
        per_minute: dict[int, list[int]] = {}
        per_topic: dict[tuple[int, str], int] = {}
        for committed_at, rejected, topic in batches:
            if in_range(committed_at):
                stamp = int(committed_at.replace(tzinfo=UTC).timestamp()) // 60 * 60
                per_minute.setdefault(stamp, []).append(rejected)
                per_topic[stamp, topic] = per_topic.get((stamp, topic), 0) + 10
        assert [(int(t), int(r), int(b)) for t, r, b in results[2]] == [
            (t, sum(v), len(v)) for t, v in sorted(per_minute.items())]
        # rejects by the minute of their Kafka timestamp (rejected_minutes: seeded at each batch's minute of commit)
        by_kafka_minute: dict[int, int] = {}
        for committed_at, rejected, _topic in batches:
            minute = committed_at.replace(second=0)
            if in_range(minute):
                stamp = int(minute.replace(tzinfo=UTC).timestamp())
                by_kafka_minute[stamp] = by_kafka_minute.get(stamp, 0) + rejected
        assert [(int(t), int(r)) for t, r in results[3]] == sorted(by_kafka_minute.items())
        assert sum(by_kafka_minute.values()) > sum(sum(v) for v in per_minute.values())  # a minute's batches past the range's end
        assert [(int(t), m, int(n)) for t, m, n in results[4]] == [(t, m, n) for (t, m), n in sorted(per_topic.items())]
        assert {m for _t, m, _n in results[4]} == {"t", "u"}
        totals: dict = {}
        for (minute, service), n in by_service.items():
            if in_range(minute):
                totals[service] = totals.get(service, 0) + n
        top = sorted(totals, key=lambda s: (-totals[s], s or ""))[:10]  # NULL sorts first among equals in SQL
        wanted = sorted((minute, service or "(over MAX_SERIES)", n) for (minute, service), n in by_service.items()
                        if in_range(minute) and service in top)
        assert [(t, m, int(v)) for t, m, v in results[1]] == wanted
        ratios = [(t, None if a is None else round(float(a), 4), None if b is None else round(float(b), 4))
                  for t, a, b in results[5]]
        assert ratios == [(t, *((round(n / (4 * n + 2), 4), None) if t + timedelta(minutes=1) <= base + timedelta(minutes=5)
                               else (None, round(n / (4 * n + 2), 4))))
                          for t, n in sorted(counts.items()) if in_range(t)]
        assert {a is None for _t, a, _b in ratios} == {True, False}  # both kinds of minutes in the range
    finally:
        query(admin, "DELETE FROM counts_tables WHERE counts_table = %s", (table,))
        query(admin, "DELETE FROM counted_through WHERE job = %s", (job,))
        drop_counts_table(admin, table)
        query(admin, "DELETE FROM ingest_batches WHERE job = %s", (job,))
        query(admin, "DELETE FROM rejected_minutes WHERE job = %s", (job,))
        for statement in ("DELETE FROM error_series_labels WHERE series_id IN "
                          "(SELECT series_id FROM error_series WHERE job = %s)",
                          "DELETE FROM error_series_counts WHERE job = %s", "DELETE FROM error_series WHERE job = %s"):
            query(admin, statement, (job,))


def seed_series(admin, job: str, by_service: dict) -> None:
    """Series of GROUP_BY=field:service.name,level (level ERROR), one per service (None: the overflow)."""
    ids = {}
    for service in sorted({s for _m, s in by_service}, key=lambda s: s or ""):
        key = uuid.uuid4().bytes * 2
        query(admin, "INSERT INTO error_series (job, dimensions, series_key, overflow) VALUES (%s, %s, %s, %s)",
              (job, "field:service.name,level", key, service is None))
        ids[service] = query(admin, "SELECT series_id FROM error_series WHERE series_key = %s", (key,))[0][0]
        for dimension, value in (("field:service.name", service), ("level", None if service is None else "ERROR")):
            query(admin, "INSERT INTO error_series_labels (series_id, dimension, value) VALUES (%s, %s, %s)",
                  (ids[service], dimension, value))
    for (minute, service), n in by_service.items():
        query(admin, "INSERT INTO error_series_counts (job, log_time, series_id, log_count) VALUES (%s, %s, %s, %s)",
              (job, minute, ids[service], n))
