"""The driver's SparkSession, and the JVM behind it (for the classifier and Kafka's admin client)."""

from typing import Any

from pyspark.sql import SparkSession

from errorcount.config import Config
from errorcount.errors import ConfigError


def build_session(cfg: Config) -> SparkSession:
    spark = SparkSession.builder.appName(f"errorcount[{cfg.job_name}]").getOrCreate()
    if spark.conf.get("spark.sql.streaming.checkpointLocation", None):
        raise ConfigError("spark.sql.streaming.checkpointLocation is set: Spark would resume from that "
                          "checkpoint and silently ignore the offsets stored in MySQL. Unset it for this job.")
    return spark


def jvm(spark: SparkSession) -> Any:
    """The py4j gateway's view of the driver's JVM (untyped: every call on it is a JVM call)."""
    gateway = spark.sparkContext._jvm
    if gateway is None:
        raise RuntimeError("the SparkContext has no JVM: it was stopped")
    return gateway
