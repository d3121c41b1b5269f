"""`report.html`: the run's report as charts that work offline (inline SVG, no script).

Charts: occurrences by published date, rulings and translations by language,
the most repeated rulings, rejects by reason, and attributed cards (by how
they were found, and the cards with the most dumps). Every text is escaped.
"""

from __future__ import annotations

from html import escape
from typing import Any

import polars as pl

_BAR_HEIGHT = 18
_LABEL_WIDTH = 320
_CHART_WIDTH = 760
_STYLE = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:60em;color:#222}"
    "h2{margin-top:2em;font-size:1.1em}svg text{font-size:12px}.empty{color:#777}"
    "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid #ddd;"
    "text-align:left}"
)


def bar_chart_svg(labels: list[str], values: list[int | float], title: str) -> str:
    """A horizontal bar chart as an inline `<svg>` (one bar per label, value at its end).

    Args:
        labels: bar labels (cut to 60 characters). values: the bars' values (>= 0).
        title: the chart's accessible title.
    """
    if not labels:
        return f'<p class="empty">{escape(title)}: none in this run.</p>'
    top = max(max(values), 1)
    scale = (_CHART_WIDTH - _LABEL_WIDTH - 60) / top
    height = _BAR_HEIGHT * len(labels) + 10
    bars = []
    for i, (label, value) in enumerate(zip(labels, values, strict=True)):
        y = 5 + i * _BAR_HEIGHT
        cut = label if len(label) <= 60 else label[:59] + "…"
        width = max(1.0, value * scale)
        bars.append(
            f'<text x="{_LABEL_WIDTH - 6}" y="{y + 13}" text-anchor="end">{escape(cut)}</text>'
            f'<rect x="{_LABEL_WIDTH}" y="{y + 2}" width="{width:.1f}" height="{_BAR_HEIGHT - 4}"'
            f' fill="#4a78b5"><title>{escape(label)}: {value}</title></rect>'
            f'<text x="{_LABEL_WIDTH + width + 4:.1f}" y="{y + 13}">{value}</text>'
        )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" width="{_CHART_WIDTH}" '
        f'height="{height}" viewBox="0 0 {_CHART_WIDTH} {height}"><title>{escape(title)}</title>'
        + "".join(bars)
        + "</svg>"
    )


def _counts(
    frame: pl.DataFrame, column: str, limit: int | None = None
) -> tuple[list[str], list[int]]:
    counted = frame.group_by(column).len().sort(["len", column], descending=[True, False])
    counted = counted.head(limit) if limit else counted
    return [str(v) for v in counted[column].to_list()], counted["len"].to_list()


def build_report_html(run_manifest: dict[str, Any], tables: dict[str, pl.DataFrame]) -> str:
    """The whole `report.html` page for one run.

    Needs:
        run_manifest: run_id, rows, line_accounting (`manifest.build_manifest`).
        tables: the published tables (ruling_occurrences: published_on, language;
            rulings: text, dump_count; ruling_translations: language; rejects:
            reason; dumps: card_name, card_attribution).
    """
    occurrences = tables["ruling_occurrences"]
    by_date = occurrences.group_by("published_on").len().sort("published_on")
    languages = pl.concat([
        occurrences.select("language", kind=pl.lit("ruling")),
        tables["ruling_translations"].select("language", kind=pl.lit("translation")),
    ]).select(what=pl.col("kind") + " · " + pl.col("language"))  # fmt: skip
    repeated = tables["rulings"].sort(["dump_count", "text"], descending=[True, False]).head(10)
    dumps = tables["dumps"]
    cards = (
        dumps.filter(pl.col("card_name").is_not_null())
        if "card_name" in dumps.columns
        else dumps.clear()
    )
    how = (
        cards.select(how=pl.col("card_attribution")) if cards.height else pl.DataFrame({"how": []})
    )
    sections = [
        ("Occurrences by published date", bar_chart_svg(
            [str(d) for d in by_date["published_on"].to_list()], by_date["len"].to_list(),
            "occurrences by published date")),
        ("Rulings and translations by language", bar_chart_svg(
            *_counts(languages, "what"), "rulings and translations by language")),
        ("Most repeated rulings (dumps)", bar_chart_svg(
            repeated["text"].to_list(), repeated["dump_count"].to_list(), "most repeated rulings")),
        ("Rejects by reason", bar_chart_svg(
            *_counts(tables["rejects"], "reason"), "rejects by reason")),
        ("Attributed cards: how", bar_chart_svg(*_counts(how, "how"), "attributions by method")),
        ("Attributed cards: most dumps", bar_chart_svg(
            *_counts(cards, "card_name", 15), "cards with the most dumps")),
    ]  # fmt: skip
    rows = "".join(
        f"<tr><td>{escape(name)}</td><td>{count}</td></tr>"
        for name, count in run_manifest["rows"].items()
    )
    body = "".join(f"<h2>{escape(title)}</h2>{chart}" for title, chart in sections)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>ruling-dumps run {escape(run_manifest['run_id'])}</title>"
        f"<style>{_STYLE}</style></head><body>"
        f"<h1>ruling-dumps run {escape(run_manifest['run_id'])}</h1>"
        f"<table><tr><th>table</th><th>rows</th></tr>{rows}</table>{body}</body></html>\n"
    )
