"""(e) Steady state: a producer at a fixed rate, latency from each record's Kafka timestamp to
the commit that counted it; and the soak: hundreds of tiny back-to-back batches for the
per-batch overhead and the driver's memory trend."""

import bisect
import contextlib
import itertools
import json
import os
import time
import uuid
from collections import Counter
from datetime import UTC
from pathlib import Path

from confluent_kafka import Consumer, TopicPartition

from bench import procs
from bench.corpus import Generator
from bench.phases import BenchError, check_exact, job_env, reset, wait_for_driver
from errorcount.tools import kafka_admin, produce
from tests.harness import admin_db
from tests.harness import drivers as harness

WARM_UP_S = 30  # records of the first seconds (JIT warm-up) are left out of the latency figures
IDLE_S = 20     # after the steady state: how long the drained job is watched with nothing to read


def event_pool(generator: Generator, size: int = 50_000) -> list[tuple[bytes | None, str | None]]:
    """Events generated ahead of time: generating costs more than producing, and the producer
    shares the machine's two cores with the job under test."""
    return [generator.event()[:2] for _ in range(size)]


def paced_produce(topic: str, partitions: int, rate: float, seconds: float, pool: list, expected: Counter,
                  stop=lambda: False) -> int:
    """Writes `rate` records/s for `seconds` (or until stop()), cycling through `pool`,
    round-robin over the partitions; adds what it wrote to `expected`; returns how many."""
    def values():
        for sent in itertools.count():
            value, minute = pool[sent % len(pool)]
            if minute:
                expected[minute] += 1
            yield value
    began = time.monotonic()
    writer = produce.Writer(topic, partitions, **{"linger.ms": 5})
    return writer.write_paced(values(), rate, lambda: time.monotonic() - began >= seconds or stop())


def commit_times(conn, job: str) -> dict[int, tuple[list[int], list[float]]]:
    """Per partition: the ledger's offsets_after in commit order, and each commit's epoch time."""
    rows = admin_db.query(conn, "SELECT offsets_after, committed_at FROM ingest_batches WHERE job = %s ORDER BY id",
                          (job,))
    found: dict[int, tuple[list[int], list[float]]] = {}
    for offsets_after, committed_at in rows:
        stamp = committed_at.replace(tzinfo=UTC).timestamp()  # the job's session stores UTC
        for partition, offset in json.loads(offsets_after).items():
            ends, times = found.setdefault(int(partition), ([], []))
            if not ends or offset > ends[-1]:
                ends.append(offset)
                times.append(stamp)
    return found


def latencies(topic: str, commits: dict[int, tuple[list[int], list[float]]], since: float) -> list[float]:
    """Seconds from each record's Kafka timestamp (at or after `since`) to the commit that counted it."""
    ends = kafka_admin.end_offsets(topic)
    consumer = Consumer({"bootstrap.servers": kafka_admin.bootstrap(), "group.id": f"bench-latency-{uuid.uuid4().hex}",
                         "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, p, 0) for p in ends])
    result, remaining = [], sum(ends.values())
    while remaining:
        for message in consumer.consume(num_messages=10000, timeout=5.0):
            if message.error():
                raise BenchError(f"reading back timestamps: {message.error()}")
            remaining -= 1
            stamp = message.timestamp()[1] / 1000
            if stamp >= since:
                batch_ends, times = commits[message.partition()]
                result.append(times[bisect.bisect_right(batch_ends, message.offset())] - stamp)
    consumer.close()
    return result


def drain(conn, driver: procs.Driver, job: str, topic: str) -> None:
    """Waits until the job has committed everything written to the topic."""
    ends = kafka_admin.end_offsets(topic)
    wait_for_driver(driver, lambda: admin_db.stored_offsets(conn, job, topic) == ends, 600, f"{job} to drain the topic")


def idle_cost(conn, driver: procs.Driver, job: str, trigger_s: float, seconds: float = IDLE_S) -> dict:
    """The drained job with nothing to read: Spark runs no batch for a trigger that finds no new
    offsets (checked: the ledger must not grow), so an empty trigger costs only the end-offset
    request and the driver's background work; this is the driver's whole CPU time (JVM and
    Python, all threads) over the window, per trigger."""
    batches_before = admin_db.ledger(conn, job)[0]
    cpu_before, began = procs.cpu_seconds(driver.process.pid), time.monotonic()
    time.sleep(seconds)  # a measurement window, not a wait for a condition
    cpu_s, elapsed = procs.cpu_seconds(driver.process.pid) - cpu_before, time.monotonic() - began
    driver.check_alive()
    triggers = elapsed / trigger_s if trigger_s else None
    return {"seconds": elapsed, "batches_run": admin_db.ledger(conn, job)[0] - batches_before,
            "driver_cores": cpu_s / elapsed, "cpu_ms_per_trigger": cpu_s * 1000 / triggers if triggers else None}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


KEPT_UP = 0.95  # the job read at least this share of the producer's rate, its drain included


def steady_state(partitions: int, rate: float, seconds: float, trigger_s: float, log_dir: Path, name: str = "e-steady",
                 **env: str) -> dict:
    """(e) The job at a fixed producer rate for WARM_UP_S + seconds, then IDLE_S with no input."""
    topic, job = f"bench-steady-{uuid.uuid4().hex[:8]}", "bench-steady"
    kafka_admin.create_topic(topic, partitions)
    conn, pool, expected = reset(), event_pool(Generator(99, 60)), Counter()
    driver = procs.Driver(log_dir / f"{name}.log", job_env(job, topic, **env))
    try:
        # a record on every partition first: the query is up and Spark's reader has opened a consumer for
        # each (at 512 partitions the first batch that reads them all takes tens of seconds)
        sent = paced_produce(topic, partitions, partitions, 1.01, pool, expected)
        wait_for_driver(driver, lambda: sum(admin_db.stored_offsets(conn, job, topic).values()) == sent, 300,
                        "the steady-state job to start")
        since = time.time() + WARM_UP_S
        began, cpu_began = time.monotonic(), time.process_time()
        sent += paced_produce(topic, partitions, rate, WARM_UP_S + seconds, pool, expected)
        produced_s, producer_cpu_s = time.monotonic() - began, time.process_time() - cpu_began
        drain(conn, driver, job, topic)
        # what the job read meanwhile: a job that keeps up drains within a batch or two of the
        # producer's end; one that fell behind works off a backlog, and its p99 measures that
        drained_s = time.monotonic() - began - produced_s
        idle = idle_cost(conn, driver, job, trigger_s)
    finally:
        driver.stop()
    check_exact(conn, job, topic, +expected, sent, "steady state")
    values = latencies(topic, commit_times(conn, job), since)
    kafka_admin.delete_topic(topic)
    batches = procs.batch_logs(driver.log())
    achieved, read = sent / produced_s, sent / (produced_s + drained_s)
    return {"target_rate": rate, "achieved_rate": achieved, "seconds": seconds, "records": sent,
            "drain_s": drained_s, "job_read_rate": read, "kept_up": read >= KEPT_UP * achieved,
            "producer_cores": producer_cpu_s / produced_s,
            "measured_records": len(values), "batches": len(batches),
            "latency_s": {"p50": percentile(values, 0.50), "p95": percentile(values, 0.95),
                          "p99": percentile(values, 0.99), "max": max(values)},
            "mean_batch_ms": sum(b.batch_ms for b in batches) / len(batches), "idle": idle,
            "error_log_exact": True}


def slope_per_100(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of (batches committed, MB) points, in MB per 100 batches."""
    if len(points) < 3:
        return None
    mean_n = sum(n for n, _ in points) / len(points)
    mean_rss = sum(r for _, r in points) / len(points)
    spread = sum((n - mean_n) ** 2 for n, _ in points) or 1.0
    return 100 * sum((n - mean_n) * (r - mean_rss) for n, r in points) / spread


def rss_trend(samples: list[tuple[float, float, float]], commits: list[float]) -> dict:
    """Driver RSS (JVM + Python) against the number of batches committed when it was sampled.
    The trend (MB per 100 batches) is taken over the second half of the batches, once the JIT
    has warmed up (a leak keeps its slope, warm-up levels off); the slope after the first 20 %
    of batches is reported beside it."""
    points = [(bisect.bisect_right(commits, t), jvm + python) for t, jvm, python in samples if jvm]
    points = [(n, rss) for n, rss in points if n >= len(commits) // 5]
    warm = [(n, rss) for n, rss in points if n >= len(commits) // 2]
    if len(warm) < 3:
        return {"slope_mb_per_100_batches": None}
    return {"slope_mb_per_100_batches": slope_per_100(warm), "slope_from_20pct": slope_per_100(points),
            "first_mb": warm[0][1], "last_mb": warm[-1][1], "peak_mb": max(r for _, r in points),
            "from_batch": warm[0][0], "to_batch": warm[-1][0], "warm_up_from_batch": points[0][0]}


def soak(partitions: int, batches: int, log_dir: Path, watch: str = "on", name: str = "f-soak") -> dict:
    """Tiny batches back to back (trigger 0 s, a trickle of 100 records/s): the gap between
    consecutive commits is the whole fixed cost of a batch; the RSS samples give the trend.
    `watch` "on": the driver serves its metrics (scraped every second, more often than Prometheus
    would) and mirrors its offsets; "metrics" or "mirror": one of them; "off": neither (the lag
    aggregate is part of the job's plan in all)."""
    topic, job = f"bench-soak-{uuid.uuid4().hex[:8]}", f"bench-{name}"
    kafka_admin.create_topic(topic, partitions)
    conn, pool, expected = reset(), event_pool(Generator(7, 60)), Counter()
    # Native Memory Tracking (a few % overhead) says which part of the JVM grows, if any.
    extra = f"{os.environ.get('SPARK_SUBMIT_EXTRA', '')} --driver-java-options -XX:NativeMemoryTracking=summary".strip()
    port = harness.free_port() if watch in ("on", "metrics") else 0
    endpoint, mirror = f"127.0.0.1:{port}" if port else None, watch in ("on", "mirror")
    watch_env = {"METRICS_PORT": str(port), **({} if mirror else {"KAFKA_LAG_GROUP": ""})}
    driver = procs.Driver(log_dir / f"{name}.log", job_env(job, topic, TRIGGER_INTERVAL="0 seconds",
                                                            SPARK_SUBMIT_EXTRA=extra, **watch_env))
    last_check, memory, scrapes = [0.0], {}, [0]

    def enough() -> bool:
        if time.monotonic() - last_check[0] < 1:
            return False
        last_check[0] = time.monotonic()
        driver.check_alive()
        if endpoint:
            with contextlib.suppress(OSError):  # not listening before the query starts
                harness.scrape(endpoint)
                scrapes[0] += 1
        done = admin_db.ledger(conn, job)[0]
        if done >= batches // 2 and "from" not in memory:  # where rss_trend's trend starts
            memory["from"] = procs.native_memory_mb(driver.jvm_pid())
        return done >= batches

    try:
        sent = paced_produce(topic, partitions, 100, 900, pool, expected, stop=enough)
        memory["to"] = procs.native_memory_mb(driver.jvm_pid())
        drain(conn, driver, job, topic)
        watched = {"watch": watch, **check_watch(conn, job, topic, partitions, endpoint, mirror, scrapes[0])}
    finally:
        driver.stop()
    check_exact(conn, job, topic, +expected, sent, "soak")
    kafka_admin.delete_topic(topic)
    stamps = [row[0].replace(tzinfo=UTC).timestamp() for row in admin_db.query(
        conn, "SELECT committed_at FROM ingest_batches WHERE job = %s ORDER BY id", (job,))]
    gaps = sorted(b - a for a, b in zip(stamps[10:], stamps[11:], strict=False))
    logged = sorted(b.batch_ms for b in procs.batch_logs(driver.log())[10:])
    return {"batches": len(stamps), "records": sent, "records_per_batch": sent / len(stamps),
            "batch_cycle_ms": {"p50": gaps[len(gaps) // 2] * 1000, "p95": gaps[int(len(gaps) * 0.95)] * 1000},
            "foreach_batch_ms_p50": logged[len(logged) // 2],
            "spark_steps_ms_p50": procs.spark_steps_p50(driver.log()),
            "jvm_native_memory_mb": memory,
            "rss": rss_trend(driver.rss.samples, stamps), "error_log_exact": True, "watch": watched}


def check_watch(conn, job: str, topic: str, partitions: int, endpoint: str | None, mirror: bool,
                scrapes: int) -> dict:
    """Once drained: the scrape counts every batch in MySQL's ledger (metrics on) and the mirrored
    group holds MySQL's offsets (mirror on); off, nothing listens and the group does not exist."""
    stored, batches = admin_db.stored_offsets(conn, job, topic), admin_db.ledger(conn, job)[0]
    group = f"errorcount-{job}"
    if mirror:
        harness.wait_until(lambda: kafka_admin.group_offsets(group, topic, partitions) == stored, 30,
                           "the mirrored group to hold MySQL's offsets")
    elif kafka_admin.group_offsets(group, topic, partitions):
        raise BenchError(f"soak with the mirror off: the group {group} holds offsets")
    if endpoint:
        scraped = harness.scrape(endpoint)[("errorcount_batches_total", f'job_name="{job}"')]
        if scraped != batches:
            raise BenchError(f"soak: the metrics count {scraped} batches, MySQL's ledger {batches}")
    return {"scrapes": scrapes}


def watch_cost(partitions: int, batches: int, rounds: int, log_dir: Path,
               states: tuple[str, ...] = ("off", "on")) -> dict:
    """What the watch (metrics endpoint scraped every second, offsets mirror) costs a tiny batch:
    soaks in each state, alternating, every other round in reverse order (off on, on off, ...)
    so a drift of the machine's speed over the phase weighs on all states alike."""
    found: dict[str, list] = {state: [] for state in states}
    for round_ in range(rounds):
        for state in states if round_ % 2 == 0 else states[::-1]:
            result = soak(partitions, batches, log_dir, watch=state, name=f"w-{state}-{round_}")
            found[state].append({"cycle_p50_ms": result["batch_cycle_ms"]["p50"],
                                 "cycle_p95_ms": result["batch_cycle_ms"]["p95"],
                                 "foreach_batch_ms_p50": result["foreach_batch_ms_p50"]})
    return {"batches": batches, "rounds": rounds, **found}
