"""The bench's plain-Python parser (tests/oracles/pyparse.py) follows the same contract as the job:
checked against the contract's cases, whose expectations are written out independently."""

import pytest

from tests.oracles import pyparse
from tests.unit.pipeline.contract_cases import CASES, epoch_minute


@pytest.mark.parametrize(("value", "minute", "is_error", "reason"), CASES)
def test_pyparse_agrees_with_the_contract(value, minute, is_error, reason):
    expected_minute = epoch_minute(*minute) if minute else None
    assert pyparse.classify(value) == (expected_minute, is_error, reason)
