"""errorcount/main.py's stop requests: a signal that reaches the driver both directly and as
scripts/run.sh's forwarded copy is one request; any other signal is one of its own."""

import signal

import pytest

from errorcount.main import StopRequests

TERM, INT = signal.SIGTERM, signal.SIGINT
DIRECT, FORWARDED = False, True


@pytest.mark.parametrize("arrivals, new", [
    ([(TERM, FORWARDED)], [True]),                                    # to the wrapper: forwarded once
    ([(TERM, DIRECT)], [True]),                                       # to the driver alone
    ([(TERM, DIRECT), (TERM, FORWARDED)], [True, False]),             # to the whole group: both copies
    ([(TERM, FORWARDED), (TERM, DIRECT)], [True, False]),             # handled in signal-number order
    ([(INT, FORWARDED), (TERM, FORWARDED)], [True, True]),            # Ctrl-C, then SIGTERM to the wrapper
    ([(INT, FORWARDED), (INT, FORWARDED)], [True, True]),             # Ctrl-C twice in a terminal
    ([(TERM, DIRECT), (TERM, DIRECT)], [True, True]),                 # the driver signalled twice
    ([(TERM, DIRECT), (INT, FORWARDED)], [True, True]),               # copies of different signals
    ([(TERM, DIRECT), (TERM, FORWARDED), (TERM, DIRECT), (TERM, FORWARDED)], [True, False, True, False]),  # group twice
    ([(TERM, DIRECT), (TERM, DIRECT), (TERM, FORWARDED), (TERM, FORWARDED)], [True, True, False, False]),
])
def test_a_direct_and_a_forwarded_copy_of_one_signal_pair_up_as_one_request(arrivals, new):
    requests = StopRequests()
    assert [requests.is_new(signum, forwarded) for signum, forwarded in arrivals] == new
