"""The error-ratio rules of conf/prometheus/alerts.yml evaluated on made-up scrapes: which burn-rate
alerts fire for a job that counts no lines, one that burns its budget, one within it, an idle one,
one restarted with COUNT_LINES turned on; when the completeness alert fires for a job whose
counted_through follows the clock, stops, or is not known yet; when the clock alert fires; and
when lines counted into complete minutes fire theirs.
The evaluator here is a second, independent reading of PromQL's semantics for the constructs the
rules use (instant and range selectors, rate, increase, time(), clamp_min, sum/max by, vector matching with on(), arithmetic
with IEEE division, filtering comparisons, and, abs), run at Prometheus's default rule interval (1 m)
with each alert's `for:`. The rules' syntax is checked against Prometheus's grammar in
test_prometheus_conf.py."""

import itertools
import math
import operator
from collections.abc import Callable
from datetime import timedelta

import promql_parser as promql
import pytest

from tests.unit.test_prometheus_conf import ALERTS, RECORDED

SCRAPE_S, EVALUATION_S, LOOKBACK_S = 15, 60, 300  # prometheus.yml's scrape interval; Prometheus's defaults
HOURS = 7  # of scrapes: the longest window (6 h) and a `for:` fit
Series = dict[frozenset, list[tuple[float, float]]]  # labels -> (time s, value), per metric name
ARITHMETIC = {"+": operator.add, "-": operator.sub, "*": operator.mul}
COMPARISON = {">": operator.gt, "<": operator.lt, ">=": operator.ge, "<=": operator.le, "==": operator.eq,
              "!=": operator.ne}


def divide(a: float, b: float) -> float:
    """IEEE division, as Prometheus's float arithmetic: x/0 is +-Inf, 0/0 NaN."""
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a)
    return a / b


class Evaluator:
    def __init__(self, metrics: dict[str, Series]):
        self.metrics = metrics

    def at(self, expr, t: float):
        """An instant vector ({labels: value}) or a scalar (float)."""
        if isinstance(expr, promql.ParenExpr):
            return self.at(expr.expr, t)
        if isinstance(expr, promql.NumberLiteral):
            return float(expr.val)
        if isinstance(expr, promql.VectorSelector):
            if expr.name in RECORDED:
                return self.at(promql.parse(RECORDED[expr.name]["expr"]), t)
            return {labels: [v for at, v in samples if t - LOOKBACK_S < at <= t][-1]
                    for labels, samples in self.metrics.get(expr.name, {}).items()
                    if any(t - LOOKBACK_S < at <= t for at, _v in samples)}
        if isinstance(expr, promql.Call) and expr.func.name in ("rate", "increase"):
            return self.rate(expr.args[0], t, per_second=expr.func.name == "rate")
        if isinstance(expr, promql.Call) and expr.func.name == "abs":
            return {labels: abs(value) for labels, value in self.at(expr.args[0], t).items()}
        if isinstance(expr, promql.Call) and expr.func.name == "clamp_min":
            floor = self.at(expr.args[1], t)
            return {labels: max(value, floor) for labels, value in self.at(expr.args[0], t).items()}
        if isinstance(expr, promql.Call) and expr.func.name == "time":
            return float(t)  # the scrapes' times are seconds since the epoch
        if isinstance(expr, promql.AggregateExpr):
            return self.aggregate(expr, t)
        if isinstance(expr, promql.BinaryExpr):
            return self.binary(expr, t)
        raise AssertionError(f"the evaluator does not know {expr}: extend it")

    def rate(self, matrix, t: float, per_second: bool = True) -> dict:
        """Increase over the range (per second for rate()), counter resets included (no extrapolation:
        it scales an increase, never makes one zero or not)."""
        span = matrix.range / timedelta(seconds=1)
        out = {}
        for labels, samples in self.metrics.get(matrix.vector_selector.name, {}).items():
            inside = [v for at, v in samples if t - span < at <= t]
            if len(inside) >= 2:
                out[labels] = sum(b - a if b >= a else b for a, b in itertools.pairwise(inside)) / (span if per_second else 1)
        return out

    def aggregate(self, expr, t: float) -> dict:
        assert expr.modifier is not None and expr.modifier.type == promql.AggModifierType.By, expr
        groups: dict[frozenset, list[float]] = {}
        for labels, value in self.at(expr.expr, t).items():
            groups.setdefault(frozenset(kv for kv in labels if kv[0] in expr.modifier.labels), []).append(value)
        fold = {"sum": sum, "max": max}[str(expr.op)]
        return {labels: fold(values) for labels, values in groups.items()}

    def binary(self, expr, t: float):
        op, lhs, rhs = str(expr.op), self.at(expr.lhs, t), self.at(expr.rhs, t)
        on = expr.modifier.matching.labels if expr.modifier and expr.modifier.matching else None
        apply = divide if op == "/" else ARITHMETIC.get(op) or COMPARISON.get(op)
        if isinstance(lhs, float) and isinstance(rhs, float):
            return apply(lhs, rhs)
        if isinstance(lhs, float) or isinstance(rhs, float):  # scalar and vector
            vector, flip = (rhs, True) if isinstance(lhs, float) else (lhs, False)
            scalar = lhs if flip else rhs
            results = {k: (apply(scalar, v) if flip else apply(v, scalar)) for k, v in vector.items()}
            return {k: (v if op not in COMPARISON else vector[k]) for k, v in results.items() if op not in COMPARISON or v}

        def key(labels: frozenset) -> frozenset:
            return frozenset(kv for kv in labels if on is None or kv[0] in on)
        right = {key(labels): value for labels, value in rhs.items()}
        if op == "and":
            return {labels: value for labels, value in lhs.items() if key(labels) in right}
        out = {}
        for labels, value in lhs.items():
            if key(labels) in right:
                result = apply(value, right[key(labels)])
                if op not in COMPARISON:
                    out[key(labels)] = result
                elif result:
                    out[labels] = value
        return out

    def firing(self, t: float, reads: str = "error_ratio") -> set[str]:
        """The alerts whose expression names `reads` (by default the burn-rate alerts) that fire
        at t: true at every evaluation over `for:`."""
        fired = set()
        for alert in ALERTS:
            if reads not in alert["expr"]:
                continue
            held = promql.parse_duration(alert["for"]) / timedelta(seconds=1) if "for" in alert else 0.0
            steps = [t - k * EVALUATION_S for k in range(int(held // EVALUATION_S) + 1)]
            if all(self.at(promql.parse(alert["expr"]), step) for step in steps):
                fired.add(alert["alert"])
        return fired


def scrapes(errors_per_s: float, lines_per_s: float, objective: float = 0.999,
            lines_from: float = 0.0) -> dict[str, Series]:
    """One job's driver scraped every 15 s for HOURS, its counters growing at these rates. With
    `lines_from`, a restart at that time turned COUNT_LINES on: the counters start again at 0 and
    only the new driver counts lines (and the ratio's ERROR lines)."""
    labels = frozenset({("job_name", "web"), ("instance", "host:9108")})
    times = [k * SCRAPE_S for k in range(HOURS * 3600 // SCRAPE_S + 1)]

    def since(t: float) -> float:  # seconds this driver has counted lines at t
        return max(0.0, t - lines_from)
    errors = [(t, errors_per_s * (t if t < lines_from else t - lines_from)) for t in times]
    return {"errorcount_error_lines_total": {labels: errors},
            "errorcount_ratio_error_lines_total": {labels: [(t, errors_per_s * since(t)) for t in times]},
            "errorcount_lines_total": {labels: [(t, lines_per_s * since(t)) for t in times]},
            "errorcount_slo_objective": {labels: [(t, objective) for t in times]}}


@pytest.mark.parametrize(("errors_per_s", "lines_per_s", "expected"), [
    (5.0, 0.0, set()),      # COUNT_LINES off: lines stay 0, so no ratio (ERROR lines / 0 would be +Inf)
    (0.0, 0.0, set()),      # idle
    (0.05, 100.0, set()),   # 0.05 % of lines are errors: half the budget of SLO_OBJECTIVE 0.999
    (1.0, 100.0, {"ErrorcountErrorBudgetBurnSlow"}),  # 10 x the budget: above 6 x, below 14.4 x
    (5.0, 100.0, {"ErrorcountErrorBudgetBurnFast", "ErrorcountErrorBudgetBurnSlow"}),  # 50 x the budget
], ids=["lines-off", "idle", "within-budget", "slow-burn", "fast-burn"])
def test_the_burn_rate_alerts_fire_on_the_ratio_and_never_without_lines(errors_per_s, lines_per_s, expected):
    assert Evaluator(scrapes(errors_per_s, lines_per_s)).firing(HOURS * 3600) == expected


def test_turning_count_lines_on_does_not_page_on_the_errors_counted_before():
    """A job at 10 x its budget (a slow burn, never a fast one) restarted with COUNT_LINES on, 10
    minutes before the end: ERROR lines from the whole window over lines from its last minutes
    would read up to window / (time since) times the ratio and page as a fast burn; the ratio's
    own numerator keeps both counters on the same batches. Each minute after the restart is
    evaluated, up to when the slow burn (true) fires."""
    restart = HOURS * 3600 - 20 * 60
    evaluator = Evaluator(scrapes(1.0, 100.0, lines_from=restart))
    fired = {minute: evaluator.firing(restart + minute * 60) for minute in range(0, 21)}
    assert all("ErrorcountErrorBudgetBurnFast" not in alerts for alerts in fired.values()), fired
    assert "ErrorcountErrorBudgetBurnSlow" in fired[20]  # the 10 x burn, once the ratio has held for `for:`


def test_the_evaluator_divides_as_ieee_and_reads_ratios_of_the_recorded_rules():
    assert divide(1.0, 0.0) == math.inf and math.isnan(divide(0.0, 0.0)) and divide(-2.0, 0.0) == -math.inf
    ratio = Evaluator(scrapes(1.0, 100.0)).at(promql.parse("errorcount:error_ratio:rate1h"), HOURS * 3600)
    assert ratio == {frozenset({("job_name", "web")}): pytest.approx(0.01)}


COMPLETENESS = "errorcount_counted_through_seconds"
BEHIND_S = 2.0  # how far a healthy job's mark trails the clock: a batch and a trigger


TRIGGER = "errorcount_trigger_interval_seconds"


def marks(at: Callable[[float], float], started: float = 0.0, trigger_s: float = 1.0) -> dict[str, Series]:
    """errorcount_counted_through_seconds of one driver started at `started` with TRIGGER_INTERVAL
    `trigger_s`, scraped every 15 s up to HOURS: at(t), the mark it exports at t (0: none known yet)."""
    labels = frozenset({("job_name", "web"), ("instance", "host:9108")})
    times = [k * SCRAPE_S for k in range(HOURS * 3600 // SCRAPE_S + 1) if k * SCRAPE_S >= started]
    return {COMPLETENESS: {labels: [(t, at(t)) for t in times]}, TRIGGER: {labels: [(t, trigger_s) for t in times]}}


def first_firing(evaluator: Evaluator, since: float, reads: str = COMPLETENESS) -> float | None:
    """The first evaluation (Prometheus's 1 m grid) from `since` at which an alert reading `reads`
    (by default the completeness alert) fires."""
    for t in range(int(since), HOURS * 3600 + 1, EVALUATION_S):
        if evaluator.firing(t, reads=reads):
            return t
    return None


def test_the_completeness_alert_fires_15_minutes_after_the_mark_stopped_and_never_while_it_follows():
    """The rule's contract: the mark more than 10 minutes behind the clock, for 5 minutes. A mark
    that stops at 3 h (a transaction left open, a driver whose commits fail) is 10 minutes behind
    at 3 h 10 min minus its lag, so the alert fires at the first evaluation 5 minutes later."""
    assert first_firing(Evaluator(marks(lambda t: t - BEHIND_S)), 0) is None
    stopped = 3 * 3600
    assert first_firing(Evaluator(marks(lambda t: min(t, stopped) - BEHIND_S)), 0) == stopped + 15 * 60


def every(trigger_s: float, t: float, stopped: float = math.inf) -> float:
    """The last trigger at or before t of a job triggered every `trigger_s` that stops at `stopped`."""
    return min(t, stopped) // trigger_s * trigger_s


def test_a_job_triggered_every_20_minutes_is_not_stalled_between_its_triggers():
    """Its mark moves once per trigger, so it trails the clock by up to 20 min and a batch: the
    alert waits three triggers (1 h), then 5 min more, once the mark stopped at 3 h. A fixed 10 min
    would fire between every two triggers of a healthy job."""
    trigger = 20 * 60.0
    assert first_firing(Evaluator(marks(lambda t: every(trigger, t) - BEHIND_S, trigger_s=trigger)), 0) is None
    stopped = 3 * 3600
    fired = first_firing(Evaluator(marks(lambda t: every(trigger, t, stopped) - BEHIND_S, trigger_s=trigger)), 0)
    assert fired == stopped + 3 * trigger + 5 * 60


LAST_COMMIT = "errorcount_last_commit_timestamp_seconds"


def commits(trigger_s: float, stopped: float = math.inf) -> dict[str, Series]:
    """One driver triggered every `trigger_s` with records waiting on both partitions (lag), its
    commits stopping at `stopped`, scraped every 15 s for HOURS."""
    labels = frozenset({("job_name", "web"), ("instance", "host:9108")})
    times = [k * SCRAPE_S for k in range(HOURS * 3600 // SCRAPE_S + 1)]
    lag = {labels | {("topic", "logs"), ("partition", p)}: [(t, 40.0) for t in times] for p in ("0", "1")}
    return {LAST_COMMIT: {labels: [(t, every(trigger_s, t, stopped)) for t in times]},
            "errorcount_lag_records": lag, TRIGGER: {labels: [(t, trigger_s) for t in times]}}


@pytest.mark.parametrize(("trigger_s", "stopped", "fires_at"), [
    (1.0, None, None),                         # commits every second
    (1.0, 3 * 3600, 3 * 3600 + 16 * 60),       # stopped: the first evaluation past 10 min, then `for:` 5 min
    (20 * 60.0, None, None),                   # a commit every 20 min is this job's pace
    (20 * 60.0, 3 * 3600, 3 * 3600 + 66 * 60),  # stopped: the first evaluation past three triggers, then 5 min
], ids=["1-s", "1-s-stopped", "20-min", "20-min-stopped"])
def test_the_no_commit_alert_waits_three_of_the_jobs_own_triggers_and_at_least_10_minutes(trigger_s, stopped, fires_at):
    evaluator = Evaluator(commits(trigger_s, math.inf if stopped is None else stopped))
    assert first_firing(evaluator, 0, reads=LAST_COMMIT) == fires_at


@pytest.mark.parametrize(("unknown_s", "fires_at"), [(4 * 60, None), (10 * 60, 5 * 60)], ids=["4-min", "10-min"])
def test_a_first_start_fires_only_when_its_first_mark_takes_longer_than_5_minutes(unknown_s, fires_at):
    """A job's first start exports 0 until every partition it reads has a mark (it catches up)."""
    started = 2 * 3600
    evaluator = Evaluator(marks(lambda t: 0.0 if t < started + unknown_s else t - BEHIND_S, started))
    assert first_firing(evaluator, started) == (None if fires_at is None else started + fires_at)


SKEW = "errorcount_clock_skew_seconds"


def skews(at: Callable[[float], float]) -> dict[str, Series]:
    """errorcount_clock_skew_seconds of one driver scraped every 15 s for HOURS: at(t), the driver's
    clock minus the SQL server's as its last observation read them."""
    labels = frozenset({("job_name", "web"), ("instance", "host:9108")})
    return {SKEW: {labels: [(k * SCRAPE_S, at(k * SCRAPE_S)) for k in range(HOURS * 3600 // SCRAPE_S + 1)]}}


@pytest.mark.parametrize(("at", "fires_at"), [
    (lambda t: 0.002, None),                                   # synchronised hosts
    (lambda t: 8.0, None),                                     # within the driver's own warning threshold
    (lambda t: -3600.0 if t >= 3600 else 0.0, 75 * 60),        # the driver's clock an hour behind from 1 h
    (lambda t: 3600.0 if t >= 3600 else 0.0, 75 * 60),         # an hour ahead: the sign does not matter
    (lambda t: 12.0 if 3600 <= t < 3600 + 14 * 60 else 0.0, None),  # apart for 14 min only
    (lambda t: -12.0 if t >= 134 * 60 else 8.0, 149 * 60),     # just past the threshold, for good
], ids=["synchronised", "8-s", "hour-behind", "hour-ahead", "14-min", "12-s-behind"])
def test_the_clock_alert_fires_after_15_minutes_more_than_10_s_apart_either_way(at, fires_at):
    assert first_firing(Evaluator(skews(at)), 0, reads=SKEW) == fires_at


LATE = ("errorcount_late_error_lines_total", "errorcount_late_lines_total")


def late(errors: Callable[[float], float], lines: Callable[[float], float]) -> dict[str, Series]:
    """The two late-line counters of one driver scraped every 15 s for HOURS: their values at t."""
    labels = frozenset({("job_name", "web"), ("instance", "host:9108")})
    times = [k * SCRAPE_S for k in range(HOURS * 3600 // SCRAPE_S + 1)]
    return {name: {labels: [(t, at(t)) for t in times]} for name, at in zip(LATE, (errors, lines), strict=True)}


def late_alert_minutes(evaluator: Evaluator) -> list[int]:
    """The minutes (Prometheus's 1 m grid) at which the late-lines alert fires."""
    return [t // 60 for t in range(0, HOURS * 3600 + 1, EVALUATION_S) if evaluator.firing(t, reads="late_")]


@pytest.mark.parametrize(("errors", "lines", "minutes"), [
    (lambda t: 0.0, lambda t: 0.0, []),                                          # none late
    (lambda t: 3.0 if t >= 3600 else 0.0, lambda t: 0.0, list(range(60, 120))),  # 3 ERROR lines at 1 h, COUNT_LINES off
    (lambda t: 0.0, lambda t: 40.0 if t >= 3600 else 0.0, list(range(60, 120))),  # non-ERROR lines only
    # late at 1 h, then the driver restarted at 2 h (its counters back to 0): no new alert
    (lambda t: 2.0 if 3600 <= t < 7200 else 0.0, lambda t: 9.0 if 3600 <= t < 7200 else 0.0, list(range(60, 120))),
], ids=["none", "errors", "lines", "restart"])
def test_the_late_lines_alert_fires_for_the_hour_after_a_line_lands_in_a_complete_minute(errors, lines, minutes):
    assert late_alert_minutes(Evaluator(late(errors, lines))) == minutes
