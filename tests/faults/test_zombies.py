"""Two drivers with the same job name: the newest wins, the older is fenced at its next commit
and names the instance that took over. Never do both commit a batch."""

from datetime import datetime

import pytest

from errorcount.errors import EXIT_FENCED
from tests.support import wait_until

START = datetime(2035, 1, 1, 0, 0)
ROUNDS = 2  # a takeover, then a takeover of the instance that took over: the epochs move on, nothing counts twice
pytestmark = [pytest.mark.slow, pytest.mark.mysql]


def test_newest_instance_wins_and_fences_the_older_one(scenario):
    run = scenario(3, START)
    run.write(600, seed=51, minutes=5)
    current = run.caught_up_driver("the first instance to catch up")

    for round_number in range(ROUNDS):
        taken = run.epoch() + 1
        newer = run.driver()
        wait_until(lambda: run.epoch() == taken, 120, "the newer instance to take the lease")  # noqa: B023 (used at once)
        run.write(300, seed=52 + round_number, minutes=5)
        assert current.wait(180) == EXIT_FENCED, current.log()[-3000:]
        assert "was taken over by another instance" in current.log()
        assert f"epoch {taken} held by" in current.log()
        run.catch_up(newer, "the newer instance to catch up")
        assert run.counts() == run.produced.total()
        current = newer

    assert run.ledger()[1] == 600 + 300 * ROUNDS  # every record committed exactly once
    assert current.stop() == 0
