"""What a recount changes, minute by minute: DRY_RUN's table and the totals its ledger row keeps
(before and after). Pure: both sides are {epoch minute: (ERROR lines, lines)} of the range."""

from collections.abc import Mapping
from dataclasses import dataclass, field

from errorcount.offsets import minute_text
from errorcount.recount.plan import Range

Counts = Mapping[int, tuple[int, int]]  # epoch minute: (log_count, line_count)


@dataclass(frozen=True)
class Figures:
    """What a recount counted: (ERROR lines, lines) per minute, and per (minute, series) with
    GROUP_BY; rejects per (topic, minute of their Kafka timestamp), as rejected_minutes keeps them."""

    minutes: dict[int, tuple[int, int]]
    series: dict[tuple[int, str], tuple[int, int]]
    rejects: dict[tuple[str, int], int] = field(default_factory=dict)


@dataclass(frozen=True)
class Change:
    minute: int
    before: tuple[int, int]
    after: tuple[int, int]

    @property
    def delta(self) -> tuple[int, int]:
        return self.after[0] - self.before[0], self.after[1] - self.before[1]


def changes(span: Range, before: Counts, after: Counts) -> list[Change]:
    """Every minute of the range that either side has, in order; a minute one side lacks is (0, 0)
    there. Minutes outside the range are not the recount's: ValueError if a side has one."""
    outside = sorted(m for m in (*before, *after) if not span.first <= m < span.end)
    if outside:
        raise ValueError(f"minute {minute_text(outside[0])} is outside the range {minute_text(span.first)} to "
                         f"{minute_text(span.end)}")
    return [Change(m, before.get(m, (0, 0)), after.get(m, (0, 0))) for m in sorted(set(before) | set(after))]


def totals(found: list[Change]) -> tuple[tuple[int, int], tuple[int, int]]:
    """(ERROR lines, lines) over the range, before and after."""
    return ((sum(c.before[0] for c in found), sum(c.before[1] for c in found)),
            (sum(c.after[0] for c in found), sum(c.after[1] for c in found)))


def changed(found: list[Change]) -> int:
    """How many minutes of the range the recount changes."""
    return sum(1 for c in found if c.before != c.after)


def table(found: list[Change], only_changed: bool = True, rejects: tuple[int, int] | None = None) -> str:
    """DRY_RUN's text: one line per minute (those that change, unless `only_changed` is False) and
    the totals, as an operator reads them before swapping a week; `rejects`: the range's rejects by
    their Kafka minute (rejected_minutes) now and recounted."""
    lines = [f"{'minute':<16}  {'errors now':>11}  {'recounted':>11}  {'diff':>9}  {'lines now':>11}  "
             f"{'recounted':>11}  {'diff':>9}"]
    for c in found:
        if only_changed and c.before == c.after:
            continue
        lines.append(f"{minute_text(c.minute):<16}  {c.before[0]:>11}  {c.after[0]:>11}  {c.delta[0]:>+9}  "
                     f"{c.before[1]:>11}  {c.after[1]:>11}  {c.delta[1]:>+9}")
    (errors_before, lines_before), (errors_after, lines_after) = totals(found)
    lines.append(f"{'total':<16}  {errors_before:>11}  {errors_after:>11}  {errors_after - errors_before:>+9}  "
                 f"{lines_before:>11}  {lines_after:>11}  {lines_after - lines_before:>+9}")
    if rejects is not None:
        lines.append(f"{'rejects':<16}  {rejects[0]:>11}  {rejects[1]:>11}  {rejects[1] - rejects[0]:>+9}  "
                     "(by the minute of their Kafka timestamp)")
    lines.append(f"{changed(found)} of {len(found)} minutes change")
    return "\n".join(lines)
