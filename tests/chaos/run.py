"""make chaos: a producer writes at a steady rate while the driver or the SQL server is SIGKILLed
again and again (what is left to write once the last fault has landed goes out at once), each
kill aimed at a phase of the job (tests/chaos/phases.py) and the phase it hit observed; a killed
driver is restarted, a killed server too (crash recovery, then the same driver carries on). At
the end its counts table (chaos_log), its per-dimension counts (GROUP_BY, adding up to the counts
table every minute), with COUNT_LINES the lines per minute and series beside the
ERROR lines, kafka_offsets and the ledger must be exact; and after every committed batch
counted_through must not stand past a record acknowledged before it and not counted
(tests/chaos/through.py).

    python -m tests.chaos.run --help    (options and their defaults; make chaos CHAOS_ARGS=...)

The expectation is computed here in plain Python from the generated lines (errorcount/tools/produce.py),
never from the job's parser. chaos_log is created like error_log and emptied at the start of each run.
Needs the stack up (make up), on either server (MYSQL_SERVER). Exit 0 only if nothing was lost
and nothing was doubled.
"""

import argparse
import os
import random
import sys
import threading
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

from errorcount.tools import ROOT, kafka_admin, produce, samples
from errorcount.tools.localenv import local_stack
from tests.chaos import phases as chaos_phases
from tests.chaos.faults import PAUSE_S, PAUSES, kill_server, stop_process
from tests.chaos.report import table, write_report
from tests.chaos.through import ThroughWatch
from tests.harness import admin_db, class_archive
from tests.harness import drivers as harness
from tests.harness.admin_db import (
    error_log,
    ledger,
    ledger_log_records,
    release_counts_table,
    series_counts,
    series_totals,
    stored_offsets,
)
from tests.harness.admin_db import query as rows
from tests.harness.processes import sql_server

START = datetime(2040, 1, 1, 0, 0)
COUNTS_TABLE = "chaos_log"  # its own counts table (a job owns its table): emptied at each run


def lease_epoch(conn, job: str) -> int:
    found = rows(conn, "SELECT epoch FROM job_leases WHERE job = %s", (job,))
    return int(found[0][0]) if found else 0


def start_driver(job: str, log_path: Path, settings: dict[str, str]) -> harness.Driver:
    """A chaos driver: the JVM's default JIT (it runs for minutes), with the test drivers' class
    archive when there is one (restarts after each kill start sooner; the archive changes nothing
    a query computes)."""
    option = class_archive.java_option()
    archive = {"SPARK_SUBMIT_OPTS": f"{os.environ.get('SPARK_SUBMIT_OPTS', '')} {option}".strip()} if option else {}
    return harness.Driver(log_path, {**harness.driver_env(job, ""), **settings, **archive, "TRIGGER_INTERVAL": "1 second",
                                     "COUNTS_TABLE": COUNTS_TABLE,
                                     "TZ": "America/New_York", "DRIVER_MEMORY": "1g", "SPARK_MASTER": "local[2]",
                                     "SPARK_SUBMIT_EXTRA": f"--conf spark.ui.port={chaos_phases.UI_PORT}"},
                          create_topic=False)  # the pattern's topics are made here


def produce_steadily(topic: str, events: list, partitions: int, rate: int, done: threading.Event,
                     faults_over: threading.Event, acked=None) -> None:
    """Writes events in order (round-robin, so event i lands at partition i % P, offset i // P): `rate`
    a second while faults land, the rest at once when `faults_over` is set (a steady pace after the
    last fault would only make the run wait; the final catch-up reads the rest as a backlog)."""
    writer = produce.Writer(topic, partitions, acked=acked)
    sent = writer.write_paced((event.value for event in events), rate, faults_over.is_set)
    writer.write(events[sent:], first_index=sent)
    done.set()


class Drivers:
    """The run's drivers, one at a time, all in one log; every one is killed if the run fails."""

    def __init__(self, job: str, topics: list[str], log_path: Path, settings: dict[str, str]):
        self.job, self.topics, self.log_path, self.settings = job, topics, log_path, settings
        self.current: harness.Driver | None = None
        self.log_from, self.restarts = 0, -1

    def ensure_running(self) -> bool:
        """Starts a driver unless one runs; True if it started one."""
        if self.current is not None and self.current.running():
            return False
        self.current, self.restarts = start_driver(self.job, self.log_path, self.settings), self.restarts + 1
        self.log_from = self.current.log_from
        return True

    def kill(self) -> None:
        if self.current is not None and self.current.running():
            self.current.kill()

    def committed(self, conn) -> dict[str, dict[int, int]]:
        return {topic: stored_offsets(conn, self.job, topic) for topic in self.topics}

    def ends(self) -> dict[str, dict[int, int]]:
        return {topic: kafka_admin.end_offsets(topic) for topic in self.topics}


def kill_repeatedly(drivers: Drivers, kills: int, rng: random.Random, server_share: float, conn, log,
                    began: float, pause_share: float = 0.0,
                    pause_s: tuple[float, float] = PAUSE_S) -> list[tuple[str, str, str]]:
    """The faults: (what was killed or paused, the phase aimed at, the phase observed) for each. A
    share `pause_share` of them pause the driver, the SQL server or the broker (for `pause_s`) instead."""
    hits, user = [], local_stack()["MYSQL_USER"]
    app = f"errorcount[{drivers.job}]"  # the Spark application's name (errorcount/session.py)
    for kill in range(kills):
        started = drivers.ensure_running()
        paused = pause_share > 0 and rng.random() < pause_share  # no draw without pauses: the kills' sequence stays
        target = rng.choice(["driver", "server", "broker"]) if paused else (
            "server" if rng.random() < server_share else "driver")
        aim = rng.choice(chaos_phases.PHASES if started else chaos_phases.PHASES[1:])
        seconds = rng.uniform(*pause_s) if paused else 0.0
        resume = None
        with chaos_phases.aimed(aim, conn, user, app, started, rng, COUNTS_TABLE):
            phase = chaos_phases.observe(conn, user, app, drivers.log_path, drivers.log_from)
            if paused:
                resume = stop_process(target, drivers.current)
            elif target == "driver":
                drivers.kill()
            else:
                kill_server()
        if resume is not None:  # the aim's own locks are let go first, as after a kill
            try:
                time.sleep(seconds)  # the fault's own length, not a wait for a condition
            finally:
                resume()
        what = f"paused {target}" if paused else target
        hits.append((what, aim, phase))
        committed = sum(sum(found.values()) for found in drivers.committed(conn).values())
        log(f"fault {kill + 1}/{kills} at {time.monotonic() - began:.0f} s: {what}{f' {seconds:.0f} s' if paused else ''} "
            f"({phase}; aimed at {aim}), {committed} records committed")
    return hits


def finish(drivers: Drivers, conn) -> int:
    """A fresh driver (it proves a restart reads MySQL only) catches up; its exit code."""
    drivers.kill()
    epoch = lease_epoch(conn, drivers.job)
    drivers.ensure_running()
    current = drivers.current
    assert current is not None, "ensure_running started one"
    end = drivers.ends()

    def caught_up() -> bool:
        current.check_alive()
        return lease_epoch(conn, drivers.job) != epoch and drivers.committed(conn) == end

    harness.wait_until(caught_up, 3600, "the final driver to catch up")
    return current.stop(120)


def run(lines: int, partitions: int, kills: int, rate: int, seed: int = 2040, server_share: float = 0.5,
        log=print, log_format: str = "json", topics: int = 3, pause_share: float = 0.0,
        pause_s: tuple[float, float] = PAUSE_S) -> dict:
    """`topics` topics of `partitions` partitions each, read through KAFKA_TOPIC_PATTERN; a share
    `pause_share` of the faults are pauses of `pause_s` seconds."""
    conn = admin_db.connect()
    stamp = time.strftime("%Y%m%d%H%M%S")
    job = f"chaos-{stamp}"
    names = [f"{job}.t{number}" for number in range(topics)]
    for name in names:
        kafka_admin.create_topic(name, partitions)
    events = samples.generate(log_format, lines, seed, START, 120)
    group_by = samples.FORMATS[log_format].group_by  # every dimension the generator labels
    settings = {**samples.FORMATS[log_format].settings, "GROUP_BY": group_by, "COUNT_LINES": "true",
                "KAFKA_TOPIC_PATTERN": rf"{job}\.t[0-9]+"}
    release_counts_table(conn, COUNTS_TABLE)  # chaos counts into a table of its own, emptied
    before = error_log(conn, COUNTS_TABLE)
    log_path = ROOT / ".local" / "test-logs" / f"{job}.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    began = time.monotonic()
    produced, faults_over = [threading.Event() for _ in names], threading.Event()
    watch = ThroughWatch(job).start()
    for number, (name, done) in enumerate(zip(names, produced, strict=True)):  # event i goes to topic i % topics
        threading.Thread(target=produce_steadily, args=(name, events[number::topics], partitions, max(rate // topics, 1), done,
                                                        faults_over, watch.acked), daemon=True).start()
    drivers = Drivers(job, names, log_path, settings)
    try:
        try:
            hits = kill_repeatedly(drivers, kills, random.Random(seed), server_share, conn, log, began, pause_share, pause_s)
        finally:
            faults_over.set()
        for done in produced:
            done.wait()
        final_rc = finish(drivers, conn)
    finally:
        drivers.kill()
        watch.stop()
    wall = time.monotonic() - began

    expected = Counter(samples.expected_counts(events))
    actual = error_log(conn, COUNTS_TABLE) - before
    batches, ledger_records, _errors, ledger_rejected = ledger(conn, job)
    wanted_series = Counter(samples.expected_series(events, tuple(group_by.split(","))))
    got_series = series_counts(conn, job, group_by)
    wanted_lines, got_lines = Counter(samples.expected_lines(events)), error_log(conn, COUNTS_TABLE, "line_count")
    wanted_series_lines = Counter(samples.expected_series_lines(events, tuple(group_by.split(","))))
    got_series_lines = series_counts(conn, job, group_by, "line_count")
    figures = {
        "lines": lines, "partitions": partitions, "topics": topics, "kills": kills, "restarts": drivers.restarts,
        "error_lines": sum(expected.values()), "rejected_lines": samples.expected_rejects(events),
        "log_records": samples.expected_log_records(events), "ledger_log_records": ledger_log_records(conn, job),
        "lost": sum((expected - actual).values()), "doubled": sum((actual - expected).values()),
        "offsets_exact": drivers.committed(conn) == drivers.ends(), "ledger_batches": batches,
        "ledger_records": ledger_records, "ledger_rejected": ledger_rejected,
        "final_exit": final_rc, "wall_seconds": round(wall), "server": sql_server(),
        "driver_kills": sum(t == "driver" for t, _a, _p in hits), "server_kills": sum(t == "server" for t, _a, _p in hits),
        "pauses": dict(Counter(t.split()[-1] for t, _a, _p in hits if t.startswith("paused "))),
        "phases": dict(Counter(f"{t} / {p}" for t, _a, p in hits)),
        "format": f"{log_format}, GROUP_BY={group_by}", "series": len({v for _m, v in wanted_series}),
        "series_lost": sum((wanted_series - got_series).values()), "series_doubled": sum((got_series - wanted_series).values()),
        "series_add_up": series_totals(conn, job) == actual and series_totals(conn, job, "line_count") == got_lines,
        "lines_lost": sum((wanted_lines - got_lines).values()) + sum((wanted_series_lines - got_series_lines).values()),
        "lines_doubled": sum((got_lines - wanted_lines).values()) + sum((got_series_lines - wanted_series_lines).values()),
        "through_checks": watch.checks, "through_moves": len(watch.marks), "through_ahead": len(watch.ahead),
        "through_ahead_examples": watch.ahead[:3], "pause_s": pause_s,
    }
    figures["ok"] = (figures["lost"] == 0 and figures["doubled"] == 0 and figures["offsets_exact"]
                     and figures["series_lost"] == 0 and figures["series_doubled"] == 0 and figures["series_add_up"]
                     and figures["lines_lost"] == 0 and figures["lines_doubled"] == 0
                     and figures["through_ahead"] == 0 and figures["through_checks"] > 0
                     and ledger_records == lines and ledger_rejected == figures["rejected_lines"] and final_rc == 0
                     and figures["ledger_log_records"] == figures["log_records"])
    for name in names:
        kafka_admin.delete_topic(name)
    return figures


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The module's text as written, and every option's default from its declaration."""


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tests.chaos.run", description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--lines", type=int, default=500_000, help="lines written in all")
    parser.add_argument("--partitions", type=int, default=4, help="partitions of each fresh topic")
    parser.add_argument("--topics", type=int, default=3, help="fresh topics, read through one KAFKA_TOPIC_PATTERN")
    parser.add_argument("--kills", type=int, default=20, help="SIGKILLs, driver and server mixed")
    parser.add_argument("--server-share", type=float, default=0.5, help="share of the kills aimed at the SQL server")
    parser.add_argument("--pause-share", type=float, default=0.0,
                        help=f"share of the faults that SIGSTOP the driver, the SQL server or the broker for {PAUSES} instead")
    parser.add_argument("--rate", type=int, default=1200, help="lines per second (spreads them over the kills)")
    parser.add_argument("--format", choices=sorted(samples.FORMATS), default="json",
                        help="what the records are (LOG_FORMAT); counted by GROUP_BY's dimensions of that format")
    parser.add_argument("--report", help="write the figures as markdown to this file (this server's section)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    figures = run(args.lines, args.partitions, args.kills, args.rate, server_share=args.server_share, log_format=args.format,
                  topics=args.topics, pause_share=args.pause_share)
    print(table(figures))
    if args.report:
        command = (f"make chaos (python -m tests.chaos.run --lines {args.lines} --partitions {args.partitions} "
                   f"--topics {args.topics} "
                   f"--kills {args.kills} --server-share {args.server_share} --rate {args.rate} --format {args.format}"
                   + (f" --pause-share {args.pause_share}" if args.pause_share else "") + ")")
        write_report(Path(args.report), figures, command)
    return 0 if figures["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
