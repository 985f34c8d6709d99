"""make bench's scale phase (s): how the job's cost grows with what it knows rather than what a
batch holds, each figure beside its baseline measured in the same run.

Curves (--scale-curves), each size a fresh job read to its end and checked exact:
- partitions of one topic: the same corpus (--scale-lines app lines) on topics of PARTITIONS
  partitions: catch-up records/s, first and warm batch, commit, start to first commit, RSS;
- topics: the same number of lines split over 1, 10, 100 topics under one pattern;
- series: GROUP_BY over 10 .. 100 000 distinct values (json lines), records/s and RSS;
- table: error_series_counts already holding 0, 5 M, 50 M rows: commit ms per 1 000 rows;
- history: the 4-partition corpus over a year of event-time minutes;
- steady: (e) at --steady-rate on 4 and 512 partitions, p99 from Kafka timestamp to commit.
The ratios are each size's rate over its curve's baseline (results-scale.json `ratios`, higher is
better). Writes RESULTS-scale.md, results-scale.json and the curves' plots (bench/ with --out bench)."""

import json
from pathlib import Path

from bench import corpus as corpora
from bench import phases, scale_curves, scale_report

PARTITIONS = (4, 64, 512, 2048)
BASELINE = PARTITIONS[0]
CURVES = ("partitions", "topics", "series", "table", "history", "steady")
GOAL = 0.8  # each curve's rate at its largest size >= 0.8 x its baseline (a per-record cost <= 1.25 x)
GOAL_SIZES = (512, 2048)
DEFAULT_LINES = 2_000_000
STEADY_GOAL_S = 0.5   # p99 - trigger at 512 partitions
START_GOAL = 2.0      # start -> first commit at 2 048 partitions <= 2 x at 4
RSS_GOAL_MB = 2048    # the driver (JVM + Python) at 100 000 series


def partitions_curve(args, cache: Path, run_dir: Path, log) -> dict:
    """One catch-up per topic size (--scale-partitions), the first the baseline, the corpus the same on each."""
    found = {}
    for partitions in (int(size) for size in args.scale_partitions.split(",")):
        data = corpora.ensure(args.scale_lines, partitions, args.seed, args.minutes, cache, log)
        figures = phases.spark_catch_up(data, run_dir, f"s-partitions-{partitions}")
        found[str(partitions)] = figures
        log(f"(s) {partitions} partitions: {figures['records_per_s']:,.0f} records/s, first commit after "
            f"{figures['first_commit_s']:.1f} s, warm batch p50 {figures['warm_batch_ms_p50']:.0f} ms, "
            f"commit p50 {figures['commit_ms_p50']:.0f} ms")
    return found


def scale_phase(args, cache: Path, run_dir: Path, log, trigger: str, trigger_s: float) -> dict:
    curves = args.scale_curves.split(",")
    runs = {"partitions": lambda: partitions_curve(args, cache, run_dir, log),
            "topics": lambda: scale_curves.topics_curve(args, cache, run_dir, log),
            "series": lambda: scale_curves.series_curve(args, cache, run_dir, log),
            "table": lambda: scale_curves.table_curve(args, cache, run_dir, log),
            "history": lambda: scale_curves.history_curve(args, cache, run_dir, log),
            "steady": lambda: scale_curves.steady_curve(args, trigger, trigger_s, run_dir, log)}
    unknown = set(curves) - set(runs)
    if unknown:
        raise phases.BenchError(f"--scale-curves: no curve {', '.join(sorted(unknown))}; offered: {', '.join(CURVES)}")
    return {"lines": args.scale_lines, "minutes": args.minutes, **{curve: runs[curve]() for curve in CURVES if curve in curves}}


def rate(curve: str, figures: dict) -> float:
    """The figure a curve's ratios compare, higher is better: records/s; commit rows/s for the
    table; 1 / (p99 - trigger) for the steady state."""
    if curve == "table":
        return figures["rows_upserted"] / (figures["commit_ms_total"] / 1000)
    if curve == "steady":
        return 1 / max(figures["latency_s"]["p99"] - figures["trigger_interval_s"], 0.001)
    return figures["records_per_s"]


def label(curve: str, size: str) -> str:
    if curve == "table":
        return "empty" if int(size) == 0 else f"{int(size) // 1_000_000}m"
    return size


def curve_sizes(found: dict, curve: str) -> dict:
    """A curve's {size: figures}, smallest (its baseline) first whatever order they were stored in;
    history's baseline is the partitions curve's 4-partition topic (the same corpus over args.minutes)."""
    sizes = dict(found.get(curve) or {})
    if curve == "history" and sizes and str(BASELINE) in found.get("partitions", {}):
        sizes[str(found["minutes"])] = found["partitions"][str(BASELINE)]
    return dict(sorted(sizes.items(), key=lambda item: int(item[0])))


def ratios(found: dict) -> dict[str, float]:
    """Each curve's sizes over its baseline, its smallest size."""
    measured = {}
    for curve in CURVES:
        sizes = curve_sizes(found, curve)
        if len(sizes) < 2:
            continue
        (baseline, base), *rest = sizes.items()
        for size, figures in rest:
            measured[f"{curve}_{label(curve, size)}_over_{label(curve, baseline)}"] = rate(curve, figures) / rate(curve, base)
    return measured


def goals(found: dict) -> list[tuple[str, str, bool]]:
    """(goal, measured, met) for every goal of the issue whose curve ran."""
    measured, rows = ratios(found), []
    for key, value in sorted(measured.items(), key=lambda item: CURVES.index(item[0].split("_")[0])):
        curve, size = key.split("_")[:2]
        largest = {"partitions": size in map(str, GOAL_SIZES), "topics": size == "100", "series": size == "100000",
                   "table": size == "50m"}.get(curve, False)
        if largest:
            rows.append((f"{key}: {curve} at {size} >= {GOAL} x the baseline", f"{value:.2f} x", value >= GOAL))
    partitions = found.get("partitions", {})
    if "2048" in partitions and str(BASELINE) in partitions:
        times = partitions["2048"]["first_commit_s"] / partitions[str(BASELINE)]["first_commit_s"]
        rows.append((f"start -> first commit at 2,048 partitions <= {START_GOAL:g} x at 4", f"{times:.1f} x",
                     times <= START_GOAL))
    steady = found.get("steady", {}).get("512")
    if steady:
        over = steady["latency_s"]["p99"] - steady["trigger_interval_s"]
        behind = "" if steady.get("kept_up", True) else f" (the job fell behind: read {steady['job_read_rate']:,.0f} records/s)"
        rows.append((f"p99 - trigger at 512 partitions <= {STEADY_GOAL_S} s", f"{over:.2f} s{behind}", over <= STEADY_GOAL_S))
    series = found.get("series", {}).get("100000")
    if series:
        rss = series["peak_rss_mb"]["jvm"] + series["peak_rss_mb"]["python"]
        rows.append((f"driver RSS at 100,000 series <= {RSS_GOAL_MB:,} MB", f"{rss:,.0f} MB", rss <= RSS_GOAL_MB))
    return rows


def write(found: dict, meta: dict, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    measured = ratios(found)
    (out / "results-scale.json").write_text(json.dumps({"meta": meta, "s_scale": found, "ratios": measured},
                                                       indent=2, sort_keys=True) + "\n")
    plots = scale_report.plot(found, measured, out)
    (out / "RESULTS-scale.md").write_text(scale_report.markdown(found, meta, measured, goals(found), plots))
