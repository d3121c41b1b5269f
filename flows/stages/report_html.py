"""`report.html`: the page an analyst opens each morning, one offline file (inline SVG, no script).

From the top: the run and its date (and a warning when the state was
recovered), the key counts with their change since the previous snapshot,
what changed since then (files, rows per table, the work done), the line
accounting (kept by kind, rejected by reason), the charts (occurrences by
date, rulings and translations by language, the most repeated rulings), and
the cards (attribution coverage with a catalog). The page is a sequence of
sections (`SECTIONS`), each a function of the manifest and the tables that
gives its HTML, or "" when it has nothing to show: a section is one function
added there. Every count taken from the manifest is in an element whose
`data-count` names it (`rows.rulings`, `line_accounting.body`,
`since_previous.added`: a list's length), so a test can read the page as a
person sees it. Every text from the data is escaped.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from html import escape
from typing import Any

import polars as pl

from flows.stages.parse import LINE_KINDS
from flows.stages.svg_charts import bar_chart_svg

#: A section of the page: (manifest, tables) -> its HTML, "" when it shows nothing.
Section = Callable[[dict[str, Any], dict[str, pl.DataFrame]], str]

#: How many of the most repeated rulings, and of the cards with most dumps, are charted.
TOP_RULINGS = 10
TOP_CARDS = 15
#: Bars in the rejects chart at most: the kinds after the first ones share the last bar.
MAX_REJECT_KINDS = 25
#: Paths listed per kind of file change (the rest are counted).
_PATHS_SHOWN = 20

_STYLE = (
    "body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:58em;padding:0 1em;"
    "color:#222;line-height:1.4}"
    "h1{font-size:1.5em;margin:0 0 .2em}h2{margin:1.6em 0 .5em;font-size:1.15em;"
    "border-bottom:1px solid #ccd;padding-bottom:.2em}h3{font-size:1em;margin:1.2em 0 .3em}"
    ".meta{color:#555;margin:0}.empty,.note{color:#666}.warning{background:#fff3cd;"
    "border:1px solid #e0c36b;padding:.5em .8em}"
    ".tiles{display:flex;flex-wrap:wrap;gap:.6em;margin:1em 0}.tile{border:1px solid #ccd;"
    "border-radius:4px;padding:.4em .9em;min-width:7em}.tile b{display:block;font-size:1.5em}"
    ".tile span{color:#555;font-size:.85em}.up{color:#1a7f37}.down{color:#b42318}"
    "table{border-collapse:collapse;margin:.3em 0}td,th{padding:2px 10px 2px 0;"
    "border-bottom:1px solid #e4e4ea;text-align:left;vertical-align:top}"
    "td.n,th.n{text-align:right;padding-left:10px}.cols{display:flex;flex-wrap:wrap;gap:0 3em}"
    "svg.chart{display:block;max-width:100%;height:auto;margin:.3em 0}"
    "svg text{fill:#222}svg .value{fill:#444}"
    "details{margin:.3em 0}summary{cursor:pointer;color:#335}"
)


def build_report_html(run_manifest: dict[str, Any], tables: dict[str, pl.DataFrame]) -> str:
    """The whole `report.html` page for one run.

    Needs:
        run_manifest: as `manifest.describe_run` makes it (run_id, started_at,
            finished_at, inputs, rows, line_accounting, since_previous, work,
            ruling_ids, state_recovered); only run_id is required.
        tables: the published tables (dumps, ruling_occurrences, rulings,
            ruling_translations, rejects, ruling_cards).
    """
    run_id = escape(str(run_manifest["run_id"]))
    body = "".join(section(run_manifest, tables) for section in SECTIONS)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>ruling-dumps run {run_id}</title><style>{_STYLE}</style></head>"
        f"<body>{body}</body></html>\n"
    )


def heading_section(manifest: dict[str, Any], tables: dict[str, pl.DataFrame]) -> str:
    """The run and its date, its inputs and versions; a warning when the state was recovered."""
    started = _when(manifest.get("started_at"))
    inputs = manifest.get("inputs", [])
    facts = [f"run <code>{escape(str(manifest['run_id']))}</code>"]
    if started:
        facts.append(f"started {started:%Y-%m-%d %H:%M:%S} UTC")
    finished = _when(manifest.get("finished_at"))
    if finished:
        facts.append(f"finished {finished:%Y-%m-%d %H:%M:%S} UTC")
    if inputs:
        size = sum(int(i.get("bytes") or 0) for i in inputs)  # None: a file not read
        facts.append(f"{_count('inputs', len(inputs))} input files ({_size(size)})")
    for key in ("package_version", "schema_version"):
        if key in manifest:
            facts.append(f"{key.split('_')[0]} {escape(str(manifest[key]))}")
    title = f"Ruling dumps, {started.day} {started:%B %Y}" if started else "Ruling dumps"
    recovered = manifest.get("state_recovered")
    warning = (
        f'<p class="warning"><b>State recovered:</b> {escape(str(recovered))}</p>'
        if recovered
        else ""
    )
    return f'<header><h1>{title}</h1><p class="meta">{" · ".join(facts)}</p></header>{warning}'


#: The key counts at the top: (table, what a tile calls its rows).
_TILES = (
    ("dumps", "dumps"),
    ("rulings", "rulings"),
    ("ruling_occurrences", "occurrences"),
    ("ruling_translations", "translations"),
    ("rejects", "rejects"),
)


def tiles_section(manifest: dict[str, Any], tables: dict[str, pl.DataFrame]) -> str:
    """The key row counts, each with its change since the previous snapshot."""
    rows = manifest.get("rows", {})
    before = manifest.get("since_previous", {}).get("rows") or {}
    tiles = [
        f'<div class="tile">{_count(f"rows.{table}", rows[table], "b")}'
        f"<span>{name}{_change(rows[table], before.get(table))}</span></div>"
        for table, name in _TILES
        if table in rows
    ]
    return f'<div class="tiles">{"".join(tiles)}</div>' if tiles else ""


def changes_section(manifest: dict[str, Any], tables: dict[str, pl.DataFrame]) -> str:
    """Since the previous snapshot: files added, changed, removed; rows per table; work done."""
    changes = manifest.get("since_previous", {})
    previous = changes.get("previous_run_id")
    lead = (
        f"Compared with the previous snapshot, run <code>{escape(str(previous))}</code>."
        if previous
        else "The first snapshot of this output: every file is new."
    )
    files = [
        (kind, _count(f"since_previous.{kind}", len(changes.get(kind, [])), "td"))
        for kind in ("added", "changed", "removed")
    ]
    lists = "".join(_path_list(kind, changes.get(kind, [])) for kind in ("added", "changed"))
    lists += _path_list("removed", changes.get("removed", []))
    before = changes.get("rows") or {}
    rows = [
        (table, _count(f"rows.{table}", n, "td"), _previous(before.get(table)),
         f'<td class="n">{_change(n, before.get(table), bare=True)}</td>')
        for table, n in manifest.get("rows", {}).items()
    ]  # fmt: skip
    return (
        f"<h2>Since the previous snapshot</h2><p>{lead}</p>"
        f'<div class="cols"><div><h3>Files</h3>{_table(["change", "files"], files)}{lists}</div>'
        f"<div><h3>Rows per table</h3>"
        f"{_table(['table', 'rows', 'before', 'change'], rows)}</div>"
        f"{_work(manifest)}</div>"
    )


#: What each kind of line is, in the line accounting.
_LINE_KINDS = {
    "header": "the site's header",
    "date_source": "an entry's date · source line",
    "body": "a ruling's text",
    "translation": "a translation of a ruling",
    "stub": "a stray card stub",
    "blank": "blank",
    "rejected": "rejected (a reason each, in rejects)",
}


def rejects_by_kind(rejects: pl.DataFrame) -> pl.DataFrame:
    """How many rejects of each kind: their reason with its values (quoted text, dump
    paths, numbers) as `…`, so 90 impossible dates are one row, not 90, and 3,177 copies
    of other files one, not 1,986 (most first).

    Needs: rejects (the published table: stage, reason String). Returns: stage
    (String), reason (String, the kind), len (UInt32), one row per kind.
    """
    quoted = r"'[^']*'|\"[^\"]*\""
    path = r"[^\s;]+\.txt\b"  # a dump's path, unquoted (`decode`: `… the same bytes as en/x.txt`)
    kind = pl.col("reason").str.replace_all(quoted, "'…'").str.replace_all(path, "…")
    kind = kind.str.replace_all(r"\d+", "…")
    return (
        rejects.group_by("stage", kind)
        .len()
        .sort(["len", "stage", "reason"], descending=[True, False, False])
    )


def lines_section(manifest: dict[str, Any], tables: dict[str, pl.DataFrame]) -> str:
    """The line accounting (lines kept by kind, rejected) and the rejects by stage and reason."""
    accounting = manifest.get("line_accounting", {})
    kinds = [k for k in (*LINE_KINDS, *accounting) if k in accounting and k != "lines_read"]
    rows = [
        (escape(kind), escape(_LINE_KINDS.get(kind, "")),
         _count(f"line_accounting.{kind}", accounting[kind], "td"))
        for kind in dict.fromkeys(kinds)
    ]  # fmt: skip
    total = ""
    if "lines_read" in accounting and "rejected" in accounting:
        kept = accounting["lines_read"] - accounting["rejected"]
        total = (
            f"<p>{_count('line_accounting.lines_read', accounting['lines_read'])} lines read:"
            f" {kept:,} kept, {_count('line_accounting.rejected', accounting['rejected'])}"
            " rejected. Every line read has one kind.</p>"
        )
    rejects = rejects_by_kind(tables["rejects"])
    labels = [f"{stage}: {reason}" for stage, reason, _ in rejects.iter_rows()]
    counts = rejects["len"].to_list()
    if len(labels) > MAX_REJECT_KINDS:  # the rest as one bar: a page, not a scroll of bars
        rest = len(labels) - MAX_REJECT_KINDS + 1
        labels = [*labels[: MAX_REJECT_KINDS - 1], f"{rest:,} other kinds (see rejects)"]
        counts = [*counts[: MAX_REJECT_KINDS - 1], sum(counts[MAX_REJECT_KINDS - 1 :])]
    chart = bar_chart_svg(
        labels,
        counts,
        "rejects by reason",
        label_width=560,
        max_lines=2,
    )
    return (
        f"<h2>Lines read</h2>{total}{_table(['kind', 'what it is', 'lines'], rows)}"
        f"<h3>Rejects by stage and kind of reason (rows of <code>rejects</code>;"
        f" values shown as …)</h3>{chart}"
    )


def charts_section(manifest: dict[str, Any], tables: dict[str, pl.DataFrame]) -> str:
    """Occurrences by published date, rulings and translations by language, the most repeated."""
    by_date = tables["ruling_occurrences"].group_by("published_on").len().sort("published_on")
    languages = pl.concat([
        tables["rulings"].select(what=pl.lit("rulings · ") + pl.col("language")),
        tables["ruling_translations"].select(what=pl.lit("translations · ") + pl.col("language")),
    ])  # fmt: skip
    repeated = (
        tables["rulings"]
        .sort(["dump_count", "occurrence_count", "text"], descending=[True, True, False])
        .head(TOP_RULINGS)
    )
    charts = [
        ("Occurrences by published date", bar_chart_svg(
            [str(d) for d in by_date["published_on"].to_list()], by_date["len"].to_list(),
            "occurrences by published date")),
        ("Rulings and translations by language", bar_chart_svg(
            *_counts(languages, "what"), "rulings and translations by language")),
        (f"The {TOP_RULINGS} most repeated rulings (dumps they are in)", bar_chart_svg(
            repeated["text"].to_list(), repeated["dump_count"].to_list(),
            "most repeated rulings", label_width=600, max_lines=3)),
    ]  # fmt: skip
    return "<h2>Rulings</h2>" + "".join(f"<h3>{title}</h3>{chart}" for title, chart in charts)


def cards_section(manifest: dict[str, Any], tables: dict[str, pl.DataFrame]) -> str:
    """The cards: attribution coverage with a catalog; how cards were found; most dumps."""
    dumps = tables["dumps"]
    if "card_name" not in dumps.columns:
        return ""
    cards = dumps.filter(pl.col("card_name").is_not_null())
    how = cards.select(how=pl.col("card_attribution").fill_null("none"))
    coverage = (
        _coverage(dumps, cards, tables["rulings"], tables["ruling_cards"])
        if "catalog_parsed" in manifest.get("work", {})
        else '<p class="note">No catalog in this run (<code>--catalog</code>): cards are '
        "named as their rulings name them; no attribution coverage.</p>"
    )
    return (
        f"<h2>Cards</h2>{coverage}"
        f"<h3>Attributed cards: how they were found</h3>"
        f"{bar_chart_svg(*_counts(how, 'how'), 'attributions by method')}"
        f"<h3>Cards with the most dumps</h3>"
        f"{bar_chart_svg(*_counts(cards, 'card_name', TOP_CARDS), 'cards with the most dumps')}"
    )


def dump_checks_section(manifest: dict[str, Any], tables: dict[str, pl.DataFrame]) -> str:
    """The dump checks' counts, when the manifest has them (`dump_checks`: {check: count})."""
    checks = manifest.get("dump_checks")
    if not isinstance(checks, dict) or not checks:
        return ""
    rows = [
        (escape(str(name)), _count(f"dump_checks.{name}", n, "td"))
        for name, n in checks.items()
        if isinstance(n, int)
    ]
    return f"<h2>Dump checks</h2>{_table(['check', 'dumps'], rows)}" if rows else ""


#: The page, top to bottom.
SECTIONS: tuple[Section, ...] = (
    heading_section,
    tiles_section,
    changes_section,
    lines_section,
    charts_section,
    cards_section,
    dump_checks_section,
)


def _coverage(
    dumps: pl.DataFrame, cards: pl.DataFrame, rulings: pl.DataFrame, ruling_cards: pl.DataFrame
) -> str:
    """Attribution coverage: dumps with a catalog card, rulings the catalog's cards carry."""
    in_catalog = cards.filter(pl.col("oracle_id").is_not_null()).height
    carried = rulings.join(ruling_cards.select("ruling_id").unique(), on="ruling_id").height
    rows = [
        ("dumps attributed to a catalog card", *_share(in_catalog, dumps.height)),
        ("rulings the catalog's cards carry", *_share(carried, rulings.height)),
        ("(ruling, card) pairs in <code>ruling_cards</code>",
         _count("rows.ruling_cards", ruling_cards.height, "td"), "<td></td>", "<td></td>"),
    ]  # fmt: skip
    return "<h3>Attribution coverage</h3>" + _table(["", "found", "of", "share"], rows)


def _work(manifest: dict[str, Any]) -> str:
    """What the run did (`work`) and how ruling ids relate to the registry (`ruling_ids`)."""
    rows = [
        (escape(f"{prefix}{key.replace('_', ' ')}"), _count(f"{part}.{key}", n, "td"))
        for part, prefix in (("work", ""), ("ruling_ids", "ruling ids "))
        for key, n in manifest.get(part, {}).items()
        if isinstance(n, int) and not isinstance(n, bool)
    ]
    return f"<div><h3>Work done</h3>{_table(['what', 'count'], rows)}</div>" if rows else ""


def _path_list(kind: str, paths: list[str]) -> str:
    """The paths of one kind of change, folded (the first `_PATHS_SHOWN`); "" when none."""
    if not paths:
        return ""
    shown = "".join(f"<li><code>{escape(p)}</code></li>" for p in paths[:_PATHS_SHOWN])
    more = f"<li>and {len(paths) - _PATHS_SHOWN:,} more</li>" if len(paths) > _PATHS_SHOWN else ""
    return f"<details><summary>files {kind}</summary><ul>{shown}{more}</ul></details>"


def _counts(
    frame: pl.DataFrame, column: str, limit: int | None = None
) -> tuple[list[str], list[int]]:
    """(values of `column`, their row counts), most frequent first; at most `limit`."""
    counted = frame.group_by(column).len().sort(["len", column], descending=[True, False])
    counted = counted.head(limit) if limit else counted
    return [str(v) for v in counted[column].to_list()], counted["len"].to_list()


def _count(name: str, value: int, tag: str = "span") -> str:
    """A count from the manifest, named by `data-count` (a number cell when `tag` is td)."""
    cls = ' class="n"' if tag == "td" else ""
    return f'<{tag}{cls} data-count="{escape(name)}">{value:,}</{tag}>'


def _change(now: int, before: int | None, bare: bool = False) -> str:
    """`now`'s change since `before` (" +2", " −1", " no change"); "" without a `before`."""
    if before is None:
        return ""
    if now == before:
        return "" if bare else " · no change"
    sign, cls = ("+", "up") if now > before else ("−", "down")
    text = f"{sign}{abs(now - before):,}"
    return f'<span class="{cls}">{text}</span>' if bare else f' · <span class="{cls}">{text}</span>'


def _previous(before: int | None) -> str:
    return f'<td class="n">{before:,}</td>' if before is not None else '<td class="n">–</td>'


def _share(part: int, whole: int) -> tuple[str, str, str]:
    """Cells: `part`, `whole` and the share in percent."""
    share = f"{100 * part / whole:.0f} %" if whole else "–"
    return tuple(f'<td class="n">{v}</td>' for v in (f"{part:,}", f"{whole:,}", share))  # type: ignore[return-value]


def _table(header: list[str], rows: list[tuple[str, ...]]) -> str:
    """A table whose cells are given as HTML (a bare text becomes a `<td>`)."""
    head = "".join(f"<th>{h}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(c if c.startswith("<td") else f"<td>{c}</td>" for c in row) + "</tr>"
        for row in rows
    )
    return f"<table><tr>{head}</tr>{body}</table>"


def _when(iso: Any) -> dt.datetime | None:
    """An ISO 8601 time from the manifest, in UTC; None when absent or not one."""
    try:
        return dt.datetime.fromisoformat(str(iso)).astimezone(dt.UTC) if iso else None
    except ValueError:
        return None


def _size(size: int) -> str:
    """`size` bytes for a person: 812 bytes, 23.4 kB, 1.2 MB."""
    if size < 1000:
        return f"{size:,} bytes"
    scaled, unit = next(
        (size / 1000**p, u)
        for p, u in ((1, "kB"), (2, "MB"), (3, "GB"))
        if size < 1000 ** (p + 1) or p == 3
    )
    return f"{scaled:,.1f} {unit}"
