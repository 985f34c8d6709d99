"""make chaos's report: the figures of a run as a markdown table, and docs/RELIABILITY.md's
section of the SQL server it ran on (the other server's section kept)."""

import os
import time
from pathlib import Path

from tests.chaos.faults import PAUSES, pauses_text


def table(figures: dict) -> str:
    rows_ = [("SQL server", figures["server"]), ("records", figures["format"]), ("lines produced", figures["lines"]),
             ("topics (KAFKA_TOPIC_PATTERN) x partitions", f"{figures.get('topics', 1)} x {figures['partitions']}"),
             ("ERROR lines expected", figures["error_lines"]),
             ("rejected lines expected", figures["rejected_lines"]),
             ("SIGKILLs", f"{figures['driver_kills'] + figures['server_kills']} ({figures['driver_kills']} driver, "
                          f"{figures['server_kills']} server)"),
             *([(f"SIGSTOP pauses of {pauses_text(figures['pause_s'])}",
                 ", ".join(f"{n} {t}" for t, n in sorted(figures["pauses"].items())))] if figures.get("pauses") else []),
             ("driver restarts", figures["restarts"]), ("lost", figures["lost"]), ("doubled", figures["doubled"]),
             ("series", figures["series"]), ("per-dimension lost", figures["series_lost"]),
             ("per-dimension doubled", figures["series_doubled"]),
             ("series add up to the total every minute", "yes" if figures["series_add_up"] else "NO"),
             ("lines (COUNT_LINES) lost / doubled, totals and series",
              f"{figures.get('lines_lost', '-')} / {figures.get('lines_doubled', '-')}"),
             ("batches checked: counted_through never ahead", f"{figures.get('through_checks', '-')} checked, "
              f"{figures.get('through_ahead', '-')} ahead, mark moved {figures.get('through_moves', '-')} times"),
             ("kafka_offsets = end offsets", "yes" if figures["offsets_exact"] else "NO"),
             ("ledger batches", figures["ledger_batches"]), ("ledger records", figures["ledger_records"]),
             ("log records expected / in the ledger", f"{figures.get('log_records', '-')} / "
              f"{figures.get('ledger_log_records', '-')}"),
             ("ledger rejected", figures["ledger_rejected"]), ("wall time", f"{figures['wall_seconds']} s"),
             ("verdict", "exact" if figures["ok"] else "FAILED")]
    phases = sorted(figures["phases"].items())
    return ("| figure | value |\n|---|---|\n" + "\n".join(f"| {name} | {value} |" for name, value in rows_)
            + "\n\n| killed or paused / phase it landed in | faults |\n|---|---:|\n"
            + "\n".join(f"| {name} | {count} |" for name, count in phases))


INTRO = (
    "# Reliability: figures from the latest `make chaos` on each SQL server\n\n"
    "A producer writes at a steady rate while the driver (wrapper, JVM and Python) or the SQL server is "
    "SIGKILLed, again and again (what is left to write after the last fault goes out at once). Each kill is "
    "aimed at a phase of the job (driver starting, batch running, "
    "committing, idle; `tests/chaos/phases.py`) and the phase it actually hit is observed from outside at "
    "the moment of the kill: the phase tables below count those. A killed driver is restarted; a killed "
    "server is started again (InnoDB crash recovery) and the running driver carries on. The expectation is "
    "a plain-Python count of every generated line; `lost` and `doubled` compare it minute by minute with "
    "its counts table (`chaos_log`, emptied at each run); the per-dimension figures compare the generator's "
    "own dimension values per minute with the job's series (`GROUP_BY`), and check that every minute's series "
    "add up to its total; the lines (`COUNT_LINES`) are compared the same way, per minute and per series. "
    "After every committed batch a watch reads the job's `counted_through` and its stored offsets in one "
    "snapshot and checks that no record the broker had acknowledged before that mark lies at or past its "
    "partition's stored offset (`tests/chaos/through.py`). With `--pause-share`, a share of the faults "
    f"SIGSTOP the driver, the SQL server or the Kafka broker for {PAUSES} instead, then let it go on: a "
    "process that hangs rather than dies.\n\n"
    "A SIGKILL of the server tests crash consistency, not durability against power loss: the operating system "
    "keeps what the server wrote. The guarantee assumes the servers' durable defaults, which the local stack "
    "states explicitly: `innodb_flush_log_at_trx_commit=1`, and on MySQL 8 the binary log it enables by "
    "default with `sync_binlog=1`.\n")


def write_report(path: Path, figures: dict, command: str) -> None:
    """Replaces this server's section of the report, keeping the other server's."""
    begin, end = f"<!-- chaos:{figures['server']} -->", f"<!-- /chaos:{figures['server']} -->"
    section = (f"{begin}\n## {figures['server']}\n\nRun {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
               f"`{command}` on {os.cpu_count()} cores, broker, SQL server and driver on the same host.\n\n"
               f"{table(figures)}\n{end}")
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    sections = {server: old[old.index(f"<!-- chaos:{server} -->"):old.index(f"<!-- /chaos:{server} -->")
                            + len(f"<!-- /chaos:{server} -->")]
                for server in ("mariadb", "mysql") if f"<!-- /chaos:{server} -->" in old}
    sections[figures["server"]] = section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(INTRO + "".join(f"\n{sections[k]}\n" for k in sorted(sections)), encoding="utf-8")
