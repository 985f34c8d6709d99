"""Every kind of bad record, through the real broker: counted as rejected, kept as a dead letter
(reason + first KiB), never failing a batch; valid lines around them still count exactly."""

from collections import Counter

import pytest

from errorcount.tools import produce, samples
from tests.support import catch_up, error_log, ledger, query, unique

# MariaDB only: what this tests is Kafka's and the classifier's side; every statement it makes
# runs on MySQL 8 too (test_sql_warnings, test_store_edges), docs/testing.md.
pytestmark = pytest.mark.slow

BIG = b"x" * 500_000
# (value, reason or None, minute counted or None): labelled by hand from the contract.
RECORDS = [
    (b"2036-01-01 10:00:00 ERROR first", None, "2036-01-01 10:00:00"),
    (None, "null_value", None),
    (b"", "empty_line", None),
    (b" \t \r\n", "empty_line", None),
    (bytes(range(256)), "bad_timestamp", None),
    (b"\xc3\x28\xa0\xa1 not utf-8", "bad_timestamp", None),
    (b"2036-01-01 1\xe2\x82:00:00 ERROR broken bytes in the time", "bad_timestamp", None),
    (b"2036-01-01 10:00:00 ERROR " + BIG, None, "2036-01-01 10:00:00"),
    (b"2036-01-01 10:01:00 " + BIG, None, None),  # 500 000 letters are a valid (non-ERROR) level
    (b"2036-01-01 10:01:00 " + BIG + b"1", "bad_level", None),
    (BIG, "bad_timestamp", None),
    (b"2036-01-01 10:02:00 ERROR NullPointerException\n\tat a.B.c(B.java:1)\n\tat d.E.f(E.java:2)", None,
     "2036-01-01 10:02:00"),
    (b"Caused by: x\n2036-01-01 10:02:00 ERROR second line", "bad_timestamp", None),
    (b"2035-02-29 10:00:00 ERROR", "impossible_date", None),
    (b"2036-06-31 10:00:00 ERROR", "impossible_date", None),
    (b"2036-01-01 25:00:00 ERROR", "bad_timestamp", None),
    (b"2036-01-01 10:00:00+15:00 ERROR", "bad_timestamp", None),
    (b"2036-01-01 00:30:00+01:00 error in the previous year", None, "2035-12-31 23:30:00"),
    (b"2036-01-01T10:03:00,123456789-0930 [ERROR]:", None, "2036-01-01 19:33:00"),
    ("２０３６-01-01 10:00:00 ERROR".encode(), "bad_timestamp", None),
    ("2036-01-01 10:00:00 ＥＲＲＯＲ fullwidth letters".encode(), "bad_level", None),
    (b"2036-01-01 10:00:00 ERR_OR", "bad_level", None),
    (b"0001-01-01 00:00:00 ERROR", "minute_out_of_range", None),
    (b"2036-01-01 10:00:00 WARN not an error", None, None),
]


def test_bad_records_are_rejected_kept_and_never_fail_a_batch(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=1), unique("job")
    events = [samples.Event(value, minute, reason is not None) for value, reason, minute in RECORDS]
    produce.produce(topic, events, partitions=1)  # offsets are list indices
    driver = start_driver(job, topic)
    catch_up(admin, job, topic, driver)

    assert error_log(admin) == dict(Counter(m for _v, _r, m in RECORDS if m))
    rows = query(admin, "SELECT kafka_offset, reason, raw_value FROM rejected_lines WHERE topic = %s "
                        "ORDER BY kafka_offset", (topic,))
    expected = [(i, reason, None if value is None else value[:1024])
                for i, (value, reason, _m) in enumerate(RECORDS) if reason]
    assert [(int(o), r, None if raw is None else bytes(raw)) for o, r, raw in rows] == expected
    assert ledger(admin, job)[1:] == (len(RECORDS), sum(1 for _v, _r, m in RECORDS if m), len(expected))
    assert driver.stop() == 0


def test_dead_letters_beyond_the_cap_are_only_counted(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=1), unique("job")
    produce.produce(topic, [samples.Event(b"garbage %d" % i, None, True) for i in range(40)], partitions=1)
    driver = start_driver(job, topic, env={"DEAD_LETTER_LIMIT": "7"})
    catch_up(admin, job, topic, driver)
    kept = query(admin, "SELECT COUNT(*) FROM rejected_lines WHERE topic = %s", (topic,))[0][0]
    batches, records, _errors, rejected = ledger(admin, job)
    assert (records, rejected) == (40, 40)
    assert 0 < kept <= 7 * batches
    assert driver.stop() == 0


def test_every_reject_under_the_cap_is_kept_even_when_offsets_share_a_slot(clean_error_log, make_topic, start_driver):
    """8 rejects under a cap of 8 over 4 partitions (2 slots each), at offsets 0 and 2 of every
    partition: the same slot (offset mod 2). All 8 must be kept; a sample is only for beyond the cap."""
    admin = clean_error_log
    topic, job = make_topic(partitions=4), unique("job")
    bad = set(range(0, 4)) | set(range(8, 12))  # event i lands at partition i % 4, offset i // 4
    events = [samples.Event(b"garbage %d" % i, None, True) if i in bad else
              samples.Event(b"2036-01-01 10:00:00 INFO fine", None, False) for i in range(16)]
    produce.produce(topic, events, partitions=4)
    driver = start_driver(job, topic, env={"DEAD_LETTER_LIMIT": "8"})
    catch_up(admin, job, topic, driver)
    rows = query(admin, "SELECT kafka_partition, kafka_offset, reason FROM rejected_lines WHERE topic = %s "
                        "ORDER BY kafka_partition, kafka_offset", (topic,))
    assert [(int(p), int(o), r) for p, o, r in rows] == [(p, o, "bad_timestamp") for p in range(4) for o in (0, 2)]
    assert ledger(admin, job)[1:] == (16, 0, 8)
    assert driver.stop() == 0
