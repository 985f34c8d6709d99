"""make report from known rows in the real database: the PNG and the HTML page are written, the
plotted totals are the rows' totals, and --since/--until read ISO times and spans."""

import base64
import uuid
from datetime import datetime, timedelta

import pytest

from errorcount.tools import report
from tests.harness.admin_db import apply_sql_file, drop_counts_table
from tests.support import query, seed_counts_and_ledger

pytestmark = pytest.mark.mysql


def test_the_report_draws_the_counts_rejects_and_commits_of_a_range(admin, tmp_path, monkeypatch):
    suffix = uuid.uuid4().hex[:8]
    table, job = f"report_{suffix}", f"report-{suffix}"
    apply_sql_file(admin, "counts_table.sql", COUNTS_TABLE=table)
    base = datetime(2036, 4, 1, 10, 0)
    counts = {base + timedelta(minutes=m): (m * 7) % 11 + 1 for m in range(120)}
    ledger = [(base + timedelta(minutes=m, seconds=s), m % 3, "u" if m % 8 == 0 else "t")
              for m in range(0, 120, 2) for s in (5, 35)]
    try:
        seed_counts_and_ledger(admin, table, counts, job, ledger)
        query(admin, f"UPDATE `{table}` SET line_count = 5 * log_count + 3 WHERE MOD(MINUTE(log_time), 4) <> 0")  # some without
        monkeypatch.setenv("COUNTS_TABLE", table)
        monkeypatch.setenv("JOB_NAME", job)
        since, until = base + timedelta(minutes=30), base + timedelta(minutes=89)
        assert report.main(["--since", f"{since:%Y-%m-%dT%H:%M}+02:00", "--until", f"{until:%Y-%m-%dT%H:%M}Z",
                            "--out", str(tmp_path)]) == 0
    finally:
        drop_counts_table(admin, table)
        query(admin, "DELETE FROM ingest_batches WHERE job = %s", (job,))
        query(admin, "DELETE FROM rejected_minutes WHERE job = %s", (job,))
    png = (tmp_path / "report.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert base64.b64encode(png).decode() in page  # self-contained
    start = since - timedelta(hours=2)  # --since was written in +02:00
    errors = sum(n for t, n in counts.items() if start <= t <= until)
    minutes = sum(1 for t in counts if start <= t <= until)
    rejected = sum(r for t, r, _ in ledger if start <= t <= until)
    commits = sum(1 for t, _, _ in ledger if start <= t <= until)
    read = {topic: 10 * sum(1 for t, _, name in ledger if name == topic and start <= t <= until) for topic in ("t", "u")}
    with_lines = {t: 5 * n + 3 for t, n in counts.items() if start <= t <= until and t.minute % 4}
    ratio = sum(counts[t] for t in with_lines) / sum(with_lines.values())
    assert (f"errors {errors} in {minutes} minutes, rejected {rejected}, commits {commits}; "
            f"lines {sum(with_lines.values())}, error ratio {ratio:.4f}; "
            f"records read by topic: t {read['t']}, u {read['u']}") in page
    assert "minute (UTC for zoned lines, as written otherwise)" in page


def test_since_and_until_read_iso_times_and_spans():
    now = datetime(2036, 1, 1, 12, 0)
    assert report.moment("2h", now) == datetime(2036, 1, 1, 10, 0)
    assert report.moment("30m", now) == datetime(2036, 1, 1, 11, 30)
    assert report.moment("7d", now) == datetime(2035, 12, 25, 12, 0)
    assert report.moment("2036-01-01T09:15", now) == datetime(2036, 1, 1, 9, 15)
    assert report.moment("2036-01-01T09:15-05:00", now) == datetime(2036, 1, 1, 14, 15)
    with pytest.raises(ValueError, match="neither an ISO date/time"):
        report.moment("yesterday", now)
