"""make report: errors per minute (and rejects, and the job's commits) over a time range, drawn
as a PNG and a self-contained HTML page (the PNG inlined, with the totals).

    python -m errorcount.tools.report [--since 2h] [--until 2036-01-01T12:00] [--by DIMENSION] [--out DIR]

--since/--until: ISO dates and times (python-dateutil) or spans back from now (`90s`, `30m`,
`2h`, `7d`). Minutes are the job's minute keys: UTC for zoned lines, as written otherwise; a
zoned --since/--until is converted to UTC. Reads the configured COUNTS_TABLE and JOB_NAME's
ledger with the job's own connection settings, like make counts. With lines counted (COUNT_LINES)
a panel draws the error ratio per minute, and where minutes stop being complete (counted_through
and LATENESS: docs/operations.md, "Complete minutes"). With GROUP_BY (or --by naming a dimension
counted earlier) a panel draws that dimension's TOP values per minute, the rest as one line
(errorcount/tools/breakdown.py).
"""

import argparse
import base64
import html
import io
import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import matplotlib
from dateutil import parser as dateparser

matplotlib.use("Agg")
from matplotlib import dates, pyplot  # noqa: E402  (after the backend is chosen)

from errorcount import store  # noqa: E402
from errorcount.errors import EXIT_CONFIG  # noqa: E402
from errorcount.tools import ROOT, breakdown  # noqa: E402
from errorcount.tools.counts import SELECT_COMPLETE_BEFORE, connect_as_job  # noqa: E402

SPAN = re.compile(r"(\d+)([smhd])")
UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
AXIS = "minute (UTC for zoned lines, as written otherwise)"
TOP = 6  # values drawn per dimension; the rest are one line


def moment(text: str, now: datetime) -> datetime:
    """A naive UTC datetime from an ISO date/time or a span back from `now` (naive UTC)."""
    span = SPAN.fullmatch(text.strip())
    if span:
        return now - timedelta(**{UNITS[span[2]]: int(span[1])})
    try:
        parsed = dateparser.isoparse(text)
    except ValueError:
        raise ValueError(f"{text!r} is neither an ISO date/time (2036-01-01T12:00) nor a span (30m, 2h, 7d)") from None
    return parsed.astimezone(UTC).replace(tzinfo=None) if parsed.tzinfo else parsed


SELECT_COUNTS_BETWEEN = ("SELECT log_time, log_count, line_count FROM `{table}` WHERE log_time BETWEEN %s AND %s "
                         "ORDER BY log_time")
# The ledger per UTC minute of commit (committed_at is written in the job's UTC session).
SELECT_LEDGER_MINUTES = ("SELECT TIMESTAMP(DATE_FORMAT(committed_at, '%%Y-%%m-%%d %%H:%%i:00')), SUM(batches) "
                         "FROM ingest_batches WHERE job = %s AND committed_at BETWEEN %s AND %s GROUP BY 1 ORDER BY 1")
# Rejects per minute of their Kafka timestamp (docs/operations.md, "Rejects beside the ratio")
SELECT_REJECTED_MINUTES = ("SELECT log_time, SUM(rejected) FROM rejected_minutes WHERE job = %s AND log_time BETWEEN %s AND %s "
                           "GROUP BY log_time ORDER BY log_time")
SELECT_LEDGER_TOPICS = ("SELECT topic, SUM(records) FROM ingest_batches WHERE job = %s AND committed_at BETWEEN %s AND %s "
                        "GROUP BY topic ORDER BY topic")


@dataclass
class Series:
    errors: dict[datetime, int]
    rejected: dict[datetime, int]
    batches: dict[datetime, int]
    dimension: str = ""  # with GROUP_BY: the dimension `by` breaks errors down by
    by: dict[str, dict[datetime, int]] | None = None
    topics: dict[str, int] | None = None  # records read per topic (the ledger's rows are per topic)
    lines: dict[datetime, int] | None = None  # COUNT_LINES: every line per minute
    complete_before: datetime | None = None  # minutes ending at or before it are complete


def read(conn, table: str, job: str, since: datetime, until: datetime, dimension: str = "") -> Series:
    with conn.cursor() as cursor:
        cursor.execute(store.with_table(SELECT_COUNTS_BETWEEN, table), (since, until))
        counted = cursor.fetchall()
        errors, lines = {t: int(n) for t, n, _l in counted}, {t: int(n) for t, _e, n in counted if n}
        cursor.execute(SELECT_COMPLETE_BEFORE, (table,))
        complete = cursor.fetchone()
        cursor.execute(SELECT_LEDGER_MINUTES, (job, since, until))
        batches = {t: int(b) for t, b in cursor.fetchall()}
        cursor.execute(SELECT_REJECTED_MINUTES, (job, since, until))
        rejected = {t: int(r) for t, r in cursor.fetchall()}
        cursor.execute(SELECT_LEDGER_TOPICS, (job, since, until))
        topics = {str(topic): int(n) for topic, n in cursor.fetchall()}
    by = breakdown.top(breakdown.read(conn, job, dimension, since, until), TOP) if dimension else None
    return Series(errors, rejected, batches, dimension, by, topics,
                  lines, complete[0] if complete else None)


def draw(series: Series, title: str) -> bytes:
    """The PNG of figure(series, title)."""
    figure = plotted(series, title)
    out = io.BytesIO()
    figure.savefig(out, format="png")
    pyplot.close(figure)
    return out.getvalue()


def plotted(series: Series, title: str):
    """The figure: errors per minute as bars, rejects and commits per minute as lines with markers (a
    minute alone, e.g. one commit, is a point a line alone would not draw); with a dimension, its
    top values per minute below. Every axis spans every minute drawn with a minute to spare each
    side and its values with room above, so a lone point at an end (the one commit of a first
    catch-up, after the minutes its lines are from) is inside it, marker and all; the layout is
    tightened so the rotated dates and the axis titles stay in the picture."""
    panels = 1 + bool(series.lines) + bool(series.by)
    figure, axes = pyplot.subplots(panels, 1, figsize=(12, 1 + 4 * panels), dpi=100, squeeze=False)
    axis = axes[0][0]
    if series.errors:
        axis.bar(list(series.errors), list(series.errors.values()), width=1 / 1440, color="#c0392b",
                 label=f"errors ({sum(series.errors.values())})")
    if series.rejected:
        axis.plot(list(series.rejected), list(series.rejected.values()), color="#34495e", zorder=3,
                  marker="o", markersize=3, label=f"rejected, by Kafka time ({sum(series.rejected.values())})")
    if series.batches:
        commits = axis.twinx()
        commits.plot(list(series.batches), list(series.batches.values()), color="#2980b9", linewidth=0.8,
                     marker="o", markersize=2, label=f"commits ({sum(series.batches.values())})")
        commits.set_ylabel("commits per minute")
        commits.set_ylim(0, headroom(series.batches.values()))
        commits.legend(loc="upper right")
    drawn = [*series.errors, *series.rejected, *series.batches]
    if drawn:
        axis.set_xlim(min(drawn) - timedelta(minutes=1), max(drawn) + timedelta(minutes=1))
        axis.set_ylim(0, headroom([*series.errors.values(), *series.rejected.values()]))
    axis.xaxis.set_major_formatter(dates.DateFormatter("%Y-%m-%d %H:%M"))
    axis.set_xlabel(AXIS)
    axis.set_ylabel("records per minute")
    axis.set_title(title)
    axis.legend(loc="upper left")
    if series.lines:
        draw_ratio(axes[1][0], series)
    if series.by:
        draw_top(axes[-1][0], series.dimension, series.by)
    figure.autofmt_xdate()
    figure.tight_layout()
    return figure


def headroom(values) -> float:
    """The top of an axis from 0 that shows `values` with a tenth to spare (markers included)."""
    return max(values, default=0) * 1.1 + 1


def draw_ratio(axis, series: Series) -> None:
    """ERROR lines over lines per minute, and the line where minutes stop being complete."""
    lines = series.lines or {}
    minutes = sorted(lines)
    axis.plot(minutes, [series.errors.get(m, 0) / lines[m] for m in minutes], color="#8e44ad", marker="o", markersize=2,
              linewidth=1, label=f"error ratio ({ratio_text(series)})")
    if series.complete_before is not None and minutes and series.complete_before < minutes[-1] + timedelta(minutes=1):
        axis.axvline(series.complete_before, color="#7f8c8d", linestyle="--",
                     label=f"complete before {series.complete_before:%Y-%m-%d %H:%M:%S}")
    axis.xaxis.set_major_formatter(dates.DateFormatter("%Y-%m-%d %H:%M"))
    axis.set_xlabel(AXIS)
    axis.set_ylabel("ERROR lines / lines")
    axis.set_ylim(bottom=0)
    axis.legend(loc="upper left", fontsize="small")


def ratio_text(series: Series) -> str:
    """The range's ERROR lines over its lines (of the minutes with lines)."""
    lines = series.lines or {}
    errors = sum(series.errors.get(m, 0) for m in lines)
    return f"{errors / sum(lines.values()):.4f}" if lines else "-"


def draw_top(axis, dimension: str, by: dict[str, dict[datetime, int]]) -> None:
    """One line per value (markers too: a value seen in one minute only still shows)."""
    for value, counts in by.items():
        minutes = sorted(counts)
        axis.plot(minutes, [counts[m] for m in minutes], marker="o", markersize=3, linewidth=1,
                  label=f"{value} ({sum(counts.values())})")
    axis.xaxis.set_major_formatter(dates.DateFormatter("%Y-%m-%d %H:%M"))
    axis.set_xlabel(AXIS)
    axis.set_ylabel(f"errors per minute by {dimension}")
    axis.set_ylim(bottom=0)
    axis.legend(loc="upper left", fontsize="small")


def page(png: bytes, series: Series, title: str) -> str:
    image = base64.b64encode(png).decode()
    totals = (f"errors {sum(series.errors.values())} in {len(series.errors)} minutes, rejected "
              f"{sum(series.rejected.values())}, commits {sum(series.batches.values())}")
    if series.lines:
        totals += f"; lines {sum(series.lines.values())}, error ratio {ratio_text(series)}"
    if series.topics:  # a commit writes a ledger row per topic it read: commits counts those rows
        totals += "; records read by topic: " + ", ".join(f"{topic} {n}" for topic, n in series.topics.items())
    if series.by:
        totals += f"; by {series.dimension}: " + ", ".join(f"{v} {sum(c.values())}" for v, c in series.by.items())
    return (f"<!doctype html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title></head><body>"
            f"<h1>{html.escape(title)}</h1><p>{html.escape(totals)}</p><p>{html.escape(AXIS)}</p>"
            f"<img alt=\"errors per minute\" src=\"data:image/png;base64,{image}\"></body></html>\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m errorcount.tools.report", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--since", default="24h")
    parser.add_argument("--until", default="0s")
    parser.add_argument("--by", default="", help="a GROUP_BY dimension (default: GROUP_BY's first, if set)")
    parser.add_argument("--out", type=Path, default=ROOT / ".local" / "report")
    args = parser.parse_args(argv)
    now = datetime.now(UTC).replace(tzinfo=None)
    try:
        since, until = moment(args.since, now), moment(args.until, now)
    except ValueError as error:
        print(f"report: {error}", file=sys.stderr)
        return EXIT_CONFIG
    connected = connect_as_job("the counts")
    if isinstance(connected, int):
        return connected
    cfg, conn = connected
    series = read(conn, cfg.counts_table, cfg.job_name, since, until, breakdown.dimension_of(args.by, cfg.group_by))
    conn.close()
    title = f"{cfg.counts_table}, job {cfg.job_name}: {since:%Y-%m-%d %H:%M} to {until:%Y-%m-%d %H:%M}"
    png = draw(series, title)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.png").write_bytes(png)
    (args.out / "report.html").write_text(page(png, series, title), encoding="utf-8")
    print(f"wrote {args.out / 'report.png'} and {args.out / 'report.html'}: {sum(series.errors.values())} errors "
          f"in {len(series.errors)} minutes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
