"""make bench's (r): the recount. Its rate on the bench corpus against the job's own catch-up (b),
in alternating rounds: each round's job catches up on the corpus, then a recount of the corpus's
whole time span reads every record again and swaps the minutes in, checked exact (same rules: the
same counts). And the swap's cost for a week of minutes (10 080) with and without 1 000 series,
through the recount's own store (errorcount/store/recount.py), one chunk per day as by default."""

import random
import re
import time
from pathlib import Path

from bench import corpus as corpora
from bench import phases, procs
from errorcount.config.dimensions import SEPARATOR
from errorcount.config.load import load_config
from errorcount.config.rules import Rules
from errorcount.offsets import minute_text
from errorcount.recount.count import within
from errorcount.recount.diff import Figures
from errorcount.recount.plan import Range, parse_minute
from errorcount.recount.run import chunks
from errorcount.store import Store, mysql
from errorcount.store.recount import RecountStore
from errorcount.store.series import SeriesStore
from tests.harness import admin_db

GOAL = 0.9   # the recount's records/s >= 0.9 x the catch-up's (b), same run
ROUNDS = 3
WEEK = 10_080
SERIES, PRESENT = 1_000, 100  # 1 000 series, 100 of them in each minute (a week: ~1 M series rows)
RATE = re.compile(r"recount of job .*: (\d+) records read and \d+ chunk\(s\) swapped in ([\d.]+) s")


def recount_phase(data: corpora.Corpus, log_dir: Path) -> dict:
    minutes = sorted(parse_minute(key, "the corpus") for key in data.expected)
    span = Range(minutes[0], minutes[-1] + 1)  # every minute of the corpus's errors

    def catch_up(round_: int) -> dict:
        return phases.spark_catch_up(data, log_dir, f"r-b-{round_}")

    def recount(round_: int) -> dict:
        name = f"r-recount-{round_}"
        env = phases.job_env(f"bench-r-b-{round_}", data.topic, FROM=minute_text(span.first), TO=minute_text(span.end))
        driver = procs.Driver(log_dir / f"{name}.log", env, "errorcount/recount/main.py")
        rc = driver.wait(3600)
        if rc != 0:
            raise phases.BenchError(f"{name} exited with {rc}: see {log_dir / name}.log")
        found = RATE.search(driver.log())
        if not found:
            raise phases.BenchError(f"{name}: no rate line in its log {log_dir / name}.log")
        conn = admin_db.connect(phases.DATABASE)
        try:
            phases.check_exact(conn, f"bench-r-b-{round_}", data.topic, data.expected, data.lines, name)
        finally:
            conn.close()
        records, seconds = int(found[1]), float(found[2])
        return {"records_per_s": records / seconds, "records": records, "seconds": seconds}

    rounds = phases.alternating(ROUNDS, catch_up, recount)
    return {"catch_up": rounds["first"], "recount": rounds["second"], "ratio": rounds["ratio"],
            "best_ratio": rounds["best_ratio"], "rounds": rounds["rounds"]}


def swap_cost(log) -> dict:
    """A week swapped in over a week of counts, chunk by chunk, without and with SERIES series."""
    cfg = load_config([], {"MYSQL_DATABASE": phases.DATABASE, "MYSQL_PASSWORD_FILE": str(phases.ROOT / ".local" / "secrets"
                                                                                         / "mysql_password")})
    found = {}
    for count in (0, SERIES):
        phases.reset().close()
        conn = mysql.connect(cfg)
        try:
            found[str(count)] = timed_swaps(conn, cfg, count, log)
        finally:
            conn.close()
    return found


def week(count: int, seed: int) -> Figures:
    rng = random.Random(seed)
    minutes, series = {}, {}
    for m in range(30_000_000, 30_000_000 + WEEK):
        present = rng.sample(range(count), PRESENT) if count else []
        per = {(m, f"service-{s:04d}{SEPARATOR}ERROR"): (1 + (m + s) % 3, 3) for s in present}
        series.update(per)
        minutes[m] = (sum(e for e, _n in per.values()) or 1, sum(n for _e, n in per.values()) or 3)
    return Figures(minutes, series)


def timed_swaps(conn, cfg, count: int, log) -> dict:
    job = f"bench-swap-{count}"
    grouped = "field:service.name,level" if count else ""
    rules = Rules.of(cfg)
    Store(conn, job, ["bench-swap"]).acquire_lease("bench", rules=rules)
    series = SeriesStore(job, grouped, max_series=SERIES) if count else None
    recount_store = RecountStore(conn, job, "error_log", rules, "bench", series)
    span = Range(30_000_000, 30_000_000 + WEEK)
    timings = []
    for step, figures in enumerate((week(count, 1), week(count, 2))):  # the first swaps into an empty week
        started = time.perf_counter()
        for chunk in chunks(span, 1440):
            part = within(figures, chunk)
            recount_store.swap(chunk, {}, lambda _rows, part=part: part)
        timings.append(time.perf_counter() - started)
        log(f"(r) a week swapped in with {count} series{' (over the first)' if step else ''}: {timings[-1]:.1f} s")
    return {"series": count, "series_rows": len(week(count, 2).series), "minutes": WEEK, "into_empty_s": timings[0],
            "over_a_week_s": timings[1]}


def markdown_lines(results: dict) -> list[str]:
    found, swaps = results.get("r_recount"), results.get("r_swap_cost")
    lines: list[str] = []
    if found:
        rounds = phases.rounds_cells(found)[1]
        lines += [f"Recount: (b) catch-up of the corpus against a recount of its whole time span (the same records "
                  f"read again, counted and swapped in), alternating {ROUNDS} rounds; both checked exact.", "",
                  "| best (b) records/s | best recount records/s | recount / (b) (median) | best / best | rounds |",
                  "|---:|---:|---:|---:|---|",
                  f"| {found['catch_up']['records_per_s']:,.0f} | {found['recount']['records_per_s']:,.0f} | "
                  f"{found['ratio']:.2f} | {found['best_ratio']:.2f} | {rounds} |", ""]
    if swaps:
        lines += [f"Recount swap: {WEEK} minutes in 7 chunks of a day (one transaction each), without and with "
                  f"{SERIES} series ({PRESENT} of them in each minute).", "",
                  "| series | series rows | into an empty week, s | over a counted week, s |", "|---:|---:|---:|---:|"]
        lines += [f"| {s['series']} | {s['series_rows']:,} | {s['into_empty_s']:.1f} | {s['over_a_week_s']:.1f} |"
                  for s in swaps.values()]
        lines.append("")
    return lines


def goals(results: dict) -> list[tuple[str, str, bool | None]]:
    found = results.get("r_recount")
    return [(f"recount: >= {GOAL} x (b)", f"{found['ratio']:.2f}", found["ratio"] >= GOAL)] if found else []
