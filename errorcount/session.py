"""The driver's SparkSession, and the JVM behind it (for the classifier and Kafka's admin client)."""

import logging
import time
from collections.abc import Callable
from typing import Any

from py4j.java_gateway import JavaClass
from py4j.protocol import Py4JJavaError
from pyspark.sql import SparkSession

from errorcount.errors import ConfigError, JobStop

log = logging.getLogger(__name__)
START_ATTEMPTS = 3

# Java exceptions that, thrown out of SparkContext's construction, are races between Spark's own
# threads: nothing of the job has run yet (no lease, no read, no write), so starting the context
# again is safe, and it is what the operator would do. Each entry says which race.
START_RACES = {
    "java.util.ConcurrentModificationException":
        "Spark's UI starting while another thread changes it (in YARN client mode the AM's web "
        "filter arrives from the ApplicationMaster while the UI's handlers start)",
}


def build_session(job_name: str) -> SparkSession:
    spark = start_context(SparkSession.builder.appName(f"errorcount[{job_name}]").getOrCreate)
    if spark.conf.get("spark.sql.streaming.checkpointLocation", None):
        raise ConfigError("spark.sql.streaming.checkpointLocation is set: Spark would resume from that "
                          "checkpoint and silently ignore the offsets stored in MySQL. Unset it for this job.")
    missing = missing_jars(jvm(spark), spark.version)
    if missing:
        raise ConfigError("not on the driver's classpath: " + "; ".join(missing) + ". spark-submit by hand: "
                          "docs/operations.md, \"spark-submit by hand\".")
    return spark


def start_context(get_or_create: Callable[[], SparkSession], attempts: int = START_ATTEMPTS,
                  sleep: Callable[[float], None] = time.sleep) -> SparkSession:
    """get_or_create(), started again (up to `attempts` times in all) when it fails on one of
    START_RACES; any other failure propagates at once. PySpark stops a context that failed to
    start, so the next attempt begins clean (in YARN client mode: as a new application)."""
    for attempt in range(1, attempts + 1):
        try:
            return get_or_create()
        except Py4JJavaError as error:
            race = start_race(java_exception_classes(error.java_exception))
            if race is None:
                raise
            if attempt == attempts:
                raise JobStop(f"the SparkContext failed to start {attempts} times on a race inside Spark ({race}); "
                              "nothing of the job ran. Start the job again; if it keeps failing so, read Spark's "
                              "log above and the notes in docs/operations.md, \"When Spark fails to start\".") from error
            log.warning("the SparkContext failed to start on a race inside Spark (%s); nothing of the job ran: "
                        "starting it again (attempt %d of %d)", race, attempt + 1, attempts)
            sleep(1.0)
    raise AssertionError("unreachable")


def java_exception_classes(java_exception: Any) -> list[str]:
    """The class names of a py4j Java exception and of its causes, outermost first."""
    names: list[str] = []
    while java_exception is not None and len(names) < 20:
        names.append(java_exception.getClass().getName())
        java_exception = java_exception.getCause()
    return names


def start_race(classes: list[str]) -> str | None:
    """Which of START_RACES a start failure is ("<class>: <which race>"), by the first of its
    exception classes (outermost first) that START_RACES names; None when it is none of them."""
    for name in classes:
        if name in START_RACES:
            return f"{name}: {START_RACES[name]}"
    return None


# The JVM classes the job needs that pyspark does not ship, and the jar that holds each.
REQUIRED_CLASSES = (
    ("errorcount.ClassifyLine", "the log-line classifier jar .local/java/errorcount-classify.jar: build it with "
                                "'make java' and pass it with --jars"),
    ("org.apache.spark.sql.kafka010.KafkaSourceProvider",
     "Spark's Kafka connector spark-sql-kafka-0-10_2.13-{version}.jar with its dependencies: 'scripts/jars.sh spark' "
     "resolves them and prints the --jars list (or --packages org.apache.spark:spark-sql-kafka-0-10_2.13:{version})"),
)


def missing_jars(gateway: Any, spark_version: str) -> list[str]:
    """What each required class that the driver's JVM cannot load needs (py4j resolves a name to
    a JavaClass only when the class loads; else it is a package, and calling it fails obscurely)."""
    missing = []
    for name, jar in REQUIRED_CLASSES:
        found: Any = gateway
        for part in name.split("."):
            found = getattr(found, part)
        if not isinstance(found, JavaClass):
            missing.append(f"{name} ({jar.format(version=spark_version)})")
    return missing


def jvm(spark: SparkSession) -> Any:
    """The py4j gateway's view of the driver's JVM (untyped: every call on it is a JVM call)."""
    gateway = spark.sparkContext._jvm
    if gateway is None:
        raise RuntimeError("the SparkContext has no JVM: it was stopped")
    return gateway
