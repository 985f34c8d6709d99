"""One SparkSession for all unit tests, deliberately in non-UTC zones everywhere (JVM default,
Spark session, Python process) so any dependence of minute keys on a local zone fails a test."""

import os
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

CLASSIFIER = Path(__file__).resolve().parents[2] / ".local" / "java" / "errorcount-classify.jar"


@pytest.fixture(scope="session")
def spark():
    os.environ["TZ"] = "Pacific/Chatham"  # +12:45/+13:45: no whole-hour accident can hide
    time.tzset()
    # Without the zone database (the tzdata package) TZ silently means UTC: the tests would prove nothing.
    assert time.localtime().tm_gmtoff != 0, "TZ=Pacific/Chatham reads as UTC: install tzdata (make setup does)"
    if not CLASSIFIER.exists():
        pytest.fail(f"{CLASSIFIER} is missing: run the unit tests through make (make check / make test-unit builds it)")
    session = (SparkSession.builder.master("local[2]").appName("errorcount-unit")
               .config("spark.ui.enabled", "false")
               .config("spark.jars", str(CLASSIFIER))
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.session.timeZone", "America/St_Johns")
               .config("spark.driver.extraJavaOptions", "-Duser.timezone=Asia/Kathmandu")
               .getOrCreate())
    yield session
    session.stop()
