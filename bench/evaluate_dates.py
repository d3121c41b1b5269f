"""Measure how the dates of date·source lines are read (`python -m bench eval dates`).

Every distinct publication date of the real rulings (`published_at` of
`mtgjson_v5_rulings.jsonl`, 119 dates from 2004 to 2022) is written three
ways, and each distinct text is read with `dates.parse_date`:

- cldr: in every CLDR format (full, long, medium, short) of every locale of
  `date_names.DATE_LOCALES` (Babel's `format_date`);
- written: as sites write it beside CLDR (`_written`: names without accents, an
  article, a comma before the year, dashes, a weekday before a numeric date,
  hyphens in a numeric date, a month's first three letters, Korean zero-padded
  months, Chinese colloquial weekdays, CLDR's date and time of day);
- other: in the full and long formats of OTHER_LOCALES, languages none of
  `DATE_LOCALES` is in (read with their own CLDR data, or rejected as
  ambiguous when two languages disagree).

A text is `right` when read as its date and `wrong` when read as another
(target 0); else it is rejected: by design for a two-digit year (`dd.MM.yy`:
the century is not written), else a miss, listed by kind (way, locale, the
reason's first words) with examples. Also counted: the distinct lines of the
real texts (`evaluate_engine.real_texts`) read as entry heads (target 0) or as
malformed heads.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import time
import unicodedata
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer
from babel import Locale
from babel.dates import format_date, format_datetime

from bench.evaluate_engine import RULINGS, real_texts, rulings_file
from flows.stages import shapes
from flows.stages.date_formats import ARTICLES, FORMAT_LENGTHS
from flows.stages.date_names import DATE_LOCALES, locale_names, name_key
from flows.stages.dates import parse_date

#: Languages outside DATE_LOCALES whose CLDR formats are read (`date_formats.other_formats`).
OTHER_LOCALES = (
    "el", "nl", "pl", "cs", "sv", "tr", "hu", "ro", "fi", "da", "nb", "ca", "hr", "uk",
    "hi", "ar", "he", "th", "vi", "id",
)  # fmt: skip


def _bare(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _written(code: str, day: dt.date) -> Iterator[tuple[str, str]]:
    """(kind, text): `day` as sites write it in `code`'s language beside CLDR."""
    language = Locale.parse(code).language
    long, medium = format_date(day, "long", code), format_date(day, "medium", code)
    if _bare(long) != long:
        yield "without accents", _bare(long)
    for article in ARTICLES.get(language, ()):
        if language != "en" or article == "on":  # `on June 7, 2024`
            yield "article", f"{article} {long}"
    if language in ("fr", "es", "it", "pt"):
        yield "comma before the year", re.sub(r" (\d{4})$", r", \1", long)
    if language in ("fr", "en", "es", "it") and re.search(r"[^\W\d]", medium):
        yield "dashes", medium.replace(" ", "-")
    short = format_date(day, "short", code)
    if re.search(r"\d{4}", short) and language in ("fr", "de", "es", "pt", "ru", "it"):
        yield "weekday before", f"{format_date(day, 'EEEE', code)}, {short}"
        yield "hyphens", re.sub(r"[./](?=\d)", "-", short)
    yield from _abbreviated_or_timed(code, day)
    if code == "ko":
        yield "zero-padded month", format_date(day, "y년 MM월 dd일", code)
    if code in ("zh", "zh_Hant"):
        week = "礼拜" if code == "zh" else "禮拜"
        yield (
            "colloquial weekday",
            f"{day.year}年{day.month}月{day.day}日（{week}{'一二三四五六日'[day.weekday()]}）",
        )


def _abbreviated_or_timed(code: str, day: dt.date) -> Iterator[tuple[str, str]]:
    """(kind, text): `day` with its month's first three letters (`7 aoû 2024`), and with
    a time of day in CLDR's date and time formats (`{1}, {0}`, zones `UTC`, `TU`)."""
    wide = format_date(day, "MMMM", code)
    if wide.isalpha() and len(wide) > 3 and name_key(wide[:3]) in locale_names(code, "months"):
        yield "first three letters", f"{day.day} {wide[:3]} {day.year}"
    afternoon = dt.datetime.combine(day, dt.time(14, 30, 5), tzinfo=dt.UTC)
    for length in ("long", "medium"):
        yield "time of day", format_datetime(afternoon, length, tzinfo=dt.UTC, locale=code)


def _texts(days: list[dt.date]) -> dict[tuple[str, str, str], dict[str, dt.date]]:
    """(way, locale, kind) -> {text: its date}."""
    texts: dict[tuple[str, str, str], dict[str, dt.date]] = {}
    for day in days:
        for code in DATE_LOCALES:
            for length in FORMAT_LENGTHS:
                texts.setdefault(("cldr", code, length), {})[format_date(day, length, code)] = day
            for kind, text in _written(code, day):
                texts.setdefault(("written", code, kind), {})[text] = day
        for code in OTHER_LOCALES:
            for length in ("full", "long"):
                texts.setdefault(("other", code, length), {})[format_date(day, length, code)] = day
    return texts


def _read(texts: dict[tuple[str, str, str], dict[str, dt.date]], today: dt.date) -> dict[str, Any]:
    ways: dict[str, Counter[str]] = {}
    misses: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    for (way, code, kind), written in texts.items():
        counts = ways.setdefault(way, Counter())
        for text, day in written.items():
            read, reason = parse_date(text, today)
            counts["texts"] += 1
            if read == day:
                counts["right"] += 1
            elif read is not None:
                counts["wrong"] += 1
                examples.setdefault("wrong", []).append(f"{text} -> {read}")
            elif (reason or "").startswith("two-digit year"):
                counts["rejected by design"] += 1
            else:
                counts["missed"] += 1
                key = f"{way} {code} {kind}: {' '.join((reason or '').split()[:2])}"
                misses[key] += 1
                examples.setdefault(key, []).append(f"{text} ({reason})")
    return {
        "ways": {way: dict(sorted(c.items())) for way, c in ways.items()},
        "misses_by_kind": dict(misses.most_common()),
        "examples": {k: v[:3] for k, v in sorted(examples.items())},
    }


def _real_lines(real: Path) -> dict[str, Any]:
    """Distinct lines of the real texts read as heads or malformed heads."""
    lines = sorted({line for texts in real_texts(real).values() for t in texts
                    for line in t.splitlines() if line.strip()})  # fmt: skip
    head = shapes.is_head(pl.col("line"))
    shaped = (
        pl.DataFrame({"line": lines})
        .with_columns(head=head)
        .with_columns(malformed=shapes.is_malformed_head(pl.col("line"), pl.col("head")))
    )
    return {
        "lines": len(lines),
        "heads": shaped.filter("head")["line"].to_list(),
        "malformed_heads": shaped.filter("malformed")["line"].to_list(),
    }


def evaluate_dates(real: Path) -> dict[str, Any]:
    """The measures of the module docstring (JSON-ready)."""
    rulings = pl.read_ndjson(real / RULINGS)
    days = sorted({dt.date.fromisoformat(d) for d in rulings["published_at"].drop_nulls()})
    start = time.perf_counter()
    measured = {"data": str(real), "dates": len(days), **_read(_texts(days), max(days))}
    measured["read_seconds"] = round(time.perf_counter() - start, 1)
    measured["real_lines"] = _real_lines(real)
    return measured


def eval_dates(
    real: Annotated[Path, typer.Option("--real", help="The real data folder.")] = Path(
        "../shared/data/real"
    ),
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")] = Path(
        "bench/eval-dates.json"
    ),
) -> None:
    """Write the real rulings' dates in every CLDR format of the read locales, as sites
    write them and in other languages; count those read as their date, and the real
    lines read as heads; write RESULTS (misses by kind).

    Example:

        python -m bench eval dates --results bench/eval-dates.json
    """
    rulings_file(real)  # or one `error:` line
    measured = evaluate_dates(real)
    results.write_text(json.dumps(measured, indent=2, ensure_ascii=False) + "\n", "utf-8")
    lines = measured["real_lines"]
    typer.echo(
        {
            **measured["ways"],
            "heads": len(lines["heads"]),
            "malformed": len(lines["malformed_heads"]),
        }
    )
