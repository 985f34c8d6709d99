"""Two drivers with the same job name: the newest wins, the older is fenced at its next commit
and names the instance that took over. Never do both commit a batch."""

from datetime import datetime

import produce
import pytest

from app.errors import EXIT_FENCED
from tests.support import Produced, catch_up, error_log, ledger, query, unique, wait_until

START = datetime(2035, 1, 1, 0, 0)
ROUNDS = 5
pytestmark = pytest.mark.slow


def epoch(admin, job: str) -> int:
    rows = query(admin, "SELECT epoch FROM job_leases WHERE job = %s", (job,))
    return int(rows[0][0]) if rows else 0


def test_newest_instance_wins_and_fences_the_older_one(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=3), unique("job")
    produced = Produced(topic)
    produced.add(produce.generate(600, seed=51, start=START, minutes=5))
    current = start_driver(job, topic)
    catch_up(admin, job, topic, current, "the first instance to catch up")

    for round_number in range(ROUNDS):
        before = epoch(admin, job)
        newer = start_driver(job, topic)
        wait_until(lambda: epoch(admin, job) == before + 1, 120, "the newer instance to take the lease")  # noqa: B023 (used at once)
        produced.add(produce.generate(300, seed=52 + round_number, start=START, minutes=5))
        assert current.wait(180) == EXIT_FENCED, current.log()[-3000:]
        assert "was taken over by another instance" in current.log()
        assert f"epoch {before + 1} held by" in current.log()
        catch_up(admin, job, topic, newer, "the newer instance to catch up")
        assert error_log(admin) == produced.total()
        current = newer

    assert ledger(admin, job)[1] == 600 + 300 * ROUNDS  # every record committed exactly once
    assert current.stop() == 0
