"""make counts' calendar (errorcount/tools/minutes.py): the window of minutes and the quiet ones,
against hand-written expectations."""

from datetime import datetime, timedelta

from errorcount.tools import minutes

T = datetime(2031, 4, 1, 12, 0)


def at(m: int) -> datetime:
    return T + timedelta(minutes=m)


def test_the_window_ends_at_the_newest_row_and_starts_no_earlier_than_the_first():
    assert minutes.window(at(0), at(30), 5, None) == (at(26), at(30))
    assert minutes.window(at(28), at(30), 5, None) == (at(28), at(30))
    assert minutes.window(None, None, 5, None) is None


def test_complete_only_ends_at_the_newest_minute_that_ends_by_the_mark():
    assert minutes.window(at(0), at(30), 5, at(20) + timedelta(seconds=30), only_complete=True) == (at(15), at(19))
    assert minutes.window(at(0), at(30), 5, at(40), only_complete=True) == (at(26), at(30))
    assert minutes.window(at(0), at(30), 5, None, only_complete=True) is None
    assert minutes.window(at(10), at(30), 5, at(5), only_complete=True) is None  # nothing complete yet


def test_a_minute_without_a_row_is_quiet_with_zero_lines():
    found = {at(3): (1, 10), at(1): (0, 4)}
    assert minutes.calendar(found, at(0), at(3)) == [(at(3), 1, 10, True), (at(2), 0, 0, False),
                                                     (at(1), 0, 4, True), (at(0), 0, 0, False)]


def test_the_changed_listing_names_the_total_and_each_series_by_its_labels():
    when = datetime(2031, 4, 2, 8, 0, 1, 250000)
    shown = minutes.changed_table([(at(0), 0, None, 1, 3, 10, 14, when, 9),
                                   (at(0), 5, "level=ERROR", 1, 3, 1, 3, when, 9)])
    assert "(minute total)" in shown[1] and "1 -> 3" in shown[1] and "10 -> 14" in shown[1]
    assert shown[1].endswith("2031-04-02 08:00:01.250  9")
    assert "level=ERROR" in shown[2]
    assert "no complete minute changed" in minutes.changed_table([])[1]
