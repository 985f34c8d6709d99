"""The session's ground: every class conf/ names exists in the Spark that runs the job; a start
that fails on a race inside Spark is started again, any other start failure is not."""

import logging
import re
from pathlib import Path

import pytest
from py4j.protocol import Py4JJavaError

from errorcount.errors import JobStop
from errorcount.session import java_exception_classes, start_context, start_race

ROOT = Path(__file__).resolve().parents[2]


def test_every_class_named_in_the_spark_conf_files_loads(spark):
    """A Spark upgrade that moves a class named in conf/ (4.2 moved the checkpoint file manager)
    must fail here, not at the first batch of a deployed job."""
    names = set()
    for path in [*(ROOT / "conf").glob("*.conf"), *(ROOT / "conf").glob("*.properties")]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                names.update(re.findall(r"\b(?:org|com|errorcount)\.(?:[a-z0-9_]+\.)*[A-Z][\w$]*", line))
    assert "errorcount.LocalCheckpointFiles" in names  # the project's jar, which the session loads
    assert "org.apache.spark.metrics.sink.PrometheusServlet" in names
    loader = spark.sparkContext._jvm.java.lang.Thread.currentThread().getContextClassLoader()
    for name in sorted(names):
        spark.sparkContext._jvm.java.lang.Class.forName(name, False, loader)  # raises if it is gone


def java_failure(spark, kind: str):
    """A real Py4JJavaError out of the session's JVM: a ConcurrentModificationException (an
    ArrayList changed under a view of it, as Jetty's list of filters is in the YARN client-mode
    race) or a ConnectException (standing for any other start failure, say YARN's ResourceManager away)."""
    jvm = spark.sparkContext._jvm
    try:
        if kind == "race":
            items = jvm.java.util.ArrayList()
            items.add("a")
            view = items.subList(0, 1)
            items.add("b")
            view.size()
        else:
            jvm.java.net.Socket("127.0.0.1", 1)  # nothing listens on port 1: ConnectException
    except Py4JJavaError as error:
        return error
    raise AssertionError(f"the JVM did not throw for {kind}")


class Starts:
    """get_or_create stand-in: raises the given failures in turn, then returns "session"."""

    def __init__(self, *failures):
        self.failures, self.calls = list(failures), 0

    def __call__(self):
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        return "session"


def test_a_start_failing_on_a_race_inside_spark_is_started_again(spark, caplog):
    race = java_failure(spark, "race")
    starts, pauses = Starts(race, race), []
    with caplog.at_level(logging.WARNING, logger="errorcount.session"):
        assert start_context(starts, sleep=pauses.append) == "session"
    assert starts.calls == 3 and len(pauses) == 2
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 2 and "attempt 2 of 3" in warnings[0] and "attempt 3 of 3" in warnings[1]
    assert "java.util.ConcurrentModificationException" in warnings[0]


def test_a_race_on_every_attempt_ends_the_driver_saying_so(spark):
    race = java_failure(spark, "race")
    starts = Starts(race, race, race, race)
    with pytest.raises(JobStop) as stopped:
        start_context(starts, sleep=lambda _s: None)
    assert starts.calls == 3 and stopped.value.exit_code == 1
    assert "failed to start 3 times" in stopped.value.message and "Start the job again" in stopped.value.message


def test_any_other_start_failure_is_not_retried(spark):
    other = java_failure(spark, "other")
    starts = Starts(other)
    with pytest.raises(Py4JJavaError) as raised:
        start_context(starts, sleep=lambda _s: None)
    assert raised.value is other and starts.calls == 1
    python_failure = Starts(RuntimeError("no JVM"))
    with pytest.raises(RuntimeError):
        start_context(python_failure, sleep=lambda _s: None)
    assert python_failure.calls == 1


@pytest.mark.parametrize(("classes", "race"), [
    (["java.util.ConcurrentModificationException"], True),
    (["org.apache.spark.SparkException", "java.util.ConcurrentModificationException"], True),  # as a cause
    (["java.lang.IllegalStateException"], False),
    (["org.apache.spark.SparkException", "java.net.ConnectException"], False),
    ([], False),
])
def test_which_start_failures_are_races(classes, race):
    assert (start_race(classes) is not None) == race


def test_the_cause_chain_is_read_from_the_jvm(spark):
    jvm = spark.sparkContext._jvm
    inner = jvm.java.util.ConcurrentModificationException("inner")
    outer = jvm.java.lang.RuntimeException("outer", inner)
    assert java_exception_classes(outer) == ["java.lang.RuntimeException", "java.util.ConcurrentModificationException"]
