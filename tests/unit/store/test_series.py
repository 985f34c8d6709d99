"""MAX_SERIES's admission as a pure function (errorcount/store/series.py): deterministic, bounded."""

import itertools

from errorcount.store.series import Admission, admit


def test_new_series_are_admitted_while_there_is_room():
    assert admit({"a": 1, "b": 2}, registered=0, cap=10) == Admission(("b", "a"), frozenset())
    assert admit({}, registered=10, cap=10) == Admission((), frozenset())


def test_beyond_the_cap_the_series_with_fewest_lines_overflow():
    assert admit({"a": 5, "b": 9, "c": 5, "d": 1}, registered=8, cap=10) == Admission(("b", "a"), frozenset({"c", "d"}))
    assert admit({"a": 5}, registered=10, cap=10) == Admission((), frozenset({"a"}))
    assert admit({"a": 5}, registered=12, cap=10) == Admission((), frozenset({"a"}))  # a lowered cap admits nothing


def test_admission_does_not_depend_on_the_order_rows_arrived_in():
    batch = {"x": 3, "y": 3, "z": 3, "w": 7}
    answers = {admit(dict(order), registered=1, cap=3) for order in itertools.permutations(batch.items())}
    assert answers == {Admission(("w", "x"), frozenset({"y", "z"}))}


def test_every_new_series_is_either_admitted_or_overflows_never_both():
    for registered, cap in [(0, 1), (3, 5), (5, 5), (0, 100)]:
        batch = {f"s{i}": i % 4 + 1 for i in range(20)}
        result = admit(batch, registered, cap)
        assert set(result.admitted) | result.overflowed == set(batch)
        assert not set(result.admitted) & result.overflowed
        assert len(result.admitted) == min(max(cap - registered, 0), len(batch))
