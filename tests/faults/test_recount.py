"""A recount interrupted, on one job (a driver start costs ~20 s): the SQL server SIGKILLed and the
live job killed while a recount runs (it takes its lock again); then, the job stopped, the recount's own spark-submit
SIGKILLed inside a chunk's swap (nothing of that chunk is swapped, the chunks before it are, each
exact) and run again through `python -m errorcount recount` (the same numbers); the job restarted
counts on top; and a recount whose topic is deleted and created again between its plan and its
read refuses (fenced) and changes nothing. Expectations are plain-Python counts of the lines written
(tests/harness/recount.py)."""

import sys
import time
from datetime import datetime, timedelta

import pytest

from errorcount.errors import FencedError
from errorcount.offsets import minute_text
from errorcount.recount.run import Recount
from errorcount.store.recount import lock_name
from errorcount.tools import kafka_admin
from tests.harness.recount import NEW, Lines, counted_then_rules_changed, in_range, recent_range, recount_config
from tests.support import ROOT, catch_up, error_log, kill_sql_server, launch, query, series_counts, series_totals, service, unique

SIGKILLED = 128 + 9
pytestmark = pytest.mark.mysql
NEW_LEVELS = {"ERROR", "FATAL"}


def recount_driver(job: str, topic: str, span, command: list[str], **env: str):
    """A recount under spark-submit, as an operator starts it (`command`, in the checkout)."""
    return launch(job, topic, env={**NEW, "FROM": minute_text(span.first), "TO": minute_text(span.end), **env},
                  command=command)


def minute_key_of(base: datetime, minutes: int) -> str:
    return (base + timedelta(minutes=minutes)).strftime("%Y-%m-%d %H:%M:00")


def test_a_recount_rides_out_crashes_of_the_sql_server_the_job_and_itself(clean_error_log, make_topic, start_driver,
                                                                          spark):
    admin = clean_error_log
    topic, job = make_topic(2), unique("recount")
    base, span = recent_range()
    lines = Lines(topic, base)
    live = counted_then_rules_changed(admin, job, topic, start_driver, lines)

    # 1. After the recount's read, the live job commits more of the range and is killed, and the SQL
    # server is killed under the recount's connection and started again.
    recount = Recount(recount_config(job, topic, **NEW, RECOUNT_CHUNK_MINUTES="5"), spark, print_out=lambda text: None)
    read = recount.counter.aggregate

    def read_then_the_world_breaks(spans):
        grouped = read(spans)
        if not lines.written[400:]:
            grouped.count()
            lines.write(200, seed=2)
            catch_up(admin, job, topic, live)
            live.kill()
            kill_sql_server()
            service("db.sh", "start")
        return grouped
    recount.counter.aggregate = read_then_the_world_breaks
    swap, lock_free = recount.swap, []

    def swap_noting_the_lock(*args):
        lock_free.append(query(admin, "SELECT IS_FREE_LOCK(%s)", (lock_name(job),))[0][0])
        return swap(*args)
    recount.swap = swap_noting_the_lock
    assert recount.run(span, False, int(time.time()) // 60) == 0
    assert lock_free == [0, 0]  # the server's restart dropped the recount's lock: it took it again
    assert in_range(error_log(admin), span, base) == in_range(lines.errors(NEW_LEVELS), span, base)

    # 2. The job stopped (more lines wait in Kafka, not counted), the range's counts made wrong by
    # hand (as other rules would have left them, so that each chunk shows whether it was swapped):
    # the recount SIGKILLed before its second chunk's COMMIT, then run again through the CLI.
    counted = len(lines.written)
    lines.write(100, seed=3)
    query(admin, "UPDATE error_log SET log_count = log_count + 1000 WHERE log_time >= %s AND log_time < %s",
          (minute_key_of(base, 0), minute_key_of(base, 10)))
    counted_before = error_log(admin)
    ledger = query(admin, "SELECT COUNT(*) FROM recounts WHERE job = %s", (job,))[0][0]
    killed = recount_driver(job, topic, span, [str(ROOT / "scripts" / "run.sh"), "recount"],
                            RECOUNT_CHUNK_MINUTES="4", ERRORCOUNT_FAULT="before_commit@2")
    assert killed.wait(300) == SIGKILLED, killed.log()[-3000:]
    # The chunks: [0, 4), [4, 8), [8, 10) minutes into the range: the first swapped, the others untouched.
    exact = lines.errors(NEW_LEVELS, slice(0, counted))
    chunk_one = {m for m in counted_before if minute_key_of(base, 0) <= m < minute_key_of(base, 4)}
    now = error_log(admin)
    assert chunk_one and {m: now[m] for m in chunk_one} == {m: exact[m] for m in chunk_one}
    assert {m: n for m, n in now.items() if m not in chunk_one} == {m: n for m, n in counted_before.items()
                                                                    if m not in chunk_one}
    assert query(admin, "SELECT COUNT(*) FROM recounts WHERE job = %s", (job,))[0][0] == ledger + 1

    rerun = recount_driver(job, topic, span, [sys.executable, "-m", "errorcount", "recount"], RECOUNT_CHUNK_MINUTES="4")
    assert rerun.wait(300) == 0, rerun.log()[-3000:]
    assert "minutes change" in rerun.log()
    assert in_range(error_log(admin), span, base) == in_range(exact, span, base)
    assert in_range(error_log(admin), span, base, inside=False) == in_range(counted_before, span, base, inside=False)
    assert query(admin, "SELECT COUNT(*) FROM recounts WHERE job = %s", (job,))[0][0] == ledger + 1 + 3

    # 3. The job again: it counts what waited, on top of the recounted minutes.
    again = start_driver(job, topic, env=NEW)
    catch_up(admin, job, topic, again)
    assert in_range(error_log(admin), span, base) == in_range(lines.errors(NEW_LEVELS), span, base)
    assert +in_range(series_counts(admin, job, "level"), span, base) == in_range(lines.series(NEW_LEVELS, True), span, base)
    assert in_range(series_totals(admin, job), span, base) == in_range(error_log(admin), span, base)

    # 4. The job stopped; the topic deleted and created again (the same name, more records than the
    # job stored offsets for) between the recount's plan and its read: the read gets the new topic's
    # records at the planned offsets, and the recount must see it by the topic's ID and swap nothing.
    assert again.stop() == 0
    counts_before, ledger_before = error_log(admin), query(admin, "SELECT COUNT(*) FROM recounts WHERE job = %s", (job,))
    recreated = Recount(recount_config(job, topic, **NEW), spark, print_out=lambda text: None)
    planned_read = recreated.counter.aggregate

    def recreated_then_read(spans):
        kafka_admin.recreate_topic(topic, 2)
        Lines(topic, base).write(len(lines.written) + 100, seed=4)
        return planned_read(spans)
    recreated.counter.aggregate = recreated_then_read
    with pytest.raises(FencedError, match="topic IDs changed"):
        recreated.run(span, False, int(time.time()) // 60)
    assert error_log(admin) == counts_before
    assert query(admin, "SELECT COUNT(*) FROM recounts WHERE job = %s", (job,)) == ledger_before
