"""make chaos's watch on counted_through: the producers report each acknowledgement (acks=all: the
record is readable from then on) with the time it arrived; a thread reads the job's mark and its
stored offsets in one MySQL snapshot after every new ledger row (every committed batch) and every
move of the mark (a heartbeat while idle), and checks that each record acknowledged before the
mark lies below its partition's stored offset. A killed SQL server only pauses the watch (it
reconnects)."""

import threading
import time

import pymysql

from tests.harness import admin_db

SNAPSHOT_LEDGER = "SELECT COALESCE(MAX(id), 0) FROM ingest_batches WHERE job = %s"
SNAPSHOT_MARK = "SELECT UNIX_TIMESTAMP(through_at) FROM counted_through WHERE job = %s AND topic = ''"
SNAPSHOT_OFFSETS = "SELECT topic, kafka_partition, next_offset FROM kafka_offsets WHERE job = %s"


class ThroughWatch:
    def __init__(self, job: str):
        self.job = job
        self.lock = threading.Lock()
        self.acks: list[tuple[str, int, int, float]] = []  # (topic, partition, offset, acknowledged at)
        self.checks, self.ahead = 0, []  # batches checked; (mark, records acknowledged before it, not counted)
        self.marks: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="chaos-through", daemon=True)

    def acked(self, topic: str, partition: int, offset: int) -> None:
        """A producer's ack (Writer's `acked`), timed as it arrives."""
        with self.lock:
            self.acks.append((topic, partition, offset, time.time()))

    def start(self) -> "ThroughWatch":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(60)

    def check(self, mark: float, stored: dict[tuple[str, int], int]) -> None:
        with self.lock:
            missed = [(t, p, o) for t, p, o, at in self.acks if at < mark and o >= stored.get((t, p), 0)]
        self.checks += 1
        if not self.marks or mark > self.marks[-1]:
            self.marks.append(mark)
        if missed:
            self.ahead.append((mark, missed[:5]))

    def _run(self) -> None:
        conn, seen = None, None
        while not self._stop.wait(0.2):
            try:
                conn = conn or admin_db.connect()
                conn.begin()  # one snapshot: the newest batch, the mark and the offsets beside it
                with conn.cursor() as cursor:
                    cursor.execute(SNAPSHOT_LEDGER, (self.job,))
                    newest = int(cursor.fetchone()[0])
                    cursor.execute(SNAPSHOT_MARK, (self.job,))
                    mark = cursor.fetchone()
                    cursor.execute(SNAPSHOT_OFFSETS, (self.job,))
                    stored = {(t, int(p)): int(o) for t, p, o in cursor.fetchall()}
                conn.commit()
                if mark is not None and (newest, mark[0]) != seen:
                    seen = (newest, mark[0])
                    self.check(float(mark[0]), stored)
            except pymysql.err.Error:
                conn = None  # the server was killed: reconnect at the next look
