"""make report's picture (errorcount/tools/report.py draw): a value seen in one minute only (one
commit, one reject) is still drawn, read back from the PNG's pixels."""

import io
from datetime import datetime

import matplotlib.image
from matplotlib import dates

from errorcount.tools.report import Series, draw, plotted

REJECTS, COMMITS = (0x34, 0x49, 0x5E), (0x29, 0x80, 0xB9)  # the colours draw() gives the two lines


def pixels_of(png: bytes, colour: tuple[int, int, int]) -> int:
    """Pixels of about `colour` in the middle fifth of the picture's width (the legends, which
    draw each line's sample, sit at its left and right)."""
    image = matplotlib.image.imread(io.BytesIO(png), format="png")
    width = image.shape[1]
    rgb = (image[:, 2 * width // 5:3 * width // 5, :3] * 255).round().astype(int)
    return int((abs(rgb - colour).max(axis=2) <= 8).sum())


def test_a_single_reject_and_a_single_commit_are_visible():
    errors = {datetime(2036, 1, 1, 12, m): 3 for m in range(5)}
    middle = datetime(2036, 1, 1, 12, 2)
    lone = draw(Series(errors, {middle: 2}, {middle: 1}), "one of each")
    assert pixels_of(lone, REJECTS) > 5 and pixels_of(lone, COMMITS) > 5
    neither = draw(Series(errors, {}, {}), "none")
    assert pixels_of(neither, REJECTS) == 0 and pixels_of(neither, COMMITS) == 0


def inside(figure) -> list[str]:
    """What of the figure is not in view: each line point outside its axis's limits (or on an edge,
    where half its marker is cut), each line without a marker, each axis title outside the picture."""
    figure.canvas.draw()
    renderer, page = figure.canvas.get_renderer(), figure.bbox
    out = []
    for axis in figure.axes:
        (x0, x1), (y0, y1) = axis.get_xlim(), axis.get_ylim()
        for line in axis.get_lines():
            if line.get_linestyle() == "--":  # the completeness line spans the axis by design
                continue
            if line.get_marker() in (None, "None", ""):
                out.append(f"{line.get_label()}: no marker")
            for x, y in zip(dates.date2num(line.get_xdata()), line.get_ydata(), strict=True):
                if not (x0 < x < x1 and y0 < y < y1):
                    out.append(f"{line.get_label()}: ({x}, {y}) outside {axis.get_xlim()} x {axis.get_ylim()}")
        for label in (axis.xaxis.label, axis.yaxis.label):
            box = label.get_window_extent(renderer)
            if label.get_text() and not (box.x0 >= 0 and box.y0 >= 0 and box.x1 <= page.x1 and box.y1 <= page.y1):
                out.append(f"axis title {label.get_text()!r} at {box} outside the picture {page}")
    return out


def test_a_first_catch_ups_one_commit_after_its_minutes_is_in_view_with_every_title():
    """make report after a first catch-up: the lines' minutes lie in the past, the one commit (and its
    rejects) in the minute it ran, after all of them; the ratio and a dimension with one minute each."""
    errors = {datetime(2036, 1, 1, 12, m): 3 + m for m in range(30)}
    commit = datetime(2036, 1, 1, 12, 44)
    series = Series(errors, {commit: 2448}, {commit: 1}, "level", {"ERROR": {datetime(2036, 1, 1, 12, 5): 7}},
                    lines={datetime(2036, 1, 1, 12, 5): 70}, complete_before=datetime(2036, 1, 1, 12, 30))
    assert inside(plotted(series, "a first catch-up")) == []
    assert inside(plotted(Series({}, {commit: 1}, {commit: 1}), "rejects and a commit alone")) == []
