"""make bench (j): the json contract's reading, the classifier's own reader (java/errorcount/Json.java,
JsonFields.java) against jackson-core's streaming JsonParser (shipped with Spark), in one JVM
(bench/java/errorcount/JsonRead.java): ns per event on the bench's json corpus and on the differential
test's generated and mutated values, and how many values the two answer differently (validity and
the values of the fields the job reads with its default settings and GROUP_BY=field:service.name)."""

import json
import random
import struct
import subprocess
from pathlib import Path

from bench import procs
from bench.corpus import START
from errorcount.config.settings import BY_NAME
from errorcount.tools import samples

ROOT = procs.ROOT
FIELDS = ",".join([*BY_NAME["JSON_TIME_FIELDS"].default.split(","), *BY_NAME["JSON_LEVEL_FIELDS"].default.split(","),
                   "service.name"])


def write_values(path: Path, values) -> int:
    count = 0
    with open(path, "wb") as out:
        for value in values:
            if value is not None:
                out.write(struct.pack(">i", len(value)) + value)
                count += 1
    return count


def measure(path: Path, classes: Path, class_path: str) -> dict:
    out = subprocess.run(["java", "-Xmx2g", "-cp", f"{classes}:{class_path}", "errorcount.JsonRead", str(path), FIELDS],
                         check=True, capture_output=True, text=True, timeout=1800).stdout
    return json.loads(out.strip().splitlines()[-1])


def read_cost(run_dir: Path, corpus_values: int = 500_000, differential_values: int = 500_000, seed: int = 7) -> dict:
    from tests.unit.pipeline.test_classify_formats_differential import values_of  # the differential test's values

    pyspark_jars = procs.pyspark_jars()
    class_path = f"{ROOT / '.local' / 'java' / 'errorcount-classify.jar'}:{pyspark_jars}/*"
    classes = run_dir / "json-read-classes"
    subprocess.run(["javac", "--release", "17", "-d", str(classes), "-cp", class_path,
                    *(str(ROOT / "bench" / "java" / "errorcount" / f"{name}.java") for name in ("JsonRead", "ValueFile"))],
                   check=True, timeout=300)
    rng = random.Random(seed)
    found = {}
    corpus = run_dir / "json-corpus.bin"
    count = write_values(corpus, (samples.json_event(rng, START, 180).value for _ in range(corpus_values)))
    found["corpus"] = {**measure(corpus, classes, class_path), "written": count}
    differential = run_dir / "json-differential.bin"
    count = write_values(differential, values_of("json", differential_values, 20261124))
    found["differential"] = {**measure(differential, classes, class_path), "written": count}
    for figures in found.values():
        figures["jackson_over_own"] = figures["jackson_ns"] / figures["own_ns"]
    return {"fields": FIELDS, **found}


def markdown_lines(found: dict | None) -> list[str]:
    if not found:
        return []
    lines = ["json reading (bench/json_read.py, bench/java/errorcount/JsonRead.java: validity and the job's fields, "
             "best of 7 rounds taking turns in one JVM):", "",
             "| values | Json.java ns | jackson-core ns | jackson / Json.java | answered differently |",
             "|---|---:|---:|---:|---:|"]
    for name in ("corpus", "differential"):
        f = found[name]
        lines.append(f"| {name} ({f['values']:,}) | {f['own_ns']:,.0f} | {f['jackson_ns']:,.0f} | {f['jackson_over_own']:.2f} | "
                     f"{f['disagree']:,} |")
    return lines + [""]


if __name__ == "__main__":
    import sys
    run = ROOT / ".local" / "bench" / "json-read"
    run.mkdir(parents=True, exist_ok=True)
    print(json.dumps(read_cost(run, *map(int, sys.argv[1:3])), indent=2))
