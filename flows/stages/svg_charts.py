"""Horizontal bar charts as inline SVG whose labels fit whole in the chart (no script).

A browser lays the text out, not this code: a label's width is estimated from
its characters at least as wide as DejaVu Sans draws them (the widest common
sans-serif, and the one a bare Debian's Chromium uses; Arial, Helvetica and
Liberation Sans are narrower). Labels are left-aligned in their column,
wrapped onto at most `max_lines` lines, the last one cut with "…" when the
text is longer; the row's `<title>` holds the whole label and value (a
browser shows it on hover). Every text is escaped.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from html import escape
from itertools import accumulate

#: The charts' text size and line height (px), and their width (viewBox units = px).
FONT_SIZE = 12
LINE_HEIGHT = 15
CHART_WIDTH = 860
#: Space between the label column and the bars, and before a bar's value (px).
_GAP = 10
#: Where labels start (px): a glyph may reach left of its origin (`Y`, `j` in DejaVu Sans).
_LABEL_X = 3
_BAR_COLOR = "#4a78b5"

#: Width of ASCII characters in em, at least DejaVu Sans' (its `i` is 0.28, `w` 0.82, `m` 0.97).
_NARROW = frozenset(" .,:;'!|ijlftrI()[]-/")
_BROAD = frozenset("#+=<>~?^")
_WIDE = frozenset("mwMW@%&")
#: Characters wider than any rule below gives them (per mille signs, Roman numerals).
_WIDEST = frozenset("‰‱ↀↁↂↇↈ")


@cache  # a pure function of one character: labels repeat few of them
def _char_em(char: str) -> float:
    """The width of `char` in em, rounded up (combining marks take none).

    ASCII by shape; an accented letter as its letter and 0.1 more (`é` as
    `e`); other characters by kind (CJK 1.05, capitals 1.2, others 1.05:
    Cyrillic `щ` is 0.94, `œ` 1.02, `Ж` 1.08), or as their compatibility
    decomposition when wider (`½` as `1⁄2`, `™` as `TM`).
    """
    if unicodedata.combining(char):
        return 0.0
    if char.isascii():
        return _ascii_em(char)
    if char in _WIDEST:
        return 1.8
    parts = unicodedata.normalize("NFKD", char)
    if (
        len(parts) > 1
        and parts[0].isalnum()
        and all(unicodedata.combining(part) for part in parts[1:])
    ):
        return _char_em(parts[0]) + 0.1
    by_kind = 1.2 if unicodedata.category(char) in ("Lu", "Lt") else 1.05
    if parts != char:
        return max(by_kind, sum(_char_em(part) for part in parts))
    return by_kind


def _ascii_em(char: str) -> float:
    if char in _NARROW:
        return 0.45
    if char in _WIDE:
        return 1.0
    if char in _BROAD:
        return 0.85
    return 0.82 if char.isupper() else 0.66


def text_width(text: str, size: int = FONT_SIZE) -> float:
    """The width `text` takes at `size` px, in px: never less than a browser draws it."""
    return size * sum(_char_em(char) for char in text)


def wrap_label(text: str, width: float, max_lines: int = 1) -> list[str]:
    """`text` on at most `max_lines` lines each at most `width` px wide.

    Lines break between words (a word wider than a line is cut); line ends
    and runs of spaces are one space. When the text does not fit, the last
    line ends with "…". An empty text is one empty line.
    """
    words = " ".join(text.split()).split(" ")
    lines: list[str] = []
    current, ems = "", 0.0  # current's width in em, added left to right as `text_width` does
    for word in words:
        candidate = f"{current} {word}" if current else word
        candidate_ems = _ems(f" {word}", ems) if current else _ems(word, 0.0)
        if FONT_SIZE * candidate_ems <= width:
            current, ems = candidate, candidate_ems
            continue
        if current:
            lines.append(current)
        current, ems = word, _ems(word, 0.0)
        while FONT_SIZE * ems > width:  # a word wider than a line: cut it
            head = _fitting_prefix(current, width)
            lines.append(head)
            current = current[len(head) :]
            ems = _ems(current, 0.0)
    lines.append(current)
    if len(lines) <= max_lines:
        return lines
    return [*lines[: max_lines - 1], _ellipsized(lines[max_lines - 1], width)]


def _ems(text: str, start: float) -> float:
    """`start` plus the widths of `text`'s characters in em, added one by one (as `sum`)."""
    for char in text:
        start += _char_em(char)
    return start


def _fitting_prefix(text: str, width: float) -> str:
    """The longest prefix of `text` (at least one character) at most `width` px wide."""
    widths = accumulate((_char_em(char) for char in text), initial=0)  # each prefix's, as sum
    fitting = sum(1 for ems in widths if FONT_SIZE * ems <= width) - 1  # prefixes grow
    return text[: max(1, fitting)]


def _ellipsized(line: str, width: float) -> str:
    """`line` + "…", cut (at a word end when one is near) to fit `width` px."""
    head = _fitting_prefix(line, width - text_width("…")).rstrip()
    cut = head.rfind(" ")
    if cut > len(head) * 2 // 3:
        head = head[:cut]
    return head.rstrip(" ,;:.") + "…"


def bar_chart_svg(
    labels: list[str],
    values: list[int],
    title: str,
    *,
    label_width: float = 300,
    max_lines: int = 1,
) -> str:
    """A horizontal bar chart as an inline `<svg>`: one row per label, its value after its bar.

    Args:
        labels: the rows' labels, whole (wrapped and cut to fit; whole in each row's title).
        values: the bars' values (>= 0), as many as labels.
        title: the chart's accessible title (also the text shown when there is no row).
        label_width: the label column's widest width (px); narrower when the labels are.
        max_lines: lines a label may take.

    Returns:
        `<svg class="chart">` with a `<g class="row">` per label (its `<title>`
        "label: value", `text.label`, `rect`, `text.value`); a `<p class="empty">`
        when there is no label.
    """
    if not labels:
        return f'<p class="empty">{escape(title)}: none in this run.</p>'
    wrapped = [wrap_label(label, label_width, max_lines) for label in labels]
    column = max(text_width(line) for lines in wrapped for line in lines)
    value_room = max(text_width(str(v)) for v in values) + 4
    bar_x = _LABEL_X + column + _GAP
    scale = (CHART_WIDTH - bar_x - _GAP - value_room) / max(*values, 1)
    rows, y = [], 4.0
    for label, lines, value in zip(labels, wrapped, values, strict=True):
        height = max(len(lines) * LINE_HEIGHT, 18) + 4
        rows.append(_row(label, lines, value, y, height, bar_x, max(1.0, value * scale)))
        y += height
    total = round(y + 4)
    return (
        f'<svg class="chart" xmlns="http://www.w3.org/2000/svg" role="img" width="{CHART_WIDTH}"'
        f' height="{total}" viewBox="0 0 {CHART_WIDTH} {total}" font-family="sans-serif"'
        f' font-size="{FONT_SIZE}"><title>{escape(title)}</title>' + "".join(rows) + "</svg>"
    )


def _row(
    label: str, lines: list[str], value: int, y: float, height: float, bar_x: float, bar: float
) -> str:
    """One chart row: its title, label lines (first baseline near the top), bar, value."""
    first = y + (height - len(lines) * LINE_HEIGHT) / 2 + FONT_SIZE - 1
    spans = "".join(
        f'<tspan x="{_LABEL_X}" y="{first + i * LINE_HEIGHT:.1f}">{escape(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    middle = y + height / 2
    return (
        f'<g class="row"><title>{escape(label)}: {value}</title>'
        f'<text class="label">{spans}</text>'
        f'<rect x="{bar_x:.1f}" y="{middle - 7:.1f}" width="{bar:.1f}" height="14"'
        f' fill="{_BAR_COLOR}"/>'
        f'<text class="value" x="{bar_x + bar + 4:.1f}" y="{middle + 4:.1f}">{value}</text></g>'
    )
