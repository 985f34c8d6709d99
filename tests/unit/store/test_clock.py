"""counted_through's two clocks (errorcount/store/clock.py): the driver's is read before the SQL
server's (and once more after it, to bound their difference), the earlier of the two is the
observation's time, and a difference beyond the warning threshold is logged once, and again when
the clocks agree; what the server's round trip can explain is no difference."""

import logging

import pytest

from errorcount import faults
from errorcount.errors import ConfigError
from errorcount.store.clock import EarlierClock, ServerClock, ServerClockUnavailable


def test_the_earlier_clock_is_read_driver_first_and_gives_the_earlier_reading():
    events = []

    def driver():
        events.append("driver")
        return 1000.0

    def server():
        events.append("server")
        return 1000.25

    assert EarlierClock(driver, server)() == 1000.0
    assert events == ["driver", "server", "driver"]  # once before asking the server (the time used), once after
    assert EarlierClock(lambda: 5000.0, lambda: 1400.5)() == 1400.5  # a driver an hour ahead: the server's


def driver_readings(pairs: list[tuple[float, float]]):
    """A driver clock returning each (before, after) pair's two readings in turn."""
    return iter([reading for pair in pairs for reading in pair]).__next__


@pytest.mark.parametrize(("before", "server", "after", "apart_s"), [
    (100.0, 100.2, 100.4, 0.0),        # the server answered within the round trip: no difference seen
    (100.0, 220.0, 220.1, 0.0),        # a server that hung for two minutes, then answered: not a skew
    (3700.0, 100.0, 3700.3, 3600.0),   # the driver an hour ahead: at least before - server
    (100.0, 3700.0, 100.3, -3599.7),   # an hour behind: at least after - server
    (100.0, 99.9, 100.1, 0.1),         # a tenth of a second ahead
])
def test_the_difference_is_what_the_round_trip_cannot_explain(before, server, after, apart_s):
    compared: list[float] = []
    clock = EarlierClock(driver_readings([(before, after)]), lambda: server, compared.append)
    assert clock() == min(before, server)
    assert compared == [pytest.approx(apart_s)]


def test_a_skew_is_logged_once_when_it_appears_and_once_when_it_is_gone(caplog):
    servers = iter([100.0, 100.0, 101.0, 102.004, 50.0, 400.0])
    driver = driver_readings([(100.0, 100.001), (3700.0, 3700.001), (3701.0, 3701.001), (102.0, 102.001),
                              (103.0, 103.001), (280.0, 400.5)])  # the last: the server's answer took 120 s
    compared = []
    clock = EarlierClock(driver, servers.__next__, compared.append, warn_s=10.0)
    with caplog.at_level(logging.INFO, logger="errorcount.store.clock"):
        assert [clock() for _ in range(6)] == [100.0, 100.0, 101.0, 102.0, 50.0, 280.0]
    said = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert [round(skew, 3) for skew in compared] == [0.0, 3600.0, 3600.0, -0.003, 53.0, 0.0]  # every reading, for the gauge
    assert [level for level, _ in said] == ["WARNING", "INFO", "WARNING", "INFO"]
    assert "3600.0 s ahead of the SQL server's" in said[0][1] and "NTP" in said[0][1]
    assert "agree again" in said[1][1]
    assert "53.0 s ahead of" in said[2][1]
    assert "agree again" in said[3][1]  # a slow answer is not a second skew


def test_a_server_clock_that_cannot_be_read_says_so_and_connects_again_next_time():
    attempts = []

    def connect():
        attempts.append(1)
        raise OSError("connection refused")

    server = ServerClock(connect)
    for _ in range(2):
        with pytest.raises(ServerClockUnavailable, match="cannot read the SQL server's clock: connection refused"):
            server.now()
    assert len(attempts) == 2


def test_the_driver_clock_is_the_hosts_unless_a_test_shifts_it():
    assert faults.driver_clock({}) is faults.time.time
    shifted = faults.driver_clock({faults.CLOCK_ENV: "3600"})
    assert 3599 < shifted() - faults.time.time() < 3601
    with pytest.raises(ConfigError, match="ERRORCOUNT_CLOCK_OFFSET_S='soon'"):
        faults.driver_clock({faults.CLOCK_ENV: "soon"})
