"""make chaos: a producer writes at a steady rate while the driver is SIGKILLed at random moments
and restarted, again and again; at the end error_log, kafka_offsets and the ledger must be exact.

    chaos.py [--lines 500000] [--partitions 4] [--kills 20] [--rate 1500] [--report docs/RELIABILITY.md]

The expectation is computed here in plain Python from the generated lines (scripts/produce.py),
never from the job's parser. error_log is compared as a delta, so existing rows are left alone.
Needs the stack up (make up). Exit 0 only if nothing was lost and nothing was doubled.
"""

import argparse
import contextlib
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

import admin_db
import kafka_admin
import produce
from admin_db import error_log, ledger, stored_offsets
from admin_db import query as rows

ROOT = Path(__file__).resolve().parents[1]
START = datetime(2040, 1, 1, 0, 0)


def mysql_port() -> str:
    return admin_db.dotenv()["MYSQL_PORT"]


def lease_epoch(conn, job: str) -> int:
    found = rows(conn, "SELECT epoch FROM job_leases WHERE job = %s", (job,))
    return int(found[0][0]) if found else 0


def start_driver(job: str, topic: str, log_path: Path) -> subprocess.Popen:
    env = {**os.environ, "JOB_NAME": job, "KAFKA_TOPIC": topic, "TRIGGER_INTERVAL": "1 second",
           "KAFKA_BOOTSTRAP_SERVERS": kafka_admin.bootstrap(), "MYSQL_PORT": mysql_port(),
           "TZ": "America/New_York", "DRIVER_MEMORY": "1g", "SPARK_MASTER": "local[2]"}
    with open(log_path, "ab") as log:
        return subprocess.Popen([str(ROOT / "scripts" / "run.sh"), "job"], env=env, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def kill9(process: subprocess.Popen) -> None:
    """Everything the driver is (wrapper, JVM, Python) dies at once, as with a lost machine."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(60)


def produce_steadily(topic: str, events: list, partitions: int, rate: int, done: threading.Event) -> None:
    """Writes events in order (round-robin, so event i lands at partition i % P, offset i // P)."""
    chunk = max(1, rate // 10)
    writer = produce.Writer(topic, partitions)
    started = time.monotonic()
    for index in range(0, len(events), chunk):
        writer.write(events[index:index + chunk], first_index=index)
        ahead = started + (index + chunk) / rate - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)  # pacing the producer, not synchronising with anything
    done.set()


def run(lines: int, partitions: int, kills: int, rate: int, seed: int = 2040, log=print) -> dict:
    conn = admin_db.connect()
    stamp = time.strftime("%Y%m%d%H%M%S")
    topic, job = f"chaos-{stamp}", f"chaos-{stamp}"
    kafka_admin.create_topic(topic, partitions)
    events = produce.generate(lines, seed, START, 120)
    before = error_log(conn)
    log_path = ROOT / ".local" / "test-logs" / f"{job}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    began = time.monotonic()
    produced = threading.Event()
    threading.Thread(target=produce_steadily, args=(topic, events, partitions, rate, produced), daemon=True).start()

    restarts = 0
    for kill in range(kills):
        driver = start_driver(job, topic, log_path)
        restarts += kill > 0
        if rng.random() < 0.75:  # mostly mid-stream: after this driver committed something
            batches = ledger(conn, job)[0]
            deadline = time.monotonic() + 90
            while ledger(conn, job)[0] == batches and time.monotonic() < deadline and driver.poll() is None:
                time.sleep(0.2)
        time.sleep(rng.uniform(0, 6))
        kill9(driver)
        committed = sum(stored_offsets(conn, job, topic).values())
        log(f"kill {kill + 1}/{kills} at {time.monotonic() - began:.0f} s: {committed} records committed")

    produced.wait()
    epoch = lease_epoch(conn, job)
    final = start_driver(job, topic, log_path)
    restarts += 1
    end = kafka_admin.end_offsets(topic)
    while lease_epoch(conn, job) == epoch or stored_offsets(conn, job, topic) != end:
        if final.poll() is not None:
            raise RuntimeError(f"the final driver exited with {final.returncode}; see {log_path}")
        time.sleep(0.5)
    final.send_signal(signal.SIGTERM)
    final_rc = final.wait(120)
    wall = time.monotonic() - began

    expected = Counter(produce.expected_counts(events))
    actual = error_log(conn) - before
    batches, ledger_records, _errors, ledger_rejected = ledger(conn, job)
    figures = {
        "lines": lines, "partitions": partitions, "kills": kills, "restarts": restarts,
        "error_lines": sum(expected.values()), "rejected_lines": sum(e.rejected for e in events),
        "lost": sum((expected - actual).values()), "doubled": sum((actual - expected).values()),
        "offsets_exact": stored_offsets(conn, job, topic) == end, "ledger_batches": batches,
        "ledger_records": ledger_records, "ledger_rejected": ledger_rejected,
        "final_exit": final_rc, "wall_seconds": round(wall),
    }
    figures["ok"] = (figures["lost"] == 0 and figures["doubled"] == 0 and figures["offsets_exact"]
                     and ledger_records == lines and ledger_rejected == figures["rejected_lines"] and final_rc == 0)
    kafka_admin.delete_topic(topic)
    return figures


def table(figures: dict) -> str:
    rows_ = [("lines produced", figures["lines"]), ("partitions", figures["partitions"]),
             ("ERROR lines expected", figures["error_lines"]), ("rejected lines expected", figures["rejected_lines"]),
             ("SIGKILLs", figures["kills"]), ("restarts", figures["restarts"]),
             ("lost", figures["lost"]), ("doubled", figures["doubled"]),
             ("kafka_offsets = end offsets", "yes" if figures["offsets_exact"] else "NO"),
             ("ledger batches", figures["ledger_batches"]), ("ledger records", figures["ledger_records"]),
             ("ledger rejected", figures["ledger_rejected"]), ("wall time", f"{figures['wall_seconds']} s"),
             ("verdict", "exact" if figures["ok"] else "FAILED")]
    return "| figure | value |\n|---|---|\n" + "\n".join(f"| {name} | {value} |" for name, value in rows_)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lines", type=int, default=500_000)
    parser.add_argument("--partitions", type=int, default=4)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--rate", type=int, default=1200, help="lines per second (spreads them over the kills)")
    parser.add_argument("--report", help="write the figures as markdown to this file")
    args = parser.parse_args()
    figures = run(args.lines, args.partitions, args.kills, args.rate)
    text = table(figures)
    print(text)
    if args.report:
        command = f"make chaos (scripts/chaos.py --lines {args.lines} --partitions {args.partitions} " \
                  f"--kills {args.kills} --rate {args.rate})"
        Path(args.report).write_text(
            "# Reliability: figures from the latest `make chaos`\n\n"
            f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with `{command}` on {os.cpu_count()} cores, "
            "broker, MariaDB and driver on the same host.\n\n"
            "A producer writes at a steady rate while the driver (wrapper, JVM and Python) is SIGKILLed at random "
            "moments (three in four after it committed a batch) and restarted each time. The expectation is a "
            "plain-Python count of every generated line; `lost` and `doubled` compare it minute by minute with "
            "`error_log`.\n\n" + text + "\n", encoding="utf-8")
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
