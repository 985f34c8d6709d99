"""The scale phase's report: RESULTS-scale.md (a table per curve, its goals) and a plot per curve
(scale-<curve>.png: each size's rate over its baseline, the goal drawn), from bench/scale.py's figures."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
from matplotlib import pyplot  # noqa: E402  (after the backend is chosen)

from bench import scale  # noqa: E402

TITLES = {"partitions": "Partitions of one topic", "topics": "Topics under one KAFKA_TOPIC_PATTERN (4 partitions each)",
          "series": "Series of GROUP_BY=field:service.name (json lines, ERROR lines cycling through the values)",
          "table": "The counts table's size (error_series_counts rows of earlier minutes, 100 series)",
          "history": "History: the 4-partition corpus over a year of event-time minutes",
          "steady": "Steady state at the same producer rate"}
SHORT = {"partitions": "Partitions of one topic", "topics": "Topics under one pattern", "series": "Series (GROUP_BY)",
         "table": "The counts table's size", "history": "Event-time minutes spanned", "steady": "Steady state, one rate"}
X_LABELS = {"partitions": "partitions", "topics": "topics", "series": "series", "table": "rows already in the table",
            "history": "event-time minutes spanned", "steady": "partitions"}
Y_LABELS = {"table": "commit rows/s over the empty table", "steady": "1 / (p99 - trigger) over 4 partitions"}


def fmt(value: float, digits: int = 0) -> str:
    return f"{value:,.{digits}f}"


def catch_up_rows(curve: str, sizes: dict, measured: dict) -> list[str]:
    baseline = next(iter(sizes))
    rows = [f"| {X_LABELS[curve]} | records/s | over {baseline} | start -> first commit s | first batch ms | "
            "warm batch p50 ms | commit p50 ms | batches | peak RSS JVM / Python MB |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for size, f in sizes.items():
        ratio = measured.get(f"{curve}_{size}_over_{baseline}")
        rows.append(f"| {fmt(int(size))} | {fmt(f['records_per_s'])} | {'1' if ratio is None else f'{ratio:.2f}'} | "
                    f"{f['first_commit_s']:.1f} | {fmt(f['first_batch_ms'])} | {fmt(f['warm_batch_ms_p50'])} | "
                    f"{fmt(f['commit_ms_p50'])} | {f['batches']} | {fmt(f['peak_rss_mb']['jvm'])} / "
                    f"{fmt(f['peak_rss_mb']['python'])} |")
    return rows


def table_rows(sizes: dict, measured: dict) -> list[str]:
    rows = ["| rows before | rows upserted (the batches' minutes and series rows) | rows stored | batches | "
            "commit ms (all batches) | commit ms per 1,000 rows | commit rows/s over empty |",
            "|---:|---:|---:|---:|---:|---:|---:|"]
    for size, f in sizes.items():
        ratio = measured.get(f"table_{scale.label('table', size)}_over_empty")
        rows.append(f"| {fmt(int(size))} | {fmt(f['rows_upserted'])} | {fmt(f['rows_stored'])} | {f['batches']} | "
                    f"{fmt(f['commit_ms_total'])} | "
                    f"{f['commit_ms_per_1000_rows']:.1f} | {'1' if ratio is None else f'{ratio:.2f}'} |")
    return rows


def steady_rows(sizes: dict) -> list[str]:
    rows = ["| partitions | achieved records/s | the job read records/s | kept up (drained after) | p50 s | p95 s | p99 s "
            "| p99 - trigger s | batches | mean batch ms |", "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|"]
    for size, f in sizes.items():
        latency = f["latency_s"]
        kept = "-" if "kept_up" not in f else f"{'yes' if f['kept_up'] else 'no: a backlog'} ({f['drain_s']:.1f} s)"
        read = fmt(f["job_read_rate"]) if "job_read_rate" in f else "-"  # results of runs before the figure
        rows.append(f"| {fmt(int(size))} | {fmt(f['achieved_rate'])} | {read} | {kept} | "
                    f"{latency['p50']:.2f} | {latency['p95']:.2f} | {latency['p99']:.2f} | "
                    f"{latency['p99'] - f['trigger_interval_s']:.2f} | {f['batches']} | {fmt(f['mean_batch_ms'])} |")
    return rows


def markdown(found: dict, meta: dict, measured: dict, goals: list, plots: dict[str, str]) -> str:
    lines = [f"# Scale ({meta['date']})", "", f"`{meta['command']}` on {meta['machine']}.", "",
             f"Every size is a fresh job read to its end, its counts checked exact; {fmt(found['lines'])} lines "
             f"per size unless said, spread over {found['minutes']} minutes.", ""]
    for curve in scale.CURVES:
        sizes = scale.curve_sizes(found, curve)
        if not sizes:
            continue
        lines += [f"## {TITLES[curve]}", ""]
        if curve == "table":
            lines += table_rows(sizes, measured)
        elif curve == "steady":
            lines += steady_rows(sizes)
        else:
            lines += catch_up_rows(curve, sizes, measured)
        if curve in plots:
            lines += ["", f"![{TITLES[curve]}]({plots[curve]})"]
        lines.append("")
    lines += ["## Goals", "", "| goal | measured | met |", "|---|---|---|"]
    lines += [f"| {goal} | {value} | {'yes' if met else 'no'} |" for goal, value, met in goals]
    return "\n".join(lines) + "\n"


def plot(found: dict, measured: dict, out: Path) -> dict[str, str]:
    """scale-<curve>.png for each curve of two or more sizes: rate over the baseline against the
    size (log scale), the 0.8 goal dashed; returns {curve: file name}."""
    drawn = {}
    for curve in scale.CURVES:
        sizes = scale.curve_sizes(found, curve)
        if len(sizes) < 2:
            continue
        baseline = next(iter(sizes))
        # the table's sizes start at 0: evenly spaced and labelled; the others on a log scale
        xs = list(range(len(sizes))) if curve == "table" else [int(size) for size in sizes]
        ys = [1.0] + [measured[f"{curve}_{scale.label(curve, size)}_over_{scale.label(curve, baseline)}"]
                      for size in list(sizes)[1:]]
        figure, axes = pyplot.subplots(figsize=(5, 3.2))
        axes.plot(xs, ys, marker="o")
        if curve != "steady":  # its goal is p99 - trigger itself (the table above)
            axes.axhline(scale.GOAL, linestyle="--", color="grey", label=f"goal {scale.GOAL}")
        axes.axhline(1.0, linewidth=0.5, color="black")
        if curve != "table":
            axes.set_xscale("log")
        axes.margins(x=0.1)
        axes.set_xticks(xs, [scale.label(curve, size) if curve == "table" else fmt(int(size)) for size in sizes])
        axes.set_ylim(0, max(1.1, max(ys) * 1.1))
        axes.set_xlabel(X_LABELS[curve])
        axes.set_ylabel(Y_LABELS.get(curve, f"records/s over {scale.label(curve, baseline)}"))
        axes.set_title(SHORT[curve], fontsize=10)
        if curve != "steady":
            axes.legend(fontsize=8)
        figure.tight_layout()
        name = f"scale-{curve}.png"
        figure.savefig(out / name, dpi=90)
        pyplot.close(figure)
        drawn[curve] = name
    return drawn
