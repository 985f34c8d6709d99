"""A class-data archive (AppCDS) for the test drivers' JVMs, built once per machine and JVM.

A test driver's JVM loads and verifies ~15 000 classes of Spark, Scala and Kafka at every start;
mapped from an archive they cost a third less CPU to start (docs/testing.md, "A class-data
archive for the drivers' JVMs"). `python -m tests.harness.class_archive` (make class-archive, before
the suites that start drivers) runs one test driver to its first commit and a clean stop with
`-XX:ArchiveClassesAtExit`; tests/support.py's TEST_DRIVER then names the archive in
SPARK_SUBMIT_OPTS. The archive is an accelerator only: when it cannot be built (a JDK without a
base archive, a driver that fails), the drivers start without it, as the JVM also does when an
archive no longer matches its classpath.
"""

import hashlib
import importlib.util
import os
import shutil
import time
from datetime import datetime
from pathlib import Path

from errorcount.tools import ROOT

ARCHIVE_DIR = ROOT / ".local" / "class-archive"
COUNTS_TABLE = "class_archive_log"  # the building job's own counts table (a job owns its table)


def _java_home() -> Path | None:
    """The JDK spark-submit runs: JAVA_HOME, else `java` on PATH (as Spark's launcher picks it)."""
    if os.environ.get("JAVA_HOME"):
        return Path(os.environ["JAVA_HOME"])
    java = shutil.which("java")
    return Path(os.path.realpath(java)).parents[1] if java else None


def fingerprint() -> str:
    """What an archive is valid for: the JVM (its binary and module image) and Spark's jars, each
    by name, size and modification time, as the JVM checks them when it maps an archive."""
    home = _java_home()
    spec = importlib.util.find_spec("pyspark")  # spark-submit's SPARK_HOME: the venv's pyspark
    files = [home / "lib" / "modules", home / "lib" / "server" / "libjvm.so"] if home else []
    if spec and spec.submodule_search_locations:
        files += sorted((Path(spec.submodule_search_locations[0]) / "jars").glob("*.jar"))
    digest = hashlib.sha256()
    for path in files:
        stat = path.stat() if path.exists() else None
        digest.update(f"{path}|{stat.st_size if stat else -1}|{stat.st_mtime_ns if stat else -1}\n".encode())
    return digest.hexdigest()[:16]


def archive() -> Path:
    return ARCHIVE_DIR / f"driver-{fingerprint()}.jsa"


def java_option() -> str:
    """The JVM option that maps the archive, or "" while there is none for this JVM and these jars."""
    path = archive()
    return f"-XX:SharedArchiveFile={path}" if path.is_file() else ""


def build() -> str:
    """Builds the archive unless it exists; says what happened (never raises for a failed build)."""
    target = archive()
    if target.is_file():
        return f"class archive {target.name}: up to date"
    from errorcount.tools import kafka_admin, produce, samples
    from tests.support import TEST_DRIVER, admin_connect, catch_up, launch, release_counts_table, unique
    ARCHIVE_DIR.mkdir(parents=True, exist_ok=True)
    for old in ARCHIVE_DIR.glob("*.jsa"):
        old.unlink()
    partial = ARCHIVE_DIR / f".building-{os.getpid()}.jsa"
    topic, job, started = unique("class-archive"), unique("class-archive"), time.monotonic()
    conn = admin_connect()
    driver = None
    try:
        release_counts_table(conn, COUNTS_TABLE)
        kafka_admin.create_topic(topic, 2)
        produce.produce(topic, samples.generate("app", 2000, 7, datetime(2040, 1, 1), 30))
        driver = launch(job, topic, {"COUNTS_TABLE": COUNTS_TABLE, "COUNT_LINES": "true", "SPARK_SUBMIT_OPTS":
                                     f"{TEST_DRIVER['SPARK_SUBMIT_OPTS']} -XX:ArchiveClassesAtExit={partial} -Xlog:cds=off"})
        catch_up(conn, job, topic, driver, "the archive's driver to commit its topic")
        code = driver.stop(120)
        if code != 0 or not partial.is_file():
            return f"class archive not built (the driver exited {code}; log {driver.log_path}): drivers start without one"
        partial.rename(target)
        return (f"class archive {target.name} built in {time.monotonic() - started:.0f} s "
                f"({target.stat().st_size >> 20} MiB)")
    except AssertionError as failure:
        return f"class archive not built ({str(failure)[:300]}): drivers start without one"
    finally:
        if driver:
            driver.kill()
        partial.unlink(missing_ok=True)
        kafka_admin.delete_topic_if_exists(topic)
        release_counts_table(conn, COUNTS_TABLE)
        conn.close()


if __name__ == "__main__":
    try:
        print(build(), flush=True)
    except Exception as failure:  # an accelerator: the suites run without it and fail on their own if the stack does
        print(f"class archive not built ({type(failure).__name__}: {failure}): drivers start without one", flush=True)
