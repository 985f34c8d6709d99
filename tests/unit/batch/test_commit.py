"""What a COMMIT whose reply was lost did."""

import pytest

from errorcount.batch.commit import APPLIED, FENCED, NOT_APPLIED, unknown_outcome
from errorcount.offsets import stored_state


@pytest.mark.parametrize("stored, outcome", [
    ({0: 20, 1: 5}, APPLIED),        # the batch's own offsets
    ({0: 10, 1: 5}, NOT_APPLIED),    # the previous ones: not applied, or not yet (the retry's lock waits for it)
    ({0: 10, 1: 9}, FENCED),         # someone else's
    ({0: 20}, FENCED),               # a row gone
    ({0: 20, 1: 5, 2: 1}, FENCED),   # a row more
])
def test_a_lost_commit_is_resolved_from_the_stored_offsets(stored, outcome):
    assert unknown_outcome({0: 10, 1: 5}, {0: 20, 1: 5}, stored, holder=4, epoch=4) == outcome


@pytest.mark.parametrize("stored", [{0: 20, 1: 5}, {0: 10, 1: 5}])
def test_a_lost_commit_under_a_lease_another_epoch_holds_is_fenced_whatever_the_offsets(stored):
    """A newer instance started from the previous offsets and committed the same records itself:
    the stored offsets are this batch's, but not this instance's doing."""
    assert unknown_outcome({0: 10, 1: 5}, {0: 20, 1: 5}, stored, holder=5, epoch=4) == FENCED
    assert unknown_outcome({0: 10, 1: 5}, {0: 20, 1: 5}, stored, holder=None, epoch=4) == FENCED


def test_a_late_applied_commit_is_read_as_not_applied_then_found_applied_by_the_retry():
    """The reply was lost and the COMMIT not yet visible: the plain read sees the previous offsets
    (commit again); the retry's locking read (Store.check_owner, the same rule) waits for it, finds
    the batch's own offsets and writes nothing: counted once."""
    before, after = {0: 10, 1: 5}, {0: 20, 1: 5}
    assert unknown_outcome(before, after, stored=before, holder=1, epoch=1) == NOT_APPLIED
    assert stored_state(after, before, after) == APPLIED  # Store.check_owner: AlreadyApplied, nothing written
    assert stored_state(before, before, after) == NOT_APPLIED  # truly not applied: the retry writes the batch
