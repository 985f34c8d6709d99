"""make report's picture (errorcount/tools/report.py draw): a value seen in one minute only (one
commit, one reject) is still drawn, read back from the PNG's pixels."""

import io
from datetime import datetime

import matplotlib.image

from errorcount.tools.report import Series, draw

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
