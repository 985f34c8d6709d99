"""make bench's (l): what counting every line (COUNT_LINES) costs. (b) on each format's corpus with
COUNT_LINES=true against the same without, alternating rounds in one run, without and with the
format's GROUP_BY; every run checked exact: errors per minute, and with lines counted the lines per
minute against the corpus's own (and the series' lines adding up to them)."""

from pathlib import Path

from bench import corpus as corpora
from bench import phases
from bench.dimensions import check_series
from tests.harness import admin_db

GOAL = 0.9   # (b) with lines counted >= 0.9 x without, per format, with and without GROUP_BY
# Alternating pairs; the median of their ratios (docs/performance.md). Five, as (x): one pair's rounds
# spread over 0.79-1.00 in the full run of 2026-12-07, where three left the median to one round.
ROUNDS = 5
GROUP_BY = {"app": "level", **corpora.GROUP_BY}


def check_lines(data: corpora.Corpus, job: str, grouped: str, what: str) -> None:
    conn = admin_db.connect(phases.DATABASE)
    try:
        lines = admin_db.error_log(conn, column="line_count")
        if lines != data.expected_lines:
            raise phases.BenchError(f"{what}: line_count differs from the corpus's lines in "
                                    f"{len(set(lines.items()) ^ set(data.expected_lines.items()))} minutes")
        if grouped and admin_db.series_totals(conn, job, "line_count") != lines:
            raise phases.BenchError(f"{what}: the series' lines do not add up to line_count")
        if grouped in data.expected_series:
            check_series(conn, job, data, grouped, what)
    finally:
        conn.close()


def lines_phase(datasets: dict[str, corpora.Corpus], log_dir: Path) -> dict:
    """(l): per format, with and without GROUP_BY, ROUNDS catch-ups without and with COUNT_LINES."""
    found: dict = {}
    for log_format, data in datasets.items():
        settings = corpora.settings_of(log_format)
        for grouped in ("", GROUP_BY[log_format]):
            extra = {"GROUP_BY": grouped, "SERIES_RETENTION_DAYS": "0"} if grouped else {}
            tag = f"{log_format}{'-grouped' if grouped else ''}"

            def without(round_: int, tag=tag, data=data, extra=extra, settings=settings) -> dict:
                return phases.spark_catch_up(data, log_dir, f"l-{tag}-{round_}", **settings, **extra)

            def with_lines(round_: int, tag=tag, data=data, extra=extra, settings=settings, grouped=grouped) -> dict:
                name = f"l-{tag}-lines-{round_}"
                figures = phases.spark_catch_up(data, log_dir, name, COUNT_LINES="true", **settings, **extra)
                check_lines(data, f"bench-{name}", grouped, name)
                return figures

            rounds = phases.alternating(ROUNDS, without, with_lines)
            found[tag] = {"format": log_format, "group_by": grouped, "ordered": data.ordered, "without": rounds["first"],
                          "with": rounds["second"], "ratio": rounds["ratio"], "best_ratio": rounds["best_ratio"],
                          "warm_ratio": rounds["warm_ratio"], "rounds": rounds["rounds"],
                          "cpu_ratio": rounds["cpu_ratio"], "cpu_s": rounds["cpu_s"]}
    return found


def markdown_lines(results: dict) -> list[str]:
    found = results.get("l_lines")
    if not found:
        return []
    lines = [f"COUNT_LINES: (b) per format counting every line against the same without, with and without GROUP_BY, "
             f"alternating {ROUNDS} rounds in this run; with / without is the median of the rounds' own ratios; "
             "every run's errors, and its lines per minute (and per series), matched the corpus's own."
             + (" The corpora were written in time order (`--ordered`): a batch spans a few minutes, not all of them."
                if any(f.get("ordered") for f in found.values()) else ""), "",
             "The warm column is the same median over each catch-up's warm rate (its second half of batches: "
             "the JIT-cold first batch left out); the goal is judged on the whole catch-up's. The CPU column is "
             "the same median over each catch-up's CPU seconds, the driver's processes and the SQL server's, with "
             "lines / without (what counting every line costs in CPU, whether or not a batch waited for the "
             "trigger), then each round's seconds.", "",
             "| format | GROUP_BY | best records/s without | best records/s with lines | with / without (median) "
             "| warm | best / best | rounds (without, with) | CPU with / without | CPU s (without, with) |",
             "|---|---|---:|---:|---:|---:|---:|---|---:|---|"]
    for f in found.values():
        warm, rounds = phases.rounds_cells(f)
        cpu = f"{f['cpu_ratio']:.2f}" if f.get("cpu_ratio") else "-"
        seconds = "; ".join(f"{a:.0f}, {b:.0f}" for a, b in f.get("cpu_s", []) if a and b)
        lines.append(f"| {f['format']} | `{f['group_by'] or '-'}` | {f['without']['records_per_s']:,.0f} | "
                     f"{f['with']['records_per_s']:,.0f} | {f['ratio']:.2f} | {warm} | {f['best_ratio']:.2f} | {rounds} "
                     f"| {cpu} | {seconds} |")
    return lines + [""]


def goals(results: dict) -> list[tuple[str, str, bool | None]]:
    return [(f"COUNT_LINES on {f['format']}{' with GROUP_BY=' + f['group_by'] if f['group_by'] else ''}: (b) >= {GOAL} "
             "x without", f"{f['ratio']:.2f}", f["ratio"] >= GOAL) for f in results.get("l_lines", {}).values()]
