"""One SparkSession for every test that runs Spark in the test process (the unit tests; the
recount's integration tests, which read Kafka with it), deliberately in non-UTC zones everywhere
(JVM default, Spark session, Python process) so any dependence of minute keys on a local zone
fails a test. Shared test setup otherwise lives in tests/support.py and tests/services.py; the
project is installed in the venv (`make venv`, editable), so `errorcount` imports like any package."""

import os
import subprocess
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from tests.support import SHORT_JIT

ROOT = Path(__file__).resolve().parents[1]
CLASSIFIER = ROOT / ".local" / "java" / "errorcount-classify.jar"


def kafka_jars() -> str:
    """Spark's Kafka connector and its dependencies, as scripts/run.sh passes them (make jars)."""
    found = subprocess.run([str(ROOT / "scripts" / "jars.sh"), "spark"], capture_output=True, text=True, timeout=600)
    if found.returncode != 0:
        pytest.fail(f"scripts/jars.sh spark failed: {found.stderr[-2000:]}")
    return found.stdout.strip()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):  # noqa: ARG001
    """Notes on the test item the phase that failed (item.failed_phase: setup, call or teardown), so
    a fixture's teardown can tell a failed test from a passed one (tests/services.py: start_driver shows its drivers' logs)."""
    report = yield
    if report.failed:
        item.failed_phase = report.when
    return report


@pytest.fixture(scope="session")
def spark():
    os.environ["TZ"] = "Pacific/Chatham"  # +12:45/+13:45: no whole-hour accident can hide
    time.tzset()
    # Without the zone database (the tzdata package) TZ silently means UTC: the tests would prove nothing.
    assert time.localtime().tm_gmtoff != 0, "TZ=Pacific/Chatham reads as UTC: install tzdata (make setup does)"
    if not CLASSIFIER.exists():
        pytest.fail(f"{CLASSIFIER} is missing: run the unit tests through make (make check / make test-unit builds it)")
    session = (SparkSession.builder.master("local[2]").appName("errorcount-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.jars", f"{CLASSIFIER},{kafka_jars()}")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.sql.session.timeZone", "America/St_Johns")
               .config("spark.driver.extraJavaOptions", f"-Duser.timezone=Asia/Kathmandu {SHORT_JIT}")
               .getOrCreate())
    yield session
    session.stop()
