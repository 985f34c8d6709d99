"""counted_through's rows (errorcount/counted_through.py): one per topic the job reads and one for
the job as a whole (topic ''), written inside a batch's transaction or a heartbeat's, never
lowered; complete_before is through_at less LATENESS. Times are UTC text: the job's session is UTC."""

from errorcount.counted_through import Through
from errorcount.offsets import utc_text

UPSERT_THROUGH = ("INSERT INTO counted_through (job, topic, through_at, complete_before) VALUES (%s, %s, %s, %s) AS new "
                  "ON DUPLICATE KEY UPDATE through_at = GREATEST(counted_through.through_at, new.through_at), "
                  "complete_before = GREATEST(counted_through.complete_before, new.complete_before), "
                  "updated_at = CURRENT_TIMESTAMP(3)")
SELECT_THROUGH = "SELECT topic, UNIX_TIMESTAMP(through_at) FROM counted_through WHERE job = %s"


def write(cursor, job: str, lateness_s: int, marks: Through) -> None:
    """`marks` of `job`, per topic and the job's; a minute ending `lateness_s` before a mark is complete."""
    rows = sorted(marks.topics.items()) + ([("", marks.job)] if marks.job is not None else [])
    if rows:
        cursor.executemany(UPSERT_THROUGH, [(job, topic, utc_text(at), utc_text(at - lateness_s * 1000))
                                            for topic, at in rows])


def read(cursor, job: str) -> tuple[dict[str, int], int | None]:
    """The stored marks of `job` (epoch ms): per topic, and the job's."""
    cursor.execute(SELECT_THROUGH, (job,))
    found = {str(topic): round(float(at) * 1000) for topic, at in cursor.fetchall()}
    return {t: at for t, at in found.items() if t}, found.get("")
