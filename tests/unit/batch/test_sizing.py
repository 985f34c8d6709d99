"""MAX_OFFSETS_PER_TRIGGER against the partitions read (errorcount/batch/sizing.py)."""

import pytest

from errorcount.batch.sizing import batch_advice, reader_share


def test_the_reader_share_is_the_fixed_per_partition_cost_over_a_full_batch():
    # 512 partitions x 5 ms = 2.56 s; 500 000 records x 4 us = 2.0 s: 2.56 / 4.56
    assert reader_share(500_000, 512) == pytest.approx(2.56 / 4.56)
    assert reader_share(500_000, 4) == pytest.approx(0.02 / 2.02)


@pytest.mark.parametrize("max_offsets, partitions", [(0, 2048), (500_000, 4), (500_000, 100), (2_560_000, 512)])
def test_no_advice_with_no_cap_or_enough_records_per_partition(max_offsets, partitions):
    assert batch_advice(max_offsets, partitions) is None


def test_too_few_records_per_partition_are_named_with_the_cap_to_raise_toward():
    advice = batch_advice(500_000, 512)
    assert advice is not None
    assert "MAX_OFFSETS_PER_TRIGGER=500000 over 512 partitions reads at most 976 records per partition" in advice
    assert "about 56% of a catch-up's time" in advice
    assert "raise MAX_OFFSETS_PER_TRIGGER toward 2560000" in advice
    assert "about 2.6 s of CPU per batch" in advice
    assert batch_advice(499_999, 100) is not None  # one record under 5 000 per partition
