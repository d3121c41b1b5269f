"""report_html and svg_charts: labels wrapped and cut to fit, whole in each row's title; the
page's sections from the manifest (the browser test lays the page out: test_report_browser)."""

from __future__ import annotations

import re

import polars as pl
import pytest

from flows.stages.report_html import build_report_html, dump_checks_section, heading_section
from flows.stages.svg_charts import bar_chart_svg, text_width, wrap_label

RULING = "Energy counters are a kind of counter that a player may have."


@pytest.mark.parametrize(
    ("text", "width", "max_lines", "lines"),
    [
        (RULING, 200, 2, ["Energy counters are a kind", "of counter that a player…"]),
        (RULING, 200, 1, ["Energy counters are a…"]),
        (RULING, 1000, 1, [RULING]),
        ("Supercalifragilisticexpialidocious", 100, 3, ["Supercalifragi", "listicexpialid", "ocious"]),
        ("a  b\nc", 100, 1, ["a b c"]),
        ("", 100, 2, [""]),
    ],
    ids=["two-lines-cut", "one-line-cut", "fits", "long-word", "spaces", "empty"],
)  # fmt: skip
def test_wrap_label(text: str, width: float, max_lines: int, lines: list[str]) -> None:
    assert wrap_label(text, width, max_lines) == lines
    assert all(text_width(line) <= width for line in lines)


@pytest.mark.parametrize(
    ("text", "width"),
    [("iiii", 21.6), ("mmmm", 48.0), ("Энергия", 90.0), ("漢字", 25.2), ("e\u0301", 7.92),
     ("\u00e9", 9.12)],
    ids=["narrow", "wide", "cyrillic", "cjk", "combining", "precomposed"],
)  # fmt: skip
def test_text_width_is_at_least_dejavu_sans(text: str, width: float) -> None:
    """DejaVu Sans at 12 px: i 3.3, m 11.7, Э 8.2, я 7.6, a CJK glyph 12 (the estimate is above;
    test_report_browser checks it against what Chromium draws)."""
    assert text_width(text) == pytest.approx(width)


def test_a_bar_chart_row_holds_its_whole_label_in_its_title_and_escapes_it() -> None:
    label = "<b>" + "x " * 200 + "</b>"
    svg = bar_chart_svg([label, "short"], [3, 1], "t & co", label_width=300, max_lines=2)
    assert svg.count('<g class="row">') == 2
    assert f"<title>&lt;b&gt;{'x ' * 200}&lt;/b&gt;: 3</title>" in svg
    assert "<title>short: 1</title>" in svg
    assert "<title>t &amp; co</title>" in svg
    assert "<b>" not in svg
    assert len(re.findall(r"<tspan", svg)) == 3  # the long label on 2 lines, the short on 1
    assert "…</tspan>" in svg


def test_no_row_is_a_sentence() -> None:
    assert bar_chart_svg([], [], "rejects by reason") == (
        '<p class="empty">rejects by reason: none in this run.</p>'
    )


@pytest.mark.parametrize(
    ("checks", "html"),
    [
        (None, ""),
        ({}, ""),
        ({"not_a_count": "x"}, ""),
        ({"truncated": 2}, '<h2>Dump checks</h2><table><tr><th>check</th><th>dumps</th></tr>'
         '<tr><td>truncated</td><td class="n" data-count="dump_checks.truncated">2</td></tr>'
         "</table>"),
    ],
    ids=["absent", "empty", "no-count", "counts"],
)  # fmt: skip
def test_dump_checks_are_shown_only_when_the_manifest_counts_them(
    checks: object, html: str
) -> None:
    manifest = {"run_id": "r"} | ({} if checks is None else {"dump_checks": checks})
    assert dump_checks_section(manifest, {}) == html


def test_a_first_run_says_so_and_the_languages_count_rulings(
    seed_run: object, seed_tables: dict[str, pl.DataFrame]
) -> None:
    manifest = seed_run.result["manifest"]  # type: ignore[attr-defined]
    page = build_report_html(manifest, seed_tables)
    assert "The first snapshot of this output: every file is new." in page
    assert '<td class="n" data-count="since_previous.added">5</td>' in page
    assert "<title>rulings · en: 36</title>" in page  # not the 73 occurrences
    assert "<h1>Ruling dumps, 30 November 2026</h1>" in page
    assert "No catalog in this run" in page
    assert "<script" not in page


def test_the_heading_gives_the_run_its_date_and_inputs_even_unread_ones() -> None:
    """A file not read (unreadable, too large, a dangling link) has no size in the manifest."""
    manifest = {
        "run_id": "20261130T120000000000Z",
        "started_at": "2026-11-30T12:00:00+00:00",
        "finished_at": "2026-11-30T12:00:41+00:00",
        "inputs": [{"path": "a.txt", "sha256": "x", "bytes": 1500},
                   {"path": "b.txt", "sha256": None, "bytes": None}],
        "package_version": "0.1.0",
        "schema_version": "1.4.0",
    }  # fmt: skip
    assert heading_section(manifest, {}) == (
        '<header><h1>Ruling dumps, 30 November 2026</h1><p class="meta">run '
        "<code>20261130T120000000000Z</code> · started 2026-11-30 12:00:00 UTC · finished "
        '2026-11-30 12:00:41 UTC · <span data-count="inputs">2</span> input files (1.5 kB) · '
        "package 0.1.0 · schema 1.4.0</p></header>"
    )
