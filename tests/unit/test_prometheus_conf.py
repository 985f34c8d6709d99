"""The PromQL in conf/: the alert rules (conf/prometheus/alerts.yml) as Prometheus loads them (the
file's structure and keys, every expression through a PromQL parser with Prometheus's grammar and
type checks, the durations, each annotation's `$labels` kept by its expression, every alert
documented with what to do) and the Grafana dashboard's Prometheus queries. (That each metric
they name exists is checked on a real scrape: tests/integration/test_watch.py.)"""

import json
import re
from pathlib import Path

import promql_parser as promql
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
RULES = yaml.safe_load((ROOT / "conf" / "prometheus" / "alerts.yml").read_text(encoding="utf-8"))
EVERY_RULE = [rule for group in RULES["groups"] for rule in group["rules"]]
ALERTS = [rule for rule in EVERY_RULE if "alert" in rule]
RECORDED = {rule["record"]: rule for rule in EVERY_RULE if "record" in rule}
# The keys Prometheus's rule-file format accepts (rulefmt's RuleGroup and RuleNode): any other
# makes Prometheus refuse the whole file at load.
GROUP_KEYS = {"name", "interval", "query_offset", "limit", "labels", "rules"}
RULE_KEYS = {"alert", "record", "expr", "for", "keep_firing_for", "labels", "annotations"}
LABEL_NAME = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")
# A series' own labels: the job's (errorcount/observe/metrics.py) and the ones Prometheus adds on scrape.
SERIES_LABELS = {"job_name", "topic", "partition", "instance", "job"}
TEMPLATE = re.compile(r"\{\{(.*?)\}\}")


def kept_labels(expr) -> set[str] | None:
    """The labels an expression's result keeps: a set, or None for all of its series' own labels.
    An independent reading of PromQL's rules for the constructs the rules use."""
    if isinstance(expr, promql.VectorSelector | promql.MatrixSelector):
        return None
    if isinstance(expr, promql.ParenExpr | promql.UnaryExpr):
        return kept_labels(expr.expr)
    if isinstance(expr, promql.NumberLiteral | promql.StringLiteral):
        return set()
    if isinstance(expr, promql.AggregateExpr):
        if expr.modifier is None:
            return set()
        if expr.modifier.type == promql.AggModifierType.By:
            return set(expr.modifier.labels)
        inner = kept_labels(expr.expr)
        return None if inner is None else inner - set(expr.modifier.labels)
    if isinstance(expr, promql.Call):
        name = expr.func.name
        if name in ("absent", "absent_over_time"):  # only the selector's equality matchers
            selector = expr.args[0] if isinstance(expr.args[0], promql.VectorSelector) else expr.args[0].vector_selector
            return {m.name for m in selector.matchers.matchers if m.op == promql.MatchOp.Equal}
        vectors = [arg for arg in expr.args if not isinstance(arg, promql.NumberLiteral | promql.StringLiteral)]
        if not vectors or expr.func.return_type == promql.ValueType.Scalar:
            return set()
        inner = kept_labels(vectors[-1] if name == "histogram_quantile" else vectors[0])
        return inner - {"le"} if name == "histogram_quantile" and inner is not None else inner
    if isinstance(expr, promql.BinaryExpr):  # a vector side's labels (the left one's if both are)
        left = kept_labels(expr.lhs)
        return kept_labels(expr.rhs) if is_scalar(expr.lhs) else left
    raise AssertionError(f"kept_labels does not know {type(expr).__name__}: extend it")


def is_scalar(expr) -> bool:
    if isinstance(expr, promql.ParenExpr):
        return is_scalar(expr.expr)
    if isinstance(expr, promql.BinaryExpr):
        return is_scalar(expr.lhs) and is_scalar(expr.rhs)
    return isinstance(expr, promql.NumberLiteral) or (
        isinstance(expr, promql.Call) and expr.func.return_type == promql.ValueType.Scalar)


def test_the_file_has_only_the_keys_prometheus_accepts():
    assert set(RULES) == {"groups"}
    names = [group["name"] for group in RULES["groups"]]
    assert len(names) == len(set(names)) and all(names)
    for group in RULES["groups"]:
        assert set(group) <= GROUP_KEYS and group["rules"]
    for rule in EVERY_RULE:
        assert set(rule) <= RULE_KEYS, rule
        assert ("alert" in rule) != ("record" in rule) and "expr" in rule, rule
    alerts = [rule["alert"] for rule in ALERTS]
    assert len(alerts) == len(set(alerts))
    assert len(RECORDED) == sum("record" in rule for rule in EVERY_RULE)


def test_recording_rules_parse_to_vectors_and_every_recorded_name_used_is_recorded():
    for name, rule in RECORDED.items():
        assert re.fullmatch(r"[a-z_]+(:[a-z0-9_]+)+", name), name  # level:metric:operations
        assert set(rule) <= {"record", "expr", "labels"}
        assert not is_scalar(promql.parse(rule["expr"])), name
    used = set(re.findall(r"\berrorcount:[a-z0-9_:]+", " ".join([r["expr"] for r in ALERTS] + dashboard_queries())))
    assert used and used <= RECORDED.keys(), used - RECORDED.keys()


@pytest.mark.parametrize("rule", ALERTS, ids=lambda rule: rule["alert"])
def test_each_alert_parses_and_its_annotations_name_labels_it_keeps(rule):
    expr = promql.parse(rule["expr"])  # ValueError on a syntax or type error, as promtool reports
    assert not is_scalar(expr), "an alert's expression must be a vector"
    if "for" in rule:
        assert promql.parse_duration(rule["for"]).total_seconds() > 0
    assert rule["labels"]["severity"] in ("critical", "warning", "info")
    for key, value in {**rule["labels"], **rule["annotations"]}.items():
        assert LABEL_NAME.fullmatch(key) and isinstance(value, str), (key, value)
    kept = kept_labels(expr)
    for text in rule["annotations"].values():
        assert text.count("{{") == text.count("}}") == len(TEMPLATE.findall(text))
        for action in TEMPLATE.findall(text):
            used = re.fullmatch(r"\s*\$(labels\.(\w+)|value)\s*", action)
            assert used, f"template action {{{{{action}}}}} is not $labels.NAME or $value"
            if used.group(2):
                assert used.group(2) in (SERIES_LABELS if kept is None else kept), (
                    f"{rule['alert']}: $labels.{used.group(2)} is dropped by its expression (keeps {kept})")


def test_kept_labels_reads_aggregations_and_absent_as_prometheus_does():
    assert kept_labels(promql.parse("absent(up)")) == set()
    assert kept_labels(promql.parse('absent(up{job_name="a", x=~"b"})')) == {"job_name"}
    assert kept_labels(promql.parse("sum(rate(x[5m])) > 1")) == set()
    assert kept_labels(promql.parse("sum by (a, b) (x) / on (a) sum by (a) (y)")) == {"a", "b"}
    assert kept_labels(promql.parse("(time() - x) > 60")) is None
    assert kept_labels(promql.parse("histogram_quantile(0.9, sum by (le, j) (rate(x[5m])))")) == {"j"}


def test_every_alert_is_documented_with_what_to_do():
    operations = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    for rule in ALERTS:
        assert re.search(rf"^\| `{rule['alert']}`[^|]*\| *\w", operations, re.MULTILINE), rule["alert"]


def dashboard_queries() -> list[str]:
    dashboard = json.loads((ROOT / "conf" / "grafana" / "dashboards" / "errorcount.json").read_text(encoding="utf-8"))
    return [target["expr"] for panel in dashboard["panels"] for target in panel.get("targets", []) if "expr" in target]


def test_the_dashboards_prometheus_queries_parse_as_vectors():
    queries = dashboard_queries()
    assert len(queries) >= 5
    for query in queries:
        # Grafana replaces its variables before Prometheus sees the query: $job is a job name.
        expr = promql.parse(query.replace("$job", "error-counter"))
        assert not is_scalar(expr), query


def test_prometheus_loads_the_rules_and_scrapes_only_what_it_can_reach():
    config = yaml.safe_load((ROOT / "conf" / "prometheus" / "prometheus.yml").read_text(encoding="utf-8"))
    assert config["rule_files"] == ["/etc/prometheus/alerts.yml"]
    promql.parse_duration(config["global"]["scrape_interval"])
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert jobs["errorcount"]["static_configs"][0]["targets"] == ["host.docker.internal:9108"]  # what make run serves
    # The driver UI (Spark's servlet) binds the host's loopback (scripts/run.sh SPARK_LOCAL_IP): out of a container's reach.
    assert set(jobs) == {"errorcount"}
    run_sh = (ROOT / "scripts" / "run.sh").read_text(encoding="utf-8")
    assert "SPARK_LOCAL_IP=${SPARK_LOCAL_IP:-127.0.0.1}" in run_sh and "export METRICS_PORT=9108" in run_sh
