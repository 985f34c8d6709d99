"""retry(): backoff, deadline, and which failures it lets through; RestartPolicy: a failed query's
backoff and limit (fake clocks, no sleeping)."""

import pytest

from errorcount.errors import EXIT_INTERNAL, FencedError, JobStop, UnavailableError
from errorcount.retry import (
    MAX_RESTARTS,
    RESTART_WINDOW,
    QueryFailed,
    RestartPolicy,
    StopRequested,
    first_line,
    retry,
    stoppable_sleep,
)


class FakeTime:
    def __init__(self):
        self.now = 0.0
        self.sleeps = []

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds

    def clock(self):
        return self.now


def failing(times, error):
    calls = []

    def action():
        calls.append(1)
        if len(calls) <= times:
            raise error
        return "done"
    return action, calls


def test_transient_failures_are_retried_with_doubling_backoff():
    fake = FakeTime()
    action, calls = failing(6, ConnectionError("gone"))
    assert retry("x", action, 300, lambda e: True, fake.sleep, fake.clock) == "done"
    assert fake.sleeps == [0.5, 1.0, 2.0, 4.0, 8.0, 10.0]
    assert len(calls) == 7


def test_gives_up_with_unavailable_after_the_deadline():
    fake = FakeTime()
    action, _calls = failing(10**6, ConnectionError("still gone"))
    with pytest.raises(UnavailableError, match="kept failing for 30 s .*still gone"):
        retry("connecting", action, 30, lambda e: True, fake.sleep, fake.clock)
    assert sum(fake.sleeps) <= 30


def test_other_errors_and_job_stops_are_not_retried():
    fake = FakeTime()
    action, calls = failing(1, ValueError("bug"))
    with pytest.raises(ValueError):
        retry("x", action, 300, lambda e: isinstance(e, ConnectionError), fake.sleep, fake.clock)
    action, calls = failing(1, FencedError("other instance"))
    with pytest.raises(FencedError):
        retry("x", action, 300, lambda e: True, fake.sleep, fake.clock)
    assert len(calls) == 1 and fake.sleeps == []


def test_stoppable_sleep_waits_in_steps_and_ends_on_a_stop():
    waited, asked = [], []
    requests = iter([False, False, False, True])

    def stop_requested():
        asked.append(1)
        return next(requests)

    sleep = stoppable_sleep(stop_requested, poll=0.5, wait=waited.append)
    with pytest.raises(StopRequested):
        sleep(10)  # stop seen at the fourth check, after 1.5 s of the 10
    assert waited == [0.5, 0.5, 0.5]
    calm = stoppable_sleep(lambda: False, poll=0.5, wait=waited.append)
    waited.clear()
    calm(1.2)
    assert waited == [0.5, 0.5, pytest.approx(0.2)]


def test_a_stop_during_backoff_ends_retry_without_another_attempt():
    fake = FakeTime()
    action, calls = failing(100, ConnectionError("gone"))
    stopped = lambda: fake.now >= 1.0  # noqa: E731 - the operator stops the job 1 s into the outage
    with pytest.raises(StopRequested):
        retry("x", action, 300, lambda e: True, stoppable_sleep(stopped, wait=fake.sleep), fake.clock)
    assert len(calls) == 2 and fake.now == 1.0


def test_a_failed_query_is_restarted_with_backoff_until_too_many_fail_within_the_window():
    now = [1000.0]
    policy = RestartPolicy(clock=lambda: now[0])
    delays = []
    for _ in range(MAX_RESTARTS):
        delays.append(policy.delay_after(QueryFailed("broker gone")))
        now[0] += 10
    assert delays == [2, 4, 8, 16, 30]
    with pytest.raises(JobStop) as ended:  # the sixth failure within ten minutes ends the driver
        policy.delay_after(QueryFailed("broker gone again"))
    assert ended.value.exit_code == EXIT_INTERNAL
    assert f"failed {MAX_RESTARTS + 1} times within {RESTART_WINDOW} s, last: broker gone again" in ended.value.message


def test_failures_older_than_the_window_no_longer_count():
    now = [0.0]
    policy = RestartPolicy(clock=lambda: now[0])
    for _ in range(MAX_RESTARTS):
        policy.delay_after(QueryFailed("x"))
    now[0] += RESTART_WINDOW + 1  # all of them out of the window
    assert policy.delay_after(QueryFailed("y")) == 2


def test_a_jvm_call_fails_as_what_java_said_not_as_the_py4j_call(spark):
    """A real Py4JJavaError from the session's JVM: its own text begins with the py4j call
    ("An error occurred while calling o60.get."), which told an operator nothing."""
    jvm = spark.sparkContext._jvm
    future = jvm.java.util.concurrent.CompletableFuture()
    with pytest.raises(Exception) as timed_out:
        future.get(1, jvm.java.util.concurrent.TimeUnit.MILLISECONDS)
    assert str(timed_out.value).startswith("An error occurred while calling")
    assert first_line(timed_out.value) == "java.util.concurrent.TimeoutException"
    future.completeExceptionally(jvm.java.lang.IllegalStateException("the broker said no\nsecond line"))
    with pytest.raises(Exception) as failed:  # ExecutionException around what the future failed with
        future.get()
    assert first_line(failed.value) == "java.lang.IllegalStateException: the broker said no"


def test_an_error_without_a_jvm_reads_as_its_first_line():
    assert first_line(OSError("refused\nmore")) == "refused"
    assert first_line(TimeoutError()) == "TimeoutError"
