"""The lag mirror's thread, against a writer that records what it is handed (the Kafka side is
tests/integration/test_watch.py's): a commit is handed over and returns; commits faster than
every_s coalesce to the newest; an idle topic's offsets are written again every refresh_s; a
failed write is counted and the next commit tries again; close never waits on a hung write."""

import threading

from errorcount.kafka.lag_mirror import OffsetMirror
from tests.harness.drivers import wait_until


class Writer:
    """Records each write (a copy of the offsets); fails while `failing`; blocks while `hold` is clear."""

    def __init__(self):
        self.writes: list[dict] = []
        self.failing = False
        self.hold = threading.Event()
        self.hold.set()
        self.entered = threading.Event()  # a write has begun

    def write_group_offsets(self, group: str, offsets, timeout_s: int) -> None:
        assert group == "lag-group" and timeout_s > 0
        self.entered.set()
        self.hold.wait()
        if self.failing:
            raise RuntimeError("the group has an active member")
        self.writes.append(dict(offsets))


def at(offset: int) -> dict:
    return {("logs", 0): offset, ("logs", 1): offset * 2}


def test_commits_that_come_faster_than_every_s_coalesce_to_the_newest():
    writer = Writer()
    mirror = OffsetMirror(writer, "lag-group", every_s=3600, refresh_s=7200)
    try:
        mirror.offer(at(1))
        wait_until(lambda: writer.writes == [at(1)], 10, "the first commit written at once")
        for offset in range(2, 50):
            mirror.offer(at(offset))  # within every_s of the first write: held, newest wins
        assert writer.writes == [at(1)] and mirror.written == at(1)
    finally:
        mirror.close()
    fast = Writer()
    mirror = OffsetMirror(fast, "lag-group", every_s=0.05, refresh_s=7200)
    try:
        for offset in range(1, 200):
            mirror.offer(at(offset))
        wait_until(lambda: fast.writes and fast.writes[-1] == at(199), 10, "the newest commit written")
        assert len(fast.writes) < 199  # coalesced, in order, never an older one after a newer
        assert [w[("logs", 0)] for w in fast.writes] == sorted(w[("logs", 0)] for w in fast.writes)
    finally:
        mirror.close()


def test_an_idle_topic_s_offsets_are_written_again_every_refresh_s():
    writer = Writer()
    mirror = OffsetMirror(writer, "lag-group", every_s=0.01, refresh_s=0.05)
    try:
        mirror.offer(at(7))
        wait_until(lambda: len(writer.writes) >= 3, 10, "the same offsets written again while idle")
        assert all(write == at(7) for write in writer.writes)
    finally:
        mirror.close()


def test_nothing_is_written_before_the_first_commit():
    writer = Writer()
    mirror = OffsetMirror(writer, "lag-group", every_s=0.01, refresh_s=0.01)
    try:
        mirror.offer({})  # a commit that moved no offsets
        mirror.offer(at(3))
        wait_until(lambda: writer.writes, 10, "the first real commit written")
        assert writer.writes[0] == at(3)
    finally:
        mirror.close()


def test_a_failed_write_is_counted_and_the_next_commit_tries_again():
    writer, failed = Writer(), []
    writer.failing = True
    mirror = OffsetMirror(writer, "lag-group", failed=lambda: failed.append(1), every_s=0.01, refresh_s=3600)
    try:
        mirror.offer(at(1))
        wait_until(lambda: mirror.failures == 1, 10, "the failure counted")
        assert (failed, writer.writes, mirror.written) == ([1], [], None)
        writer.failing = False
        mirror.offer(at(2))
        wait_until(lambda: mirror.written == at(2), 10, "the next commit written")
        assert writer.writes == [at(2)] and mirror.failures == 1
    finally:
        mirror.close()


def test_close_does_not_wait_for_a_write_that_hangs():
    writer = Writer()
    writer.hold.clear()  # the broker went away mid-write
    mirror = OffsetMirror(writer, "lag-group", every_s=0.01, refresh_s=3600)
    mirror.offer(at(1))
    wait_until(writer.entered.is_set, 10, "the write under way")
    mirror.close()  # returns although the write is still in flight
    assert mirror._thread.is_alive() and writer.writes == []
    writer.hold.set()
    mirror._thread.join(10)
    assert not mirror._thread.is_alive()  # closed: the thread ends after the write it was in
