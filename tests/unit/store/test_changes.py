"""changes.py's pure parts: which minutes are late under a stored mark, and the rows of what a
batch added to them, against hand-computed expectations."""

from datetime import UTC, datetime

from errorcount.store import changes


def minute_of(text: str) -> int:
    return int(datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()) // 60


def test_a_minute_is_late_when_it_ends_at_or_before_the_stored_mark():
    minutes = [minute_of(f"2031-04-01 12:0{m}:00") for m in range(5)]
    mark = datetime(2031, 4, 1, 12, 3, 0)  # 12:00, 12:01 and 12:02 end at or before it
    assert changes.late(reversed(minutes), mark) == minutes[:3]
    assert changes.late(minutes, datetime(2031, 4, 1, 12, 2, 59, 999000)) == minutes[:2]
    assert changes.late(minutes, None) == []


def test_the_mark_is_read_as_utc_whatever_the_local_zone():
    # TZ is not UTC in the tests (tests/unit conftest); a naive DATETIME from MySQL is UTC
    assert changes.epoch_minute(datetime(1970, 1, 1, 0, 2, 59)) == 2
    assert changes.epoch_minute(datetime(2031, 4, 1, 12, 0)) == minute_of("2031-04-01 12:00:00")


def test_a_changed_row_holds_the_minute_before_and_after_the_batch():
    noon = minute_of("2031-04-01 12:00:00")
    added = {(noon, changes.TOTAL): (2, 5), (noon, 7): (1, 3), (noon + 1, changes.TOTAL): (0, 4)}
    after = {(noon, changes.TOTAL): (10, 100), (noon, 7): (1, 3), (noon + 1, changes.TOTAL): (3, 40), (noon, 9): (5, 5)}
    rows = changes.changed_rows("job", 4, 77, added, after)
    assert rows == [("job", "2031-04-01 12:00:00", 0, 77, 4, 8, 10, 95, 100),
                    ("job", "2031-04-01 12:00:00", 7, 77, 4, 0, 1, 0, 3),
                    ("job", "2031-04-01 12:01:00", 0, 77, 4, 3, 3, 36, 40)]
