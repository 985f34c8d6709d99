"""The job's lease and its start, the base of the Store (transactions.py): taking the lease (the
job's first start stored with its first epoch), the fencing every write checks (the lease row and
the offsets under it), the offset rows as the start planner reads them and a start plan stored.
Statements in statements.py; writes only inside transaction() (mysql.py)."""

from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass
from typing import TypeVar

from errorcount import offsets
from errorcount.config.rules import Rules
from errorcount.errors import FencedError
from errorcount.faults import NO_FAULTS, Hooks
from errorcount.offsets import Position, TopicPartition
from errorcount.start_plan import Plan, Row
from errorcount.store import schema
from errorcount.store.connection import Connection
from errorcount.store.mysql import AlreadyApplied, ServerCursor, transaction
from errorcount.store.rows import GIVEN_UP, StartState, as_row, as_text, live, live_ids
from errorcount.store.series import SeriesStore
from errorcount.store.statements import (
    BUMP_LEASE,
    GIVE_UP,
    INSERT_SKIPPED,
    MARK_STARTED,
    REASON_CHARS,
    SELECT_LEASE,
    SELECT_LEASE_HOLDER,
    SELECT_LEASE_RULES,
    SELECT_LEASE_SEEN,
    SELECT_LEASE_TAKEN,
    SELECT_OFFSETS,
    SELECT_STARTED,
    SETTLE_OFFSETS,
)

T = TypeVar("T")


@dataclass(frozen=True)
class Reattempt:
    """This driver is YARN's re-attempt (attempt 2 or later) of application `app`, which YARN
    accepted at `submitted_ms` (epoch milliseconds, from the AM's APP_SUBMIT_TIME_ENV)."""

    app: str
    submitted_ms: int


class LeaseStore:
    """One connection for one job, its topics and counts table: the lease, the start and the fencing
    (see Store, transactions.py, which adds the batch's transaction). `epoch` is the lease this
    instance holds (acquire_lease); every write checks it; `replaced`, the epoch and rules of the
    lease it took over (None: the job's first, or rules unknown); `first_stored`, whether taking it
    stored the job's first start too. `hooks` reach the fault points (errorcount/faults.py; inert by
    default); `series` writes the per-dimension counts (GROUP_BY), when set. `epoch`: none taken yet
    (0), or one the caller knows this instance holds (tests)."""

    def __init__(self, conn: Connection, job: str, topics: Container[str], counts_table: str = schema.COUNTS_TABLE,
                 hooks: Hooks = NO_FAULTS, series: SeriesStore | None = None, epoch: int = 0, lateness_s: int = 0):
        self.conn, self.job, self.topics, self.counts_table, self.hooks = conn, job, topics, counts_table, hooks
        self.series = series
        self.epoch = epoch
        self.replaced: tuple[int, Rules] | None = None
        self.first_stored = False  # acquire_lease stored the job's first start plan
        self.lateness_s = lateness_s  # LATENESS: complete_before = through_at - lateness_s

    def run(self, work: Callable[[ServerCursor], T]) -> T:
        """work(cursor) in one transaction (the one helper, transaction()): for the statements of
        the store's other modules (retention's)."""
        with transaction(self.conn) as cursor:
            return work(cursor)

    def under_lease(self, work: Callable[[ServerCursor], T]) -> T | None:
        """work(cursor) in one transaction while this instance's epoch holds the lease (its row locked
        first); None, and nothing done, once another instance holds it: the next batch's commit
        reports the takeover."""
        with transaction(self.conn) as cursor:
            try:
                self.lock_lease(cursor)
            except FencedError:
                return None
            return work(cursor)

    def acquire_lease(self, owner: str, reattempt: Reattempt | None = None, metrics_endpoint: str | None = None,
                      rules: Rules | None = None, first: Plan | None = None) -> int:
        """Takes over the job: bumps its epoch (`epoch`), so any older instance is fenced at its next
        commit, and stores the `rules` it counts under (errorcount/config/rules.py; None: unknown).
        `first`: the job's first start plan (STARTING_OFFSETS resolved before the lease), stored in
        the same transaction while no start is stored, so that the job's first epoch and where it
        starts are one commit (a driver that dies between the two would leave a later start to resolve
        `latest` again, past what was written meanwhile); `first_stored` says whether it was.

        A YARN re-attempt does not take the job from an instance of another application that took it
        after this application was submitted: that instance replaced this application, which must
        not steal the job back (FencedError). Earlier attempts of its own application, and holders
        older than its submission (the previous deployment), it takes over like any start."""
        job = self.job
        with transaction(self.conn) as cursor:
            cursor.execute(SELECT_LEASE_RULES, (job,))  # not a locking read: what the start says of it, no more
            held = cursor.fetchone()
            if reattempt:
                cursor.execute(SELECT_LEASE_HOLDER, (job,))
                row = cursor.fetchone()
                own = row is not None and str(row[1]).endswith(f" app {reattempt.app}")
                if row is not None and not own and float(row[2]) * 1000 >= reattempt.submitted_ms:
                    raise FencedError(
                        f"job {job!r} is held by another instance (epoch {row[0]}, {row[1]}) that took it after "
                        f"application {reattempt.app} was submitted: it replaced this application, so YARN's "
                        "re-attempt does not take the job back. Nothing was committed. If that instance is "
                        "gone, submit the job again.")
            cursor.execute(BUMP_LEASE, (job, owner, metrics_endpoint, rules and rules.digest, rules and rules.text))
            cursor.execute(SELECT_LEASE_TAKEN, (job,))  # the row as this transaction wrote it: the newest
            row = cursor.fetchone()
            assert row is not None, "the lease row was just written"
            epoch, stored = int(row[0]), first is not None and not row[1]
            if first is not None and stored:
                self.store_plan(cursor, first, epoch)
        self.epoch, self.first_stored = epoch, stored
        before = Rules.parse(held[1]) if held else None
        self.replaced = (int(held[0]), before) if held and before else None
        return epoch

    def earlier_lease(self) -> str | None:
        """The job's lease as it stands, in words (None: none taken yet): which epoch, when, by whom."""
        with transaction(self.conn) as cursor:
            cursor.execute(SELECT_LEASE_SEEN, (self.job,))
            row = cursor.fetchone()
        return None if row is None else f"epoch {row[0]} taken {row[2]} UTC by {row[1]}"

    def load_start(self) -> "StartState":
        """What a start plans from (errorcount/start_plan.py): every offset row of the topics the job
        reads, given-up ones included, and whether the job has ever stored a start."""
        with transaction(self.conn) as cursor:
            cursor.execute(SELECT_OFFSETS, (self.job,))
            rows = self.rows(cursor.fetchall())
            cursor.execute(SELECT_STARTED, (self.job, self.job))
            started = cursor.fetchone()
        return StartState(rows, first_start=not (started and started[0]))

    def load_offsets(self) -> Position:
        """Stored next offsets of this job on the topics it reads (given-up rows left out)."""
        return self.load_start().live()

    def load_holder(self) -> tuple[Position, int | None]:
        """The stored next offsets and the lease's epoch now, in one read: what a COMMIT whose reply
        was lost did (batch.unknown_outcome)."""
        with transaction(self.conn) as cursor:
            cursor.execute(SELECT_LEASE, (self.job,))
            lease = cursor.fetchone()
            cursor.execute(SELECT_OFFSETS, (self.job,))
            stored = self.live(cursor.fetchall())
        return stored, (None if lease is None else int(lease[0]))

    def live(self, rows) -> Position:
        """The next offsets of SELECT_OFFSETS rows of the topics the job reads, given-up ones left out."""
        return live(self.rows(rows))

    def check_owner(self, cursor, expected: Position, applied: Position | None = None) -> None:
        """Locks the lease and offset rows; FencedError unless this instance still owns both, or
        AlreadyApplied when the offsets already are `applied` (what this transaction would store)."""
        self.lock_lease(cursor)
        cursor.execute(SELECT_OFFSETS + " FOR UPDATE", (self.job,))
        self.compare(expected, applied, self.live(cursor.fetchall()))

    def lock_lease(self, cursor) -> None:
        """Locks the lease row; FencedError unless this instance's epoch still holds it."""
        job, epoch = self.job, self.epoch
        cursor.execute(SELECT_LEASE + " FOR UPDATE", (job,))
        row = cursor.fetchone()
        if row is None or int(row[0]) != epoch:
            holder = f"epoch {row[0]} held by {row[1]}" if row else "no lease row"
            raise FencedError(f"job {job!r} was taken over by another instance ({holder}; this one had epoch {epoch}). "
                              "Nothing of this batch was committed; the newer instance carries on. "
                              "If that is unexpected, make sure one instance runs per JOB_NAME.")

    def compare(self, expected: Mapping, applied: Mapping | None, stored: Mapping) -> None:
        """Returns when MySQL holds `expected`; AlreadyApplied when it holds `applied`; else fenced."""
        state = offsets.stored_state(stored, expected, applied)
        if state == offsets.NOT_APPLIED:
            return
        if state == offsets.APPLIED:
            raise AlreadyApplied()
        raise FencedError(
            f"the stored offsets of job {self.job!r} changed behind this driver "
            f"(expected {as_text(expected)}, found {as_text(stored)}): another instance is writing this job. "
            "Nothing of this batch was committed. Make sure one instance runs per JOB_NAME, then restart.")

    def settle(self, start: "StartState", plan: Plan) -> None:
        """Stores a start plan (errorcount/start_plan.py) in one transaction, before its query starts:
        records its events (skipped_offsets, kind and reason per partition), gives up the rows it
        gives up, stores where every current partition starts under its topic's ID with the end
        offset seen now, and marks the job as started (STARTING_OFFSETS never applies again).
        Idempotent: run again after a lost COMMIT that was applied, it finds the plan's rows
        (offsets and IDs) stored and writes nothing."""
        job = self.job
        target = {tp: (o, plan.topic_ids[tp.topic]) for tp, o in plan.offsets.items()}
        try:
            with transaction(self.conn) as cursor:
                self.lock_lease(cursor)
                cursor.execute(SELECT_OFFSETS + " FOR UPDATE", (job,))
                self.compare(start.live_ids(), target, live_ids(self.rows(cursor.fetchall())))
                self.store_plan(cursor, plan, self.epoch)
        except AlreadyApplied:
            pass

    def store_plan(self, cursor, plan: Plan, epoch: int) -> None:
        """A start plan's writes (settle's; a first start's inside the lease's transaction): its
        events, the rows it gives up, where every current partition starts, the job marked started."""
        job = self.job
        for event in plan.events:
            cursor.execute(INSERT_SKIPPED, (job, event.topic, event.partition, event.stored, event.resume,
                                            event.kind, event.why[:REASON_CHARS], epoch))
        cursor.executemany(GIVE_UP, [(GIVEN_UP, job, *tp) for tp in sorted(plan.give_up)])
        cursor.executemany(SETTLE_OFFSETS, [(job, *tp, o, plan.topic_ids[tp.topic], plan.seen.get(tp, o), o)
                                            for tp, o in sorted(plan.offsets.items())])
        cursor.execute(MARK_STARTED, (job,))

    def rows(self, rows) -> dict[TopicPartition, Row]:
        """SELECT_OFFSETS rows of the topics the job reads, as the start planner's Rows."""
        return {TopicPartition(t, int(p)): as_row(int(o), topic_id, seen) for t, p, o, topic_id, seen in rows
                if t in self.topics}
