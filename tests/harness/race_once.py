"""A SparkContext start that fails once on a real race-shaped failure inside Spark: the JVM
listener tests/harness/java/RaceOnce.java, built here with javac against pyspark's jars, passed
with --driver-class-path and spark.extraListeners; armed by a file it deletes as it fails."""

import subprocess
from pathlib import Path

import pyspark

from errorcount.tools import ROOT

SOURCE = ROOT / "tests" / "harness" / "java" / "RaceOnce.java"
JAR = ROOT / ".local" / "test-java" / "race-once.jar"
CLASS = "errorcount.tests.RaceOnce"
ENV = "ERRORCOUNT_TEST_RACE_ONCE"


def race_once_jar() -> Path:
    """The listener's jar, built when missing or older than its source."""
    if JAR.exists() and JAR.stat().st_mtime >= SOURCE.stat().st_mtime:
        return JAR
    classes = JAR.parent / "classes"
    classes.mkdir(parents=True, exist_ok=True)
    spark_jars = Path(pyspark.__file__).parent / "jars"
    subprocess.run(["javac", "--release", "17", "-encoding", "UTF-8", "-cp", f"{spark_jars}/*", "-d", str(classes),
                    str(SOURCE)], check=True, capture_output=True, timeout=300)
    subprocess.run(["jar", "cf", str(JAR), "-C", str(classes), "."], check=True, capture_output=True, timeout=120)
    return JAR


def race_once(armed: Path) -> tuple[str, dict[str, str]]:
    """(spark-submit options, driver environment) for a driver whose first SparkContext start fails
    with a ConcurrentModificationException; `armed` is created here and gone once it has."""
    armed.parent.mkdir(parents=True, exist_ok=True)
    armed.touch()
    options = f"--driver-class-path {race_once_jar()} --conf spark.extraListeners={CLASS}"
    return options, {ENV: str(armed)}
