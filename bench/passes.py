"""make bench's (v): the one pass (COUNT_PASS=one_pass, java/errorcount/OnePass.java) against Spark's
aggregate (COUNT_PASS=aggregate), alternating rounds in one run, on (b)'s shape (the app corpus,
no GROUP_BY, no COUNT_LINES) and on each format's corpus with its GROUP_BY and COUNT_LINES; every
run checked exact (errors per minute; lines per minute and per series with COUNT_LINES)."""

from pathlib import Path

from bench import corpus as corpora
from bench import phases
from bench.lines import GROUP_BY, ROUNDS, check_lines

GOAL = 1.0  # the one pass at least as fast as the aggregate, per shape


def passes_phase(datasets: dict[str, corpora.Corpus], log_dir: Path) -> dict:
    """(v): per shape, ROUNDS catch-ups with the aggregate, then with the one pass."""
    found: dict = {}
    shapes = [("app", {})] + [(name, {"GROUP_BY": GROUP_BY[name], "COUNT_LINES": "true", "SERIES_RETENTION_DAYS": "0"})
                              for name in datasets]
    for log_format, extra in shapes:
        data, settings = datasets[log_format], {**corpora.settings_of(log_format), **extra}
        tag = f"{log_format}{'-grouped-lines' if extra else ''}"

        def run(count_pass: str, tag=tag, data=data, settings=settings):
            def catch_up(round_: int) -> dict:
                name = f"v-{tag}-{count_pass}-{round_}"
                figures = phases.spark_catch_up(data, log_dir, name, COUNT_PASS=count_pass, **settings)
                if settings.get("COUNT_LINES"):
                    check_lines(data, f"bench-{name}", settings["GROUP_BY"], name)
                return figures
            return catch_up

        rounds = phases.alternating(ROUNDS, run("aggregate"), run("one_pass"))
        found[tag] = {"format": log_format, "group_by": extra.get("GROUP_BY", ""), "count_lines": bool(extra),
                      "aggregate": rounds["first"], "one_pass": rounds["second"], "ratio": rounds["ratio"],
                      "warm_ratio": rounds["warm_ratio"], "best_ratio": rounds["best_ratio"], "rounds": rounds["rounds"]}
    return found


def markdown_lines(results: dict) -> list[str]:
    found = results.get("v_passes")
    if not found:
        return []
    lines = [f"COUNT_PASS: (b) with the one pass (one_pass) against Spark's aggregate (aggregate), alternating "
             f"{ROUNDS} rounds in this run; one_pass / aggregate is the median of the rounds' own ratios; every "
             "run's counts matched the corpus's own.", "",
             "| format | GROUP_BY | COUNT_LINES | best records/s aggregate | best records/s one_pass "
             "| one_pass / aggregate (median) | warm | rounds (aggregate, one_pass) |",
             "|---|---|:---:|---:|---:|---:|---:|---|"]
    for f in found.values():
        warm, rounds = phases.rounds_cells(f)
        lines.append(f"| {f['format']} | `{f['group_by'] or '-'}` | {'on' if f['count_lines'] else 'off'} | "
                     f"{f['aggregate']['records_per_s']:,.0f} | {f['one_pass']['records_per_s']:,.0f} | "
                     f"{f['ratio']:.2f} | {warm} | {rounds} |")
    return lines + [""]


def goals(results: dict) -> list[tuple[str, str, bool | None]]:
    return [(f"COUNT_PASS=one_pass on {f['format']}{' with GROUP_BY and COUNT_LINES' if f['count_lines'] else ''}: "
             f"(b) >= {GOAL} x aggregate", f"{f['ratio']:.2f}", f["ratio"] >= GOAL)
            for f in results.get("v_passes", {}).values()]
