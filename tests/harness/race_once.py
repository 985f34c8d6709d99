"""A SparkContext start that fails once on a real race-shaped failure inside Spark: the JVM
listener tests/harness/java/RaceOnce.java (tests/harness/javac.py builds it), passed
with --driver-class-path and spark.extraListeners; armed by a file it deletes as it fails."""

from pathlib import Path

from tests.harness.javac import harness_jar

CLASS = "errorcount.tests.RaceOnce"
ENV = "ERRORCOUNT_TEST_RACE_ONCE"


def race_once(armed: Path) -> tuple[str, dict[str, str]]:
    """(spark-submit options, driver environment) for a driver whose first SparkContext start fails
    with a ConcurrentModificationException; `armed` is created here and gone once it has."""
    armed.parent.mkdir(parents=True, exist_ok=True)
    armed.touch()
    options = f"--driver-class-path {harness_jar('RaceOnce')} --conf spark.extraListeners={CLASS}"
    return options, {ENV: str(armed)}
