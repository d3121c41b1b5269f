"""Property tests: every CLDR date format read round-trips through a date·source
line, and dumps mixing date forms, invisible characters, markup and CJK body
lines put every line in its place."""

from __future__ import annotations

import datetime as dt

import polars as pl
from babel.dates import format_date
from hypothesis import given, settings
from hypothesis import strategies as st

from flows.stages.date_formats import ERAS, DateFormat, date_formats
from flows.stages.dates import parse_published_dates
from flows.stages.decode import FORMAT_CHARACTERS
from flows.stages.parse import AMBIGUOUS_DATE_REASON, classify_lines, resolve_entries
from tests.conftest import TODAY, dump_of, lines_of

FIRST_DAY = dt.date(1993, 1, 1)
#: Formats read back to their date: four-digit year, and not month first
#: (`M/d/yy` is English only, and English does not fix the order: rejected).
READ_FORMATS = [f for f in date_formats() if "yy" not in f.pattern.replace("yyyy", "")]
ROUND_TRIP = [f for f in READ_FORMATS if f.order != "mdy"]
TWO_DIGIT_YEAR = [f for f in date_formats() if f not in READ_FORMATS]
HEADER = "Clarifications officielles. La traduction FR ci-dessous est générée automatiquement."
BODIES = [
    "Energy counters aren't mana. They don't go away as steps, phases, and turns end.",
    "1个由加拉克·鲁斯操控的效果：该效果结束",
    "2张名称为鲁斯·加拉克的牌：各自独立",
    "マグマ・オパスを捨てる：宝物トークンを1つ生成する。",
    "X peut valoir zéro.",
]
INVISIBLE = [chr(c) for c in (0xFEFF, 0x200B, 0x200C, 0x200D, 0x2060, 0xAD, 0x200E, 0x200F)]
INVISIBLE += [chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A))]


def _resolve(lines: list[str]) -> pl.DataFrame:
    classified = classify_lines(lines_of(dump_of(*lines)))
    return resolve_entries(classified, parse_published_dates(classified["date_text"], TODAY))


def _written(form: DateFormat, day: dt.date) -> str:
    return format_date(day, format=form.length, locale=form.locale)


def test_every_locale_and_length_is_covered() -> None:
    """27 locales x 4 lengths; the measured counts docs/input-formats.md reports."""
    assert len(date_formats()) == 108
    assert (len(ROUND_TRIP), len(TWO_DIGIT_YEAR)) == (93, 15)


@settings(max_examples=40, deadline=None)
@given(
    days=st.lists(st.dates(FIRST_DAY, TODAY), min_size=len(ROUND_TRIP), max_size=len(ROUND_TRIP))
)
def test_every_format_round_trips(days: list[dt.date]) -> None:
    """Each (locale, length) writes a date (Babel), and the line parses back to it."""
    heads = [
        f"{_written(form, day)} · source : wotc" for form, day in zip(ROUND_TRIP, days, strict=True)
    ]
    lines = [HEADER]
    for head in heads:
        lines += [head, BODIES[0]]
    resolved = _resolve(lines)
    found = resolved.filter(pl.col("kind") == "date_source")
    assert found.select("line", "published_on").rows() == list(zip(heads, days, strict=True))


@settings(max_examples=10, deadline=None)
@given(day=st.dates(FIRST_DAY, TODAY))
def test_two_digit_years_are_heads_rejected_with_their_body(day: dt.date) -> None:
    for form in TWO_DIGIT_YEAR:
        written = _written(form, day)
        resolved = _resolve([HEADER, f"{written} · source : wotc", BODIES[0]])
        assert resolved["kind"].to_list() == ["header", "rejected", "rejected"]
        reason = resolved["reject_reason"][1]
        assert reason in {
            f"two-digit year in date {written!r}: the century is not written",
            AMBIGUOUS_DATE_REASON,
        }


@settings(max_examples=40, deadline=None)
@given(day=st.dates(dt.date(1993, 1, 1), TODAY), first=st.booleans())
def test_japanese_era_dates_round_trip(day: dt.date, first: bool) -> None:
    written = _era(day, first)
    resolved = _resolve([HEADER, f"{written} · 出典：wotc", BODIES[3]])
    assert resolved.select("kind", "published_on").rows()[1] == ("date_source", day)


@given(day=st.dates(dt.date(1993, 1, 1), TODAY), traditional=st.booleans())
def test_taiwan_republic_year_dates_round_trip(day: dt.date, traditional: bool) -> None:
    written = f"{'民國' if traditional else '民国'}{day.year - 1911}年{day.month}月{day.day}日"
    resolved = _resolve([HEADER, f"{written} · 來源：wotc", BODIES[3]])
    assert resolved.select("kind", "published_on").rows()[1] == ("date_source", day)


def _era(day: dt.date, gannen: bool) -> str:
    """`令和6年6月7日`; year 1 as `元年` when `gannen`."""
    name, start = next((n, s) for n, s, code in reversed(ERAS) if code == "ja" and s <= day)
    year = day.year - start.year + 1
    return f"{name}{'元' if year == 1 and gannen else year}年{day.month}月{day.day}日"


def _ordinal(day: dt.date) -> str:
    """`June 7th, 2024`: the English ordinal day."""
    suffix = "th" if 11 <= day.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    return format_date(day, "MMMM d'" + suffix + "', y", locale="en")


#: Written forms beyond CLDR's patterns, each a function of the date.
EXTRA_FORMS = [
    lambda day: _era(day, gannen=True),
    _ordinal,
    lambda day: format_date(day, "d 'de' MMMM 'del' y", locale="es"),
    lambda day: format_date(day, "d MMMM y 'года'", locale="ru"),
]


@st.composite
def _dumps(draw: st.DrawFn) -> tuple[list[str], list[tuple[int, dt.date]], list[int]]:
    """(lines as written, (line number, date) of each entry head, line numbers of bodies)."""

    def hide(text: str) -> str:
        spots = draw(st.lists(st.integers(0, len(text)), max_size=3))
        for spot in sorted(spots, reverse=True):
            text = text[:spot] + draw(st.sampled_from(INVISIBLE)) + text[spot:]
        return text

    wrap = st.sampled_from(["{}", "- {}", "* {}", "• {}", "1. {}", "<p>{}</p>", "{}<br>"])
    lines, heads, bodies = [HEADER], [], []
    for _ in range(draw(st.integers(1, 6))):
        form = draw(st.sampled_from(ROUND_TRIP + EXTRA_FORMS))
        day = draw(st.dates(FIRST_DAY, TODAY))
        written = form(day) if callable(form) else _written(form, day)
        head = written + draw(st.sampled_from([" · source : wotc", " ・ 出典：wotc"]))
        lines.append(draw(wrap).format(hide(head)))
        heads.append((len(lines), day))
        for body in draw(st.lists(st.sampled_from(BODIES), min_size=1, max_size=3)):
            lines.append(hide(body))
            bodies.append(len(lines))
    return lines, heads, bodies


@settings(max_examples=60, deadline=None)
@given(dump=_dumps())
def test_every_line_in_its_place(
    dump: tuple[list[str], list[tuple[int, dt.date]], list[int]],
) -> None:
    lines, heads, bodies = dump
    resolved = _resolve(lines)
    kinds = dict(zip(resolved["line_number"], resolved["kind"], strict=True))
    assert resolved.height == len(lines)
    assert [n for n, k in kinds.items() if k == "header"] == [1]
    found = resolved.filter(pl.col("kind") == "date_source")
    assert found.select("line_number", "published_on").rows() == heads
    assert [n for n, k in kinds.items() if k == "body"] == bodies
    assert not resolved["line"].str.contains(FORMAT_CHARACTERS).any()
