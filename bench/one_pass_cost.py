"""The one pass alone (java/errorcount/OnePass.java), COUNT_LINES off and on, in one JVM without
Spark's reader: ns per value over the bench's json corpus, rounds taking turns
(bench/java/errorcount/OnePassTurns.java). Other builds of the classifier jar can be set beside the
checkout's (--jar, e.g. a copy of .local/java/errorcount-classify.jar from another commit), each
in its own class loader, so a change to the pass is measured against its parent in one process.
Not a phase of `make bench`: a tool for working on the pass (docs/performance.md, "Counting
every line"); a host's noise between JVMs is a few percent, so compare variants of one run.

    .venv/bin/python -m bench.one_pass_cost [--values 500000] [--rounds 24] [--jar OLD.jar ...]"""

import argparse
import json
import random
import subprocess
from pathlib import Path

from bench import procs
from bench.corpus import START, settings_of
from bench.json_read import write_values
from errorcount.config import dimensions
from errorcount.pipeline.classify import Contract
from errorcount.tools import samples

ROOT = procs.ROOT
JAR = ROOT / ".local" / "java" / "errorcount-classify.jar"
GROUP_BY = "field:service.name,level"


def write_settings(path: Path, group_by: str, every_line: bool) -> Path:
    contract = Contract.with_settings(**settings_of("json"), GROUP_BY=group_by, COUNT_LINES=str(every_line).lower())
    path.write_text("".join(f"{name}\t{dimensions.for_classifier(value) if name == 'GROUP_BY' else value}\n"
                            for name, value in contract.settings))
    return path


def compile_harness(run: Path, spark_jars: str) -> tuple[Path, Path]:
    """The launcher (Spark's classes only) and the runner (beside each variant's jar) apart: the
    runner must not be on the launcher's class path, or every loader would share the parent's."""
    launcher, runner = run / "launcher", run / "runner"
    java = ROOT / "bench" / "java"
    subprocess.run(["javac", "--release", "17", "-d", str(launcher), "-cp", spark_jars,
                    *(str(java / "errorcount" / f"{name}.java") for name in ("OnePassTurns", "ValueFile"))],
                   check=True, timeout=300)
    subprocess.run(["javac", "--release", "17", "-d", str(runner), "-cp", f"{JAR}:{spark_jars}",
                    str(java / "errorcount" / "OnePassRun.java")], check=True, timeout=300)
    return launcher, runner


def measure(values: int, rounds: int, jars: list[Path], group_by: str = GROUP_BY, seed: int = 7) -> list[dict]:
    run = ROOT / ".local" / "bench" / "one-pass-cost"
    run.mkdir(parents=True, exist_ok=True)
    spark_jars = f"{procs.pyspark_jars()}/*"
    rng = random.Random(seed)
    corpus = run / "json-values.bin"
    write_values(corpus, (samples.json_event(rng, START, 180).value for _ in range(values)))
    off, on = (write_settings(run / f"settings-lines-{str(flag).lower()}.tsv", group_by, flag) for flag in (False, True))
    launcher, runner = compile_harness(run, spark_jars)
    variants = [f"{jar}={settings}" for jar in jars for settings in (off, on)]
    # Arrow's buffers (a task's groups as one stream, GroupColumns) need what spark-submit gives every JVM it starts
    arrow = ["--add-opens=java.base/java.nio=ALL-UNNAMED", "-Dio.netty.tryReflectionSetAccessible=true"]
    out = subprocess.run(["java", "-Xms8g", "-Xmx8g", "-XX:+UseParallelGC", *arrow, "-cp", f"{launcher}:{spark_jars}",
                          "errorcount.OnePassTurns", str(corpus), str(rounds), str(runner), *variants],
                         check=True, capture_output=True, text=True, timeout=3600).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", type=int, default=500_000)
    parser.add_argument("--rounds", type=int, default=24)
    parser.add_argument("--group-by", default=GROUP_BY)
    parser.add_argument("--jar", type=Path, action="append", default=[], help="another build of the classifier jar")
    args = parser.parse_args()
    for found in measure(args.values, args.rounds, [JAR, *args.jar], args.group_by):
        print(json.dumps(found))


if __name__ == "__main__":
    main()
