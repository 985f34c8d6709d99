"""make bench: the job against Kafka's read ceiling, a pure-Python consumer and a naive UDF job,
on one preloaded topic, then steady-state latency and a soak; every variant checked exact.

    python -m bench --help    (options and their defaults; make bench BENCH_LINES=...)

Needs the stack up (make up). A full run writes bench/results.json and bench/RESULTS.md;
a partial one (--only) writes to .local/bench/. The three ratios are printed last."""

import argparse
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path

import pyspark

from bench import corpus, dimensions, json_read, lines, otlp, phases, recount, report, scale, scale_curves, steady, topics
from errorcount.config.load import interval_seconds, load_config
from errorcount.config.settings import SETTINGS
from errorcount.tools.localenv import local_stack
from tests.harness import admin_db
from tests.harness import drivers as harness

ROOT = Path(__file__).resolve().parents[1]
PHASES = "aqbcdgoxltkrefwpsj"
OWN_REPORT = set("s")  # phases whose results have files of their own (RESULTS-scale.md)
OWN_CORPUS = set("sj")  # phases that write and read corpora of their own, never the main one
DEFAULT_LINES = 5_000_000  # enough batches that JIT warm-up does not dominate (b); ~15 min in all


def log(message: str) -> None:
    print(f"[bench {datetime.now(UTC):%H:%M:%S}] {message}", flush=True)


def job_config():
    """The job's settings as a driver started by scripts/run.sh resolves them (the environment,
    then conf/errorcount.conf), through the job's own configuration code."""
    return load_config(["--config", str(ROOT / "conf" / "errorcount.conf")], os.environ)


def machine() -> str:
    cpuinfo = Path("/proc/cpuinfo").read_text().splitlines()
    cpu = next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), "?")
    meminfo = Path("/proc/meminfo").read_text().splitlines()
    memory = next(int(line.split()[1]) for line in meminfo if line.startswith("MemTotal"))
    conn = admin_db.connect("mysql")
    server = admin_db.query(conn, "SELECT VERSION()")[0][0]
    return (f"{os.cpu_count()} cores ({cpu}), {memory / 2**20:.0f} GiB, {platform.platform(terse=True)}; "
            f"Spark {pyspark.__version__} local[*], Kafka {local_stack()['KAFKA_VERSION']} and MySQL-compatible "
            f"{server} on the same host; Python {platform.python_version()}")


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The module's text as written, and every option's default from its declaration."""


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--lines", type=int, default=int(os.environ.get("BENCH_LINES", DEFAULT_LINES)),
                        help="corpus lines (env BENCH_LINES)")
    parser.add_argument("--partitions", type=int, default=int(os.environ.get("BENCH_PARTITIONS", 4)),
                        help="corpus topic partitions (env BENCH_PARTITIONS)")
    parser.add_argument("--seed", type=int, default=7, help="corpus seed")
    parser.add_argument("--minutes", type=int, default=180, help="corpus time span")
    parser.add_argument("--only", default=PHASES, help="phases to run, letters, e.g. 'ab' (a partial run writes to .local/bench)")
    parser.add_argument("--steady-seconds", type=float, default=60, help="measured steady-state seconds (e)")
    parser.add_argument("--steady-rate", type=float, default=float(os.environ.get("BENCH_STEADY_RATE", 150_000)),
                        help="the fixed producer rate of (e), records/s (env BENCH_STEADY_RATE)")
    parser.add_argument("--soak-batches", type=int, default=1000, help="tiny batches of the soak (f)")
    parser.add_argument("--watch-batches", type=int, default=300, help="tiny batches of each soak of (w)")
    parser.add_argument("--formats", default=",".join(lines.GROUP_BY),
                        help="the log formats (l) runs, comma-separated (a partial run)")
    parser.add_argument("--ordered", action="store_true",
                        help="(l) on corpora written in time order: a batch spans a few minutes, as in a catch-up of "
                             "logs shipped as they happen, not every minute of the span")
    parser.add_argument("--scale-lines", type=int, default=scale.DEFAULT_LINES,
                        help="the corpus of the scale phase (s), the same on every topic size")
    parser.add_argument("--scale-partitions", default=",".join(map(str, scale.PARTITIONS)),
                        help="the topic sizes (s) measures, comma-separated, the first the baseline")
    parser.add_argument("--scale-curves", default=",".join(scale.CURVES), help="the curves (s) measures, comma-separated")
    parser.add_argument("--scale-table-rows", default=",".join(map(str, scale_curves.TABLE_ROWS)),
                        help="the counts table's sizes before (s)'s table curve, comma-separated, the first the baseline")
    parser.add_argument("--scale-steady-seconds", type=float, default=30,
                        help="measured seconds of each steady state of (s) (after its warm-up)")
    parser.add_argument("--out", type=Path, default=None, help="results directory (default: bench/ for a full run)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    out = args.out or (ROOT / "bench" if set(args.only) >= set(PHASES) else ROOT / ".local" / "bench")
    run_dir = ROOT / ".local" / "bench" / f"run-{datetime.now(UTC):%Y%m%dT%H%M%S}"
    run_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    phases.prepare_database()
    cfg = job_config()
    results: dict = {"meta": {
        "date": f"{datetime.now(UTC):%Y-%m-%d}", "machine": machine(), "lines": args.lines,
        "partitions": args.partitions, "command": command_line(sys.argv[1:] if argv is None else argv, args.lines,
                                                               os.environ),
        "trigger_interval": cfg.trigger_interval,
        "max_offsets_per_trigger": str(cfg.max_offsets_per_trigger), "logs": str(run_dir)}}
    if set(args.only) - OWN_CORPUS:  # the main corpus only when a phase reads it (s writes its own)
        data = corpus.ensure(args.lines, args.partitions, args.seed, args.minutes, ROOT / ".local" / "bench", log)
        results["meta"].update(topic=data.topic, error_lines=sum(data.expected.values()), rejected=data.rejected)
    steps = [("a", "a_ceiling", "(a) Kafka ConsumerPerformance", lambda: phases.read_ceiling(data, run_dir)),
             ("q", "a2_spark_source", "(a') Spark's Kafka source alone", lambda: phases.spark_source_only(data, run_dir)),
             ("b", "b_job", "(b) the job, catch-up", lambda: phases.spark_catch_up(data, run_dir, "b-job")),
             ("c", "c_python", "(c) pure-Python consumer", lambda: phases.python_consumer(data, run_dir)),
             ("d", "d_naive_udf", "(d) naive UDF job",
              lambda: phases.spark_catch_up(data, run_dir, "d-naive-udf", "bench/naive_job.py")),
             ("g", "formats", "(b) on the access and json corpora", lambda: formats_phase(args, run_dir)),
             ("o", "o_otlp", "(b) on the app corpus's log records as OTLP requests, per encoding",
              lambda: otlp.otlp_phase(args, data, run_dir, ROOT / ".local" / "bench", log, 1_000_000)),
             ("x", "x_group_by", "(b) with GROUP_BY, per format", lambda: dimensions.grouped_phase(
                 {name: format_corpus(args, name) for name in dimensions.GROUP_BY}, run_dir)),
             ("l", "l_lines", "(b) counting every line (COUNT_LINES), per format, with and without GROUP_BY",
              lambda: lines.lines_phase(
                  {name: format_corpus(args, name, args.ordered) for name in args.formats.split(",")}, run_dir)),
             ("t", "t_topics", "(b) over several topics against one",
              lambda: topics.topics_phase(args, data, ROOT / ".local" / "bench", run_dir, log)),
             ("k", "k_commit_cost", "the batch transaction at 10 to 10 000 series", lambda: dimensions.commit_cost(log)),
             ("r", "r_recount", "the recount against (b)", lambda: recount.recount_phase(data, run_dir)),
             ("r", "r_swap_cost", "the recount's swap of a week", lambda: recount.swap_cost(log)),
             ("e", "e_steady", "(e) steady state", lambda: steady_phase(args, run_dir)),
             ("f", "f_soak", "soak", lambda: steady.soak(args.partitions, args.soak_batches, run_dir)),
             ("w", "w_watch_cost", "the watch's cost (soaks with it off and on)",
              lambda: steady.watch_cost(args.partitions, args.watch_batches, 3, run_dir)),
             ("p", "profile", "profile of the job's steps", lambda: phases.profile(data, run_dir, 1_000_000)),
             ("j", "j_json_read", "json reading: Json.java against jackson-core", lambda: json_read.read_cost(run_dir)),
             ("s", "s_scale", "(s) scale", lambda: scale.scale_phase(args, ROOT / ".local" / "bench", run_dir, log,
                                                                   cfg.trigger_interval, interval_seconds(cfg.trigger_interval)))]
    run_steps(steps, args.only, results, run_dir)
    if "b_job" in results:
        results["b_job"]["value_bytes"] = data.value_bytes
    results["meta"]["bench_minutes"] = (time.monotonic() - started) / 60
    if "s_scale" in results:
        scale.write(results["s_scale"], results["meta"], out)
        log(f"wrote {out / 'results-scale.json'} and {out / 'RESULTS-scale.md'}; logs in {run_dir}")
    if set(args.only) - OWN_REPORT:  # (s) alone writes its own files only: a full run's results stay
        report.write(results, out)
        print(report.markdown(results))
        log(f"wrote {out / 'results.json'} and {out / 'RESULTS.md'}; logs in {run_dir}")
        print(report.ratios_text(results))
    return 0


def run_steps(steps: list[tuple[str, str, str, Callable[[], dict]]], only: str, results: dict, run_dir: Path) -> None:
    """Runs the steps (letter, key, title, run) whose letter is in `only`, each one's figures into
    results[key] and its minutes into meta.phase_minutes; after each, the results so far go to
    the run's results-partial.json, so a run stopped part way keeps what it measured."""
    for letter, key, title, run in steps:
        if letter in only:
            log(f"{title} ...")
            began = time.monotonic()
            results[key] = run()
            results["meta"].setdefault("phase_minutes", {})[key] = round((time.monotonic() - began) / 60, 1)
            report.write_json(results, run_dir / "results-partial.json")
            log(f"{title}: " + (f"{results[key]['records_per_s']:,.0f} records/s" if "records_per_s" in results[key]
                                else "done"))


def command_line(argv: list[str], lines: int, env: Mapping[str, str]) -> str:
    """How the run was asked for, as its RESULTS say: `make bench` runs it without arguments. Job
    settings in the environment (MAX_OFFSETS_PER_TRIGGER=...) lead the command, secrets never: they
    reach every driver the bench starts, except where the bench sets one itself (the job name, topic
    and server everywhere; a phase's own GROUP_BY or COUNT_LINES), which wins."""
    settings = [f"{s.name}={shlex.quote(env[s.name])}" for s in sorted(SETTINGS, key=lambda s: s.name)
                if s.name in env and not s.secret]
    if argv:
        return " ".join([*settings, "python -m bench", *argv])
    return " ".join([*settings, "make bench"]) + (f" BENCH_LINES={lines}" if lines != DEFAULT_LINES else "")


def format_corpus(args, log_format: str, ordered: bool = False) -> corpus.Corpus:
    return corpus.ensure(args.lines, args.partitions, args.seed, args.minutes, ROOT / ".local" / "bench", log, log_format,
                         ordered)


def formats_phase(args, run_dir: Path) -> dict:
    """(b) and its profile on an access-log and a JSON corpus of as many records as (b)'s."""
    found = {}
    for log_format in ("access", "json"):
        data = format_corpus(args, log_format)
        found[log_format] = phases.log_format(data, run_dir, 1_000_000)
        log(f"(b) {log_format}: {found[log_format]['records_per_s']:,.0f} records/s")
    return found


def steady_phase(args, run_dir: Path) -> dict:
    """(e) at a fixed rate (--steady-rate), so its latency compares across changes and runs."""
    trigger = job_config().trigger_interval
    trigger_s = interval_seconds(trigger)
    figures = steady.steady_state(args.partitions, args.steady_rate, args.steady_seconds, trigger_s, run_dir,
                                  TRIGGER_INTERVAL=trigger)
    return {**figures, "trigger_interval_s": trigger_s, "warm_up_s": steady.WARM_UP_S}


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (phases.BenchError, harness.WaitTimeout, harness.DriverDied) as error:
        log(f"FAILED: {error}")
        sys.exit(1)
