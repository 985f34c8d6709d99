"""How MySQL's rows read as the job's values: a given-up offset row keeps the ID it had and is not
live; a batch's ledger rows, one per topic it moved, with the job's series figures on the first;
offsets as JSON and as text. Expectations written out by hand."""

from errorcount.offsets import TopicPartition as TP
from errorcount.pipeline.summary import BatchSummary
from errorcount.start_plan import Row
from errorcount.store.rows import GIVEN_UP, StartState, as_json, as_row, as_text, ledger_rows, rejected_minute_rows


def test_a_given_up_row_keeps_the_id_it_had_and_is_not_live():
    assert as_row(40, "AAAA", 90) == Row(40, "AAAA", live=True, seen_end=90)
    assert as_row(40, GIVEN_UP + "AAAA", None) == Row(40, "AAAA", live=False, seen_end=None)
    assert as_row(7, None, 7) == Row(7, None, live=True, seen_end=7)  # stored before IDs were kept
    assert as_row(7, GIVEN_UP, 7) == Row(7, None, live=False, seen_end=7)  # given up without an ID


def test_a_start_s_live_offsets_leave_given_up_rows_out():
    start = StartState({TP("a", 0): Row(5, "ID-A"), TP("a", 1): Row(9, "ID-A", live=False), TP("b", 0): Row(0, None)},
                       first_start=False)
    assert start.live() == {TP("a", 0): 5, TP("b", 0): 0}
    assert start.live_ids() == {TP("a", 0): (5, "ID-A"), TP("b", 0): (0, None)}


def test_ledger_rows_are_one_per_moved_topic_with_the_series_figures_on_the_first():
    batch = BatchSummary(records=30, errors=4, rejected=2, per_topic={"a": (20, 3, 2, 50), "b": (10, 1, 0, 10)})
    before = {TP("a", 0): 10, TP("a", 1): 0, TP("b", 0): 5, TP("c", 0): 8}
    after = {TP("a", 0): 25, TP("a", 1): 5, TP("b", 0): 15, TP("c", 0): 8}  # c did not move
    assert ledger_rows("job", 3, batch, before, after, (2, 6)) == [
        ("job", "a", 3, 20, 50, 3, 2, 2, 6, '{"0": 10, "1": 0}', '{"0": 25, "1": 5}'),
        ("job", "b", 3, 10, 10, 1, 0, 0, 0, '{"0": 5}', '{"0": 15}')]


def test_a_one_topic_batch_without_per_topic_figures_has_its_totals():
    batch = BatchSummary(records=12, errors=2, rejected=1)
    assert ledger_rows("job", 1, batch, {}, {TP("a", 0): 12}, (0, 0)) == [
        ("job", "a", 1, 12, 12, 2, 1, 0, 0, "{}", '{"0": 12}')]
    otlp = BatchSummary(records=12, errors=2, rejected=1, log_records=40)
    assert ledger_rows("job", 1, otlp, {}, {TP("a", 0): 12}, (0, 0))[0][3:5] == (12, 40)


def test_offsets_as_json_and_as_text():
    assert as_json({10: 3, 2: 7}) == '{"2": 7, "10": 3}'
    assert as_text({TP("b", 0): 4, TP("a", 1): 9}) == "a-1: 9, b-0: 4"
    assert as_text({}) == "none"


def test_rejected_minute_rows_come_in_the_tables_key_order_minute_then_topic():
    # minute 29_000_001 is 2025-02-19 21:21 UTC; topic "b" sorts after "a" within a minute
    rows = rejected_minute_rows("j", {("b", 29_000_001): 2, ("a", 29_000_001): 3, ("z", 29_000_000): 1})
    assert rows == [("j", "z", "2025-02-19 21:20:00", 1), ("j", "a", "2025-02-19 21:21:00", 3),
                    ("j", "b", "2025-02-19 21:21:00", 2)]
