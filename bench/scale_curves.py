"""The scale phase's curves besides partitions (bench/scale.py): topics under one pattern, series
of GROUP_BY, the counts table's size, a year of event-time minutes and the steady state over many
partitions. Each size is one fresh job read to its end and checked exact, as (b) is; each curve's
first size is its baseline, measured in the same run."""

import json
import random
from collections import Counter
from datetime import timedelta
from pathlib import Path

from bench import corpus as corpora
from bench import phases, steady
from errorcount.tools import produce
from tests.harness import admin_db

TOPICS = (1, 10, 100)                 # topics of TOPIC_PARTITIONS each under one KAFKA_TOPIC_PATTERN
TOPIC_PARTITIONS = 4
SERIES = (10, 1_000, 10_000, 100_000)  # distinct field:service.name values among the ERROR lines
TABLE_ROWS = (0, 5_000_000, 50_000_000)  # error_series_counts rows of earlier minutes before the catch-up
TABLE_SERIES = 100                     # the table curve's series: a year of minutes x ~100 series
YEAR_MINUTES = 525_600
STEADY_PARTITIONS = (4, 512)
ERROR_SHARE = 1 / 7


def topics_curve(args, cache: Path, run_dir: Path, log) -> dict:
    """The same number of app lines split across N topics (their own seeds) read through one
    KAFKA_TOPIC_PATTERN; the corpus's topic is their list, its expectation the sum of theirs."""
    found = {}
    for count in TOPICS:
        per_topic = args.scale_lines // count
        parts = [app_topic(f"bench-v{corpora.CORPUS_VERSION}-scale{per_topic}-t{count}-{number:03d}", per_topic,
                           args.seed + 1000 + number, args.minutes, cache, log) for number in range(count)]
        data = corpora.combined(parts)
        pattern = f"bench-v{corpora.CORPUS_VERSION}-scale{per_topic}-t{count}-[0-9]+"
        found[str(count)] = figures = phases.spark_catch_up(data, run_dir, f"s-topics-{count}", KAFKA_TOPIC="",
                                                            KAFKA_TOPIC_PATTERN=pattern)
        log(f"(s) {count} topics: {figures['records_per_s']:,.0f} records/s")
    return found


def app_topic(topic: str, lines: int, seed: int, minutes: int, cache: Path, log) -> corpora.Corpus:
    """An app corpus of TOPIC_PARTITIONS partitions under its own name."""
    data = corpora.ensure_topic(topic, TOPIC_PARTITIONS, lines, cache, log, f"{lines} app records (seed {seed})",
                                lambda: corpora.write(topic, TOPIC_PARTITIONS, lines, seed, minutes))
    return corpora.Corpus(topic, lines, TOPIC_PARTITIONS, data["expected"], data["rejected"], data["value_bytes"])


def series_corpus(lines: int, values: int, seed: int, minutes: int, cache: Path, log) -> corpora.Corpus:
    """json lines whose ERROR lines cycle through `values` service names (every one present, in
    ~equal shares), 1 in 7 an ERROR, spread over `minutes`; counted here in plain Python."""
    topic = f"bench-v{corpora.CORPUS_VERSION}-series{values}-{lines}-p4-s{seed}"

    def generate() -> dict:
        rng, counts, writer, errors, size = random.Random(seed), Counter(), produce.Writer(topic, 4), 0, 0
        for index in range(lines):
            instant = corpora.START + timedelta(minutes=rng.randrange(minutes), seconds=rng.randrange(60),
                                                milliseconds=rng.randrange(1000))
            error = rng.random() < ERROR_SHARE
            service = errors % values if error else rng.randrange(values)
            event = {"@timestamp": instant.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
                     "log.level": "ERROR" if error else rng.choice(("INFO", "WARN", "DEBUG")),
                     "message": f"request {rng.randrange(10**6)} {'failed' if error else 'served'}",
                     "service": {"name": f"svc-{service:06d}"}}
            if error:
                counts[instant.strftime("%Y-%m-%d %H:%M:00")] += 1
                errors += 1
            value = json.dumps(event).encode()
            size += len(value)
            writer.send(value, index)
        writer.flush(120)
        return {"expected": dict(counts), "rejected": 0, "value_bytes": size, "expected_lines": {}}
    data = corpora.ensure_topic(topic, 4, lines, cache, log, f"{lines} json records of {values} series", generate)
    return corpora.Corpus(topic, lines, 4, data["expected"], 0, data["value_bytes"], "json")


SERIES_SETTINGS = {"LOG_FORMAT": "json", "GROUP_BY": "field:service.name", "SERIES_RETENTION_DAYS": "0"}


def check_series(job: str, data: corpora.Corpus, values: int) -> dict:
    """Every value registered as its own series (none overflowed) and the series' counts of the
    corpus's minutes adding up to its ERROR lines; returns the rows the catch-up wrote."""
    conn = admin_db.connect(phases.DATABASE)
    (series, overflow), = admin_db.query(conn, "SELECT COUNT(*), COALESCE(SUM(overflow), 0) FROM error_series "
                                               "WHERE job = %s", (job,))
    (rows, total), = admin_db.query(conn, "SELECT COUNT(*), COALESCE(SUM(log_count), 0) FROM error_series_counts "
                                          "WHERE job = %s AND log_time >= %s", (job, corpora.START))
    conn.close()
    errors = sum(data.expected.values())
    if (series - overflow, int(total)) != (min(values, errors), errors):  # fewer ERROR lines than values: one each
        raise phases.BenchError(f"{job}: {series - overflow} series counting {total} ERROR lines, expected "
                                f"{min(values, errors)} counting {errors}")
    return {"series": values, "rows_stored": rows}


def series_curve(args, cache: Path, run_dir: Path, log) -> dict:
    found = {}
    for values in SERIES:
        data = series_corpus(args.scale_lines, values, args.seed, args.minutes, cache, log)
        name = f"s-series-{values}"
        figures = phases.spark_catch_up(data, run_dir, name, **SERIES_SETTINGS, MAX_SERIES=str(max(values, 1000)))
        found[str(values)] = figures = {**figures, **check_series(f"bench-{name}", data, values)}
        log(f"(s) {values} series: {figures['records_per_s']:,.0f} records/s, peak RSS JVM "
            f"{figures['peak_rss_mb']['jvm']:,.0f} MB")
    return found


def prefill(rows: int):
    """error_series_counts rows of the job's own earlier minutes, TABLE_SERIES series each, ending
    just before the corpus's first minute, in key order (MariaDB's sequence engine: the bench runs
    on the local stack's MariaDB)."""
    def fill(conn, job: str) -> None:
        for first in range(0, rows, 1_000_000):
            admin_db.query(conn, f"INSERT INTO error_series_counts (job, log_time, series_id, log_count, line_count) "
                                 f"SELECT %s, %s - INTERVAL ({rows // TABLE_SERIES} - seq DIV {TABLE_SERIES}) MINUTE, "
                                 f"1 + seq MOD {TABLE_SERIES}, 1, 7 FROM seq_{first}_to_{min(rows, first + 1_000_000) - 1}",
                           (job, corpora.START))
        # Every size starts from the same buffer pool: InnoDB never flushes an idle pool's dirty
        # pages (MariaDB 10.11), so after a fill 90 % of it would stay dirty and the catch-up's
        # commits would pay for writing the fill out (0.70 x in the run of 2026-12-04, not the
        # table's size). A table years old has long been written; FOR EXPORT writes this one's now.
        admin_db.query(conn, "FLUSH TABLES error_series_counts FOR EXPORT")
        admin_db.query(conn, "UNLOCK TABLES")
    return fill


def table_curve(args, cache: Path, run_dir: Path, log) -> dict:
    """The same catch-up (TABLE_SERIES series) into an empty error_series_counts and into one already
    holding each of args.scale_table_rows rows: commit time per 1 000 rows written. Each run's
    batches are the same records, so they write the same rows."""
    data, found = series_corpus(args.scale_lines, TABLE_SERIES, args.seed, args.minutes, cache, log), {}
    for rows in (int(size) for size in args.scale_table_rows.split(",")):
        name = f"s-table-{rows}"
        figures = phases.spark_catch_up(data, run_dir, name, prepare=prefill(rows), **SERIES_SETTINGS)
        figures = {**figures, **check_series(f"bench-{name}", data, TABLE_SERIES), "table_rows_before": rows}
        figures["commit_ms_per_1000_rows"] = figures["commit_ms_total"] / (figures["rows_upserted"] / 1000)
        found[str(rows)] = figures
        log(f"(s) table of {rows:,} rows: {figures['commit_ms_per_1000_rows']:.1f} commit ms per 1 000 rows")
    phases.reset()  # leave no 50 000 000 rows behind
    return found


def history_curve(args, cache: Path, run_dir: Path, log) -> dict:
    """The partitions curve's 4-partition corpus spread over a year of minutes instead of args.minutes."""
    topic = f"bench-v{corpora.CORPUS_VERSION}-history{YEAR_MINUTES}-{args.scale_lines}-p4-s{args.seed}"
    corpus = app_topic(topic, args.scale_lines, args.seed, YEAR_MINUTES, cache, log)
    figures = phases.spark_catch_up(corpus, run_dir, "s-history")
    log(f"(s) a year of minutes: {figures['records_per_s']:,.0f} records/s over {len(corpus.expected):,} minutes")
    return {str(YEAR_MINUTES): {**figures, "minutes_with_errors": len(corpus.expected)}}


def steady_curve(args, trigger: str, trigger_s: float, run_dir: Path, log) -> dict:
    """(e) at the same rate on topics of STEADY_PARTITIONS partitions."""
    found = {}
    for partitions in STEADY_PARTITIONS:
        figures = steady.steady_state(partitions, args.steady_rate, args.scale_steady_seconds, trigger_s, run_dir,
                                      name=f"s-steady-{partitions}", TRIGGER_INTERVAL=trigger)
        found[str(partitions)] = {**figures, "trigger_interval_s": trigger_s}
        log(f"(s) steady at {partitions} partitions: p99 {figures['latency_s']['p99']:.2f} s")
    return found
