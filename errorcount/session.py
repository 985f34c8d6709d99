"""The driver's SparkSession, and the JVM behind it (for the classifier and Kafka's admin client)."""

from typing import Any

from py4j.java_gateway import JavaClass
from pyspark.sql import SparkSession

from errorcount.errors import ConfigError


def build_session(job_name: str) -> SparkSession:
    spark = SparkSession.builder.appName(f"errorcount[{job_name}]").getOrCreate()
    if spark.conf.get("spark.sql.streaming.checkpointLocation", None):
        raise ConfigError("spark.sql.streaming.checkpointLocation is set: Spark would resume from that "
                          "checkpoint and silently ignore the offsets stored in MySQL. Unset it for this job.")
    missing = missing_jars(jvm(spark), spark.version)
    if missing:
        raise ConfigError("not on the driver's classpath: " + "; ".join(missing) + ". spark-submit by hand: "
                          "docs/operations.md, \"spark-submit by hand\".")
    return spark


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
