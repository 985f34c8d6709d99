"""errorcount/main.py's stop requests: stop signals less than a second apart are copies of one
request, however many a process group's wrappers pass on; one that comes later is a request of its
own."""

import pytest

from errorcount.main import StopRequests


@pytest.mark.parametrize("arrivals, new", [
    ([0.0], [True]),                                   # one signal: one request
    ([0.0, 0.002], [True, False]),                     # to the whole group: direct and forwarded copies
    ([0.0, 0.001, 0.003], [True, False, False]),       # make's extra SIGTERM forwarded once more by run.sh
    ([0.0, 0.0, 0.0, 0.0], [True, False, False, False]),  # copies handled at one instant
    ([0.0, 0.6, 1.2, 1.8], [True, False, False, False]),  # a burst whose copies come late: the window runs from the last
    ([0.0, 1.0], [True, True]),                        # a second, exactly: a new request
    ([0.0, 2.5], [True, True]),                        # Ctrl-C twice in a terminal
    ([0.0, 0.001, 3.0, 3.001], [True, False, True, False]),  # the group signalled twice: two requests, two copies each
])
def test_stop_signals_less_than_a_second_apart_are_one_request(arrivals, new):
    now = iter(arrivals)
    requests = StopRequests(clock=lambda: next(now))
    assert [requests.is_new() for _ in arrivals] == new

