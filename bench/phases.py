"""The bench's measurements, one function per variant. Each returns a dict of figures and
raises BenchError when a variant's results are not exactly the expected ones."""

import json
import os
import re
import statistics
import subprocess
from pathlib import Path

from bench import procs
from bench.corpus import Corpus
from errorcount.tools import kafka_admin, samples
from errorcount.tools.localenv import local_stack
from tests.harness import admin_db
from tests.harness import drivers as harness

ROOT = procs.ROOT
DATABASE = "errorcount_bench"


class BenchError(Exception):
    """A variant failed or produced results that differ from the expectation."""


def prepare_database() -> None:
    """A database of its own, so the bench never touches the job's real error_log."""
    conn = admin_db.connect("mysql")
    admin_db.query(conn, f"CREATE DATABASE IF NOT EXISTS {DATABASE}")
    admin_db.query(conn, f"USE {DATABASE}")
    admin_db.apply_schema(conn)
    # sql/grants.sql itself with this database's name: a grant the job needs (retention's DELETEs)
    # is never missing from the bench's copy of the list
    admin_db.apply_sql_file(conn, "grants.sql", MYSQL_DATABASE=DATABASE, MYSQL_USER=local_stack()["MYSQL_USER"])
    conn.close()


def reset() -> "admin_db.pymysql.Connection":
    conn = admin_db.connect(DATABASE)
    tables = admin_db.query(conn, "SELECT table_name FROM information_schema.tables"
                                  " WHERE table_schema = %s AND table_type = 'BASE TABLE'", (DATABASE,))
    for (table,) in tables:  # every table of the schema; TRUNCATE: the scale phase leaves 50 000 000 rows
        admin_db.query(conn, f"TRUNCATE TABLE {table}")
    return conn


def job_env(job: str, topic: str, **extra: str) -> dict[str, str]:
    """A bench driver: the local stack (its own database), a non-UTC zone, run.sh's defaults otherwise."""
    return {**harness.driver_env(job, topic), "MYSQL_DATABASE": DATABASE,
            "MYSQL_PASSWORD_FILE": str(ROOT / ".local" / "secrets" / "mysql_password"),
            "TZ": "Asia/Kolkata", "PYTHONPATH": str(ROOT), **extra}


def wait_for_driver(driver: harness.Driver, condition, timeout: float, what: str):
    """harness.wait_until, failing at once if the driver died."""
    return harness.wait_until(lambda: driver.check_alive() or condition(), timeout, what)


def check_exact(conn, job: str, topic: str, corpus_expected: dict[str, int], records: int, what: str) -> None:
    counts = admin_db.error_log(conn)
    if counts != corpus_expected:
        diff = {k: (counts.get(k, 0), corpus_expected.get(k, 0)) for k in set(counts) | set(corpus_expected)
                if counts.get(k, 0) != corpus_expected.get(k, 0)}
        raise BenchError(f"{what}: error_log differs from the expected counts in {len(diff)} minutes "
                         f"(got, expected): {dict(list(diff.items())[:5])}")
    ledger = admin_db.ledger(conn, job)
    if ledger[1] != records:
        raise BenchError(f"{what}: ledger counts {ledger[1]} records, the topic holds {records}")


def read_ceiling(corpus: Corpus, log_dir: Path) -> dict:
    """(a) Kafka's ConsumerPerformance on the corpus topic: best of two runs (page cache warm)."""
    lib = subprocess.run([str(ROOT / "scripts" / "jars.sh"), "kafka"], check=True, capture_output=True,
                         text=True).stdout.strip()
    runs = []
    for attempt in range(2):
        out = subprocess.run(["java", "-Xmx512m", "-cp", f"{lib}/*", "org.apache.kafka.tools.ConsumerPerformance",
                              "--bootstrap-server", kafka_admin.bootstrap(), "--topic", corpus.topic,
                              "--messages", str(corpus.lines), "--timeout", "120000",
                              "--group", f"bench-perf-{os.getpid()}-{attempt}"],
                             check=True, capture_output=True, text=True, timeout=300).stdout
        (log_dir / f"a-consumer-perf-{attempt}.log").write_text(out)
        header, values = [line for line in out.splitlines() if re.match(r"^(start\.time|\d{4}-)", line)][-2:]
        row = dict(zip([h.strip() for h in header.split(",")], [v.strip() for v in values.split(",")], strict=True))
        runs.append({"records_per_s": float(row["nMsg.sec"]), "fetch_records_per_s": float(row["fetch.nMsg.sec"]),
                     "mb_per_s": float(row["MB.sec"]), "records": int(row["data.consumed.in.nMsg"])})
    best = max(runs, key=lambda r: r["records_per_s"])
    if best["records"] < corpus.lines:
        raise BenchError(f"ConsumerPerformance read {best['records']} of {corpus.lines} records")
    return {**best, "runs": runs}


def catch_up_figures(batches: list, lines: int, driver: procs.Driver, name: str) -> dict:
    """Rates and per-batch means of a catch-up from its batch lines, the same for (a') and (b)."""
    if sum(b.records for b in batches) != lines:
        raise BenchError(f"{name}: the driver log accounts for {sum(b.records for b in batches)} records")
    first_start = batches[0].done - batches[0].batch_ms / 1000
    seconds = batches[-1].done - first_start
    warm_rate, warm_batches = procs.warm_rate(batches)
    warm = batches[len(batches) // 2:]
    return {"records_per_s": lines / seconds, "catch_up_s": seconds,
            "warm_records_per_s": warm_rate, "warm_batches": warm_batches,
            "startup_s": first_start - driver.launched, "batches": len(batches),
            "first_commit_s": batches[0].done - driver.launched,  # start -> first commit
            "warm_batch_ms_p50": statistics.median(b.batch_ms for b in warm),
            "commit_ms_p50": statistics.median(b.commit_ms for b in batches),
            "mean_batch_ms": sum(b.batch_ms for b in batches) / len(batches),
            "mean_commit_ms": sum(b.commit_ms for b in batches) / len(batches),
            "commit_ms_total": sum(b.commit_ms for b in batches),
            "rows_upserted": sum(b.rows for b in batches),  # the counts rows the transactions wrote
            "mean_count_ms": sum(b.count_ms for b in batches) / len(batches),
            "first_batch_ms": batches[0].batch_ms,
            # Spark's own work between batches: offsets, planning, the checkpoint's write-ahead log.
            "mean_between_batches_ms": (seconds * 1000 - sum(b.batch_ms for b in batches)) / max(1, len(batches) - 1)}


def spark_source_only(corpus: Corpus, log_dir: Path) -> dict:
    """(a') Spark's Kafka source alone, in the job's query shape: the ceiling of any Spark job here."""
    driver = procs.Driver(log_dir / "a2-source.log", job_env("bench-source", corpus.topic), "bench/source_only_job.py")
    steal = procs.Steal()
    try:
        wait_for_driver(driver, lambda: sum(b.records for b in procs.batch_logs(driver.log())) >= corpus.lines, 3600,
                        "the source-only query to read the corpus")
        cpu = procs.cpu_seconds(driver.process.pid)
    finally:
        rc = driver.stop()
    return {**catch_up_figures(procs.batch_logs(driver.log()), corpus.lines, driver, "(a')"), "exit_code": rc,
            "peak_rss_mb": rss_peaks(driver.rss.samples), "cpu_s": cpu, "cpu_steal_share": steal.share()}


def spark_catch_up(corpus: Corpus, log_dir: Path, name: str, driver: str = "errorcount/main.py", prepare=None,
                   **env: str) -> dict:
    """(b) or (d): a fresh job reads the whole topic (or every topic of a comma-separated
    corpus.topic); figures from its batch log lines. prepare(conn, job), if given, runs on the
    emptied database before the driver starts."""
    conn = reset()
    job = f"bench-{name}"
    if prepare:
        prepare(conn, job)
    topics = corpus.topic.split(",")
    ends = {topic: kafka_admin.end_offsets(topic) for topic in topics}
    server_before = procs.sql_server_cpu()
    driver = procs.Driver(log_dir / f"{name}.log", job_env(job, corpus.topic, **env), driver)
    steal = procs.Steal()
    try:
        wait_for_driver(driver, lambda: {t: admin_db.stored_offsets(conn, job, t) for t in topics} == ends, 3600,
                        f"{name} to catch up")
        cpu = procs.cpu_seconds(driver.process.pid)  # JVM + Python driver, startup included
        server_after = procs.sql_server_cpu()
    finally:
        rc = driver.stop()
    samples = driver.rss.samples
    check_exact(conn, job, corpus.topic, corpus.expected, corpus.lines, name)
    return {**catch_up_figures(procs.batch_logs(driver.log()), corpus.lines, driver, name), "exit_code": rc,
            "peak_rss_mb": rss_peaks(samples), "cpu_s": cpu, "cpu_steal_share": steal.share(),
            # the SQL server's CPU over the catch-up (its commits, and the bench's own polling of the offsets)
            "server_cpu_s": None if server_before is None or server_after is None else server_after - server_before,
            "error_log_exact": True}


def rss_peaks(samples: list[tuple[float, float, float]]) -> dict:
    return {"jvm": max((s[1] for s in samples), default=0.0), "python": max((s[2] for s in samples), default=0.0)}


def python_consumer(corpus: Corpus, log_dir: Path) -> dict:
    """(c) bench/pyconsumer.py in its own process, from the offsets in MySQL to the end offsets."""
    conn = reset()
    job = "bench-python"
    ends = kafka_admin.end_offsets(corpus.topic)
    env = {**os.environ, **job_env(job, corpus.topic)}
    with open(log_dir / "c-python.log", "wb") as log:
        process = subprocess.Popen([str(ROOT / ".venv" / "bin" / "python"), "-m", "bench.pyconsumer", "--until",
                                    json.dumps(ends)], env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=log)
        sampler = procs.RssSampler(process.pid, "bench.pyconsumer").start()
        steal = procs.Steal()
        out, _ = process.communicate(timeout=3600)
    samples = sampler.stop()
    if process.returncode != 0:
        raise BenchError(f"bench.pyconsumer exited with {process.returncode}: see {log_dir / 'c-python.log'}")
    check_exact(conn, job, corpus.topic, corpus.expected, corpus.lines, "python consumer")
    timing = json.loads(out.decode().strip().splitlines()[-1])
    seconds = timing["done"] - timing["first_record"]
    return {"records_per_s": corpus.lines / seconds, "catch_up_s": seconds,
            "startup_s": timing["first_record"] - timing["started"], "batches": timing["batches"],
            "mean_commit_ms": sum(timing["commit_ms"]) / len(timing["commit_ms"]),
            "peak_rss_mb": max((s[1] + s[2] for s in samples), default=0.0), "cpu_s": timing["cpu_s"],
            "cpu_steal_share": steal.share(), "error_log_exact": True}


def profile(corpus: Corpus, log_dir: Path, records: int, **settings: str) -> dict:
    """Per-step cost of the job's transforms (bench/profile_job.py in a spark-submit driver), with
    the log-format settings given."""
    env = job_env("bench-profile", corpus.topic, BENCH_PROFILE_RECORDS=str(min(records, corpus.lines)),
                  BENCH_PARTITIONS=str(corpus.partitions), **settings)
    name = "p-profile" if corpus.log_format == "app" else f"p-profile-{corpus.log_format}"
    driver = procs.Driver(log_dir / f"{name}.log", env, "bench/profile_job.py")
    if driver.process.wait(1800) != 0:
        raise BenchError(f"the profile driver failed: see {driver.log_path}")
    driver.rss.stop()
    found = re.findall(r"^PROFILE (.*)$", driver.log(), re.MULTILINE)
    if not found:
        raise BenchError(f"the profile driver printed no PROFILE line: see {driver.log_path}")
    return json.loads(found[-1])


def log_format(corpus: Corpus, log_dir: Path, profile_records: int) -> dict:
    """(b) and the profile on another LOG_FORMAT's corpus, with the settings its samples assume."""
    settings = samples.FORMATS[corpus.log_format].settings
    figures = spark_catch_up(corpus, log_dir, f"b-{corpus.log_format}", **settings)
    return {**figures, "value_bytes": corpus.value_bytes, "settings": settings,
            "profile": profile(corpus, log_dir, profile_records, **settings)}


def rounds_cells(found: dict) -> tuple[str, str]:
    """An alternating() result's table cells: its warm ratio ("-" without one) and its rounds' rates."""
    warm = f"{found['warm_ratio']:.2f}" if found.get("warm_ratio") else "-"
    return warm, "; ".join(f"{a:,.0f}, {b:,.0f}" for a, b in found["rounds"])


def cpu_total(figures: dict) -> float | None:
    """A catch-up's CPU seconds, its driver's and the SQL server's; None without both."""
    if figures.get("cpu_s") is None or figures.get("server_cpu_s") is None:
        return None
    return figures["cpu_s"] + figures["server_cpu_s"]


def alternating(rounds: int, first, second) -> dict:
    """first(round) and second(round) back to back, `rounds` times. The ratio second / first is the
    median of the rounds' own ratios: each pair ran back to back, so a drift of the host's speed
    weighs on both, where the best of each may pair a lucky run with an unlucky one (both kept)."""
    pairs = [(first(round_), second(round_)) for round_ in range(rounds)]
    best = [max((pair[side] for pair in pairs), key=lambda f: f["records_per_s"]) for side in (0, 1)]
    # The same median over the warm rates (the second half of each catch-up's batches: the JIT-cold
    # first batch, which both sides pay, left out), where both sides of every pair have one.
    warm = [b["warm_records_per_s"] / a["warm_records_per_s"] for a, b in pairs
            if a.get("warm_records_per_s") and b.get("warm_records_per_s")]
    # CPU seconds (the driver's processes and the SQL server's) per catch-up, second / first: the
    # extra as work, which the rates hide where batches wait for the trigger (docs/performance.md,
    # "Paired rounds"); where every pair has both sides' figures.
    cpu_s = [[cpu_total(a), cpu_total(b)] for a, b in pairs]
    cpu = [b / a for a, b in cpu_s if a and b]
    return {"first": best[0], "second": best[1],
            "ratio": statistics.median(b["records_per_s"] / a["records_per_s"] for a, b in pairs),
            "cpu_ratio": statistics.median(cpu) if len(cpu) == len(pairs) else None,
            "cpu_s": cpu_s,
            "warm_ratio": statistics.median(warm) if len(warm) == len(pairs) else None,
            "best_ratio": best[1]["records_per_s"] / best[0]["records_per_s"],
            "rounds": [[a["records_per_s"], b["records_per_s"]] for a, b in pairs]}
