"""DRY_RUN's table and the ledger's totals (errorcount/recount/diff.py), against counts written out
by hand."""

import pytest

from errorcount.recount.diff import changed, changes, table, totals
from errorcount.recount.plan import Range

BEFORE = {100: (2, 10), 101: (0, 7), 103: (5, 5)}
AFTER = {100: (3, 10), 101: (0, 7), 102: (1, 1)}


def test_every_minute_of_either_side_with_its_difference():
    found = changes(Range(100, 104), BEFORE, AFTER)
    assert [(c.minute, c.before, c.after, c.delta) for c in found] == [
        (100, (2, 10), (3, 10), (1, 0)), (101, (0, 7), (0, 7), (0, 0)),
        (102, (0, 0), (1, 1), (1, 1)), (103, (5, 5), (0, 0), (-5, -5))]
    assert totals(found) == ((7, 22), (4, 18))
    assert changed(found) == 3  # 101 is the same on both sides


def test_the_table_lists_changed_minutes_and_the_totals():
    text = table(changes(Range(100, 104), BEFORE, AFTER)).splitlines()
    assert [line.split()[1] for line in text[1:-2]] == ["01:40", "01:42", "01:43"]  # 101 unchanged, left out
    assert text[-2].split() == ["total", "7", "4", "-3", "22", "18", "-4"]
    assert text[-1] == "3 of 4 minutes change"


def test_the_table_says_the_rejects_before_and_after_when_given():
    text = table(changes(Range(100, 104), BEFORE, AFTER), rejects=(9, 4)).splitlines()
    assert text[-3].split() == ["total", "7", "4", "-3", "22", "18", "-4"]
    assert text[-2].split()[:4] == ["rejects", "9", "4", "-5"]
    assert text[-1] == "3 of 4 minutes change"


def test_a_minute_outside_the_range_is_refused():
    with pytest.raises(ValueError, match="outside the range"):
        changes(Range(100, 103), BEFORE, AFTER)
