"""retry(): backoff, deadline, and which failures it lets through (fake clock, no sleeping)."""

import pytest

from app.errors import FencedError, UnavailableError
from app.retry import retry


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
