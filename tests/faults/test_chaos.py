"""A short `make chaos`: random SIGKILLs under a steady producer, then exact counts and offsets."""

import chaos
import pytest

pytestmark = pytest.mark.slow


def test_random_kills_under_load_lose_and_double_nothing(admin):
    figures = chaos.run(lines=20_000, partitions=4, kills=3, rate=1500, seed=7)
    print(chaos.table(figures))
    assert figures["kills"] == 3
    assert (figures["lost"], figures["doubled"]) == (0, 0)
    assert figures["offsets_exact"]
    assert figures["ledger_records"] == 20_000
    assert figures["ledger_rejected"] == figures["rejected_lines"]
    assert figures["final_exit"] == 0
