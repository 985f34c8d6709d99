"""make bench's GROUP_BY phases. (x) (b) per format with two dimensions against the same format
without GROUP_BY, side by side in one run, every series checked against the corpus's own
dimension values; (k) the cost of one batch's MySQL transaction at 10, 1 000 and 10 000 series x
60 minutes, lines counted beside the ERROR lines (the job's Store on the bench database, no Spark)."""

import time
from pathlib import Path

from bench import corpus as corpora
from bench import phases
from errorcount import store
from errorcount.config import dimensions
from errorcount.config.load import load_config
from errorcount.offsets import Position, TopicPartition
from errorcount.pipeline.summary import BatchSummary
from errorcount.store import mysql
from errorcount.store.series import SeriesStore
from errorcount.tools import samples
from tests.harness import admin_db

GROUP_BY = corpora.GROUP_BY  # two dimensions per format
GOAL = 0.9        # (b) with GROUP_BY >= 0.9 x without, per format
ROUNDS = 5        # without, with, alternating: the median of the rounds' ratios (rounds of one run differ: docs/performance.md)
SERIES = (10, 1000, 10000)
MINUTES = 60


def check_series(conn, job: str, data: corpora.Corpus, group_by: str, what: str) -> None:
    """The job's series against the corpus's expectation, and each minute's series against its total."""
    got = {key: n for key, n in admin_db.series_counts(conn, job, group_by).items() if n}  # lines-only series: 0
    wanted = {(key.split("\x1f")[0], tuple(key.split("\x1f")[1:])): n for key, n in data.expected_series[group_by].items()}
    if got != wanted:
        raise phases.BenchError(f"{what}: per-dimension counts differ from the corpus's in "
                                f"{len(set(got.items()) ^ set(wanted.items()))} (minute, series) entries")
    if admin_db.series_totals(conn, job) != admin_db.error_log(conn):
        raise phases.BenchError(f"{what}: the series do not add up to error_log")


def grouped_phase(datasets: dict[str, corpora.Corpus], log_dir: Path) -> dict:
    """(x): for each format, ROUNDS catch-ups without and with GROUP_BY, alternating (phases.alternating)."""
    found = {}
    for log_format, data in datasets.items():
        settings = samples.FORMATS[log_format].settings

        def plain(round_: int, log_format=log_format, data=data, settings=settings) -> dict:
            return phases.spark_catch_up(data, log_dir, f"x-{log_format}-{round_}", **settings)

        def grouped(round_: int, log_format=log_format, data=data, settings=settings) -> dict:
            name = f"x-{log_format}-grouped-{round_}"
            # SERIES_RETENTION_DAYS=0: the corpus's minutes are older than the default 90 days would keep
            figures = phases.spark_catch_up(data, log_dir, name, GROUP_BY=GROUP_BY[log_format],
                                            SERIES_RETENTION_DAYS="0", **settings)
            conn = admin_db.connect(phases.DATABASE)
            try:
                check_series(conn, f"bench-{name}", data, GROUP_BY[log_format], name)
            finally:
                conn.close()
            return figures

        rounds = phases.alternating(ROUNDS, plain, grouped)
        found[log_format] = {"group_by": GROUP_BY[log_format], "plain": rounds["first"], "grouped": rounds["second"],
                             "ratio": rounds["ratio"], "best_ratio": rounds["best_ratio"], "rounds": rounds["rounds"],
                             "series": len({key.split("\x1f", 1)[1] for key in data.expected_series[GROUP_BY[log_format]]})}
    return found


def commit_cost(log) -> dict:
    """(k): a batch of N series x MINUTES minutes committed by the job's Store: the first commit
    registers the series, the second adds new minutes of known series, the third adds to existing
    rows; a batch of the same minutes without GROUP_BY for comparison."""
    cfg = load_config([], {"MYSQL_DATABASE": phases.DATABASE, "MYSQL_PASSWORD_FILE": str(phases.ROOT / ".local" / "secrets"
                                                                                         / "mysql_password")})
    phases.reset().close()
    conn = mysql.connect(cfg)
    found = {}
    try:
        for count in (0, *SERIES):  # each size without lines (COUNT_LINES off), then with, back to back
            for lines in (False, True):
                key = f"{count}{'' if lines else '-no-lines'}"
                found[key] = timed_commits(conn, f"bench-commit-{key}", count, log, lines)
    finally:
        conn.close()
    return found


def timed_commits(conn, job: str, count: int, log, lines: bool = True) -> dict:
    group_by = "field:service.name,level"
    series = SeriesStore(job, group_by, max_series=max(count, 1)) if count else None
    job_store = store.Store(conn, job, ["bench-commit"], series=series)
    job_store.acquire_lease("bench")
    offsets: Position = {}
    timings: list[float] = []
    for step, first_minute in enumerate((30_000_000, 30_000_000 + MINUTES, 30_000_000 + MINUTES)):
        minutes = range(first_minute, first_minute + MINUTES)
        by_series = {(m, f"service-{s:05d}{dimensions.SEPARATOR}ERROR"): 1 + (m + s) % 3 for m in minutes for s in range(count)}
        totals = {m: sum(n for (minute, _s), n in by_series.items() if minute == m) or 1 for m in minutes}
        after = {TopicPartition("bench-commit", 0): offsets.get(TopicPartition("bench-commit", 0), 0) + 1000}
        # with `lines` (COUNT_LINES), every minute and series has lines too: three per ERROR line
        batch = BatchSummary(records=1000, errors=sum(totals.values()), minute_counts=totals, series_counts=by_series,
                             minute_lines={m: 3 * n for m, n in totals.items()} if lines else {},
                             series_lines={key: 3 * n for key, n in by_series.items()} if lines else {})
        started = time.perf_counter()
        job_store.commit_batch(batch, offsets, after, {"bench-commit": "bench"})
        timings.append((time.perf_counter() - started) * 1000)
        offsets = after
        log(f"(k) {count} series x {MINUTES} minutes{' with lines' if lines else ''}, commit {step + 1}: "
            f"{timings[-1]:.0f} ms")
    rows = count * MINUTES
    return {"series": count, "lines": lines, "rows": rows, "register_ms": timings[0], "new_minutes_ms": timings[1],
            "existing_rows_ms": timings[2], "ms_per_1000_rows": timings[1] / rows * 1000 if rows else None}


def markdown_lines(results: dict) -> list[str]:
    lines: list[str] = []
    grouped = results.get("x_group_by")
    if grouped:
        lines += ["GROUP_BY: (b) per format with two dimensions against the same format without, alternating "
                  f"{ROUNDS} rounds in this run; with / without is the median of the rounds' own ratios (best of each "
                  "for reference); every series matched the corpus's own dimension values and added up to error_log.", "",
                  "| format | GROUP_BY | series | best records/s without | best records/s with | with / without "
                  "(median of rounds) | best / best | rounds (without, with) |",
                  "|---|---|---:|---:|---:|---:|---:|---|"]
        for name, f in grouped.items():
            rounds = phases.rounds_cells(f)[1]
            lines.append(f"| {name} | `{f['group_by']}` | {f['series']} | {f['plain']['records_per_s']:,.0f} | "
                         f"{f['grouped']['records_per_s']:,.0f} | {f['ratio']:.2f} | {f['best_ratio']:.2f} | "
                         f"{rounds} |")
        lines.append("")
    cost = results.get("k_commit_cost")
    if cost:
        lines += [f"The batch transaction with GROUP_BY: one batch of N series x {MINUTES} minutes committed by the "
                  "job's Store (bench/dimensions.py). First: N new series registered (registry, labels) and N x 60 "
                  "rows inserted; then 60 new minutes of the same series; then the same minutes again (upserts). "
                  "Each size without lines (COUNT_LINES off), then with every row's lines, back to back.", "",
                  "| series | lines | rows | first commit ms | new minutes ms | existing rows ms | ms per 1 000 rows |",
                  "|---:|:---:|---:|---:|---:|---:|---:|"]
        for f in cost.values():
            per = "" if f["ms_per_1000_rows"] is None else f"{f['ms_per_1000_rows']:.1f}"
            lines.append(f"| {f['series']} | {'yes' if f.get('lines', True) else 'no'} | {f['rows']:,} | "
                         f"{f['register_ms']:,.0f} | {f['new_minutes_ms']:,.0f} | {f['existing_rows_ms']:,.0f} | {per} |")
        lines.append("")
    return lines


def goals(results: dict) -> list[tuple[str, str, bool | None]]:
    return [(f"GROUP_BY={f['group_by']} on {name}: (b) >= {GOAL} x the same format without GROUP_BY",
             f"{f['ratio']:.2f} x", f["ratio"] >= GOAL) for name, f in (results.get("x_group_by") or {}).items()]
