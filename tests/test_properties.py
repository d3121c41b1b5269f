"""Nothing is lost: every generated line lands in exactly one kind; no bytes crash a run."""

from __future__ import annotations

import datetime as dt
import hashlib
import re

import polars as pl
from babel.dates import format_date
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flows.stages.encodings import decode_bytes
from flows.stages.manifest import account_lines
from flows.stages.parse import LINE_KINDS
from tests.conftest import SEED_DIR, TODAY, Run, run_contents

SEED_LINES = sorted(
    {
        line
        for path in SEED_DIR.glob("*.txt")
        for line in path.read_text(encoding="utf-8").splitlines()
    }
)
OTHER_SITES = [
    "2024年6月7日・来源：wotc",
    "能量指示物是玩家可具有的一种指示物。它们没有与任何特定的永久物相关联。",
    "7. Juni 2024 · Quelle: wotc",
    "CMC 3S/W 2/*",
    "7 июня 2024 г. · источник: scryfall",
    "Offizielle Regelklarstellungen von Wizards of the Coast. Die DE-Übersetzung unten.",
]
EDGE_LINES = [
    "",
    "   ",
    ".",
    "CMC 2F/E 1/3",
    "CMC X",
    "31 février 2024 · source : wotc",
    "07 juin 2099 · source : wotc",
    "1er juin 2024 ・ source ： Scryfall",
    "\t",
    "x" * 20_001,
]

line = st.one_of(
    st.sampled_from(SEED_LINES),
    st.sampled_from(EDGE_LINES),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40),
)
dump = st.lists(line, max_size=25).map(lambda lines: "\n".join(lines).encode())
raw_bytes = st.binary(max_size=300)

SETTINGS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _wc_lines(content: bytes) -> int:
    """Lines as `wc -l` counts them, plus an unterminated last line; CR, CRLF, LS and PS end
    lines too, and in a text with no LF or CR but a final one, VT, FF and NEL
    (`decode.split_lines`)."""
    text = content.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    if "\n" not in text.rstrip("\n"):
        text = re.sub("[\x0b\x0c\x85]", "\n", text)
    text = re.sub("[\u2028\u2029]", "\n", text)
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _run(contents: list[bytes]) -> Run:
    """The product's run of the dumps `000.txt`, `001.txt`, … holding `contents`."""
    return run_contents({f"{i:03}.txt": content for i, content in enumerate(contents)})


@SETTINGS
@given(st.lists(dump, min_size=1, max_size=4))
def test_every_line_has_exactly_one_kind(contents: list[bytes]) -> None:
    run = _run(contents)
    resolved, tables = run.lines, run.tables
    accounting = account_lines(resolved)
    assert run.result["manifest"]["line_accounting"] == accounting
    assert sum(accounting[k] for k in LINE_KINDS) == accounting["lines_read"]
    assert resolved.select("dump_id", "line_number").is_unique().all()
    unreadable = set(tables["rejects"].filter(pl.col("stage") == "read")["content"].to_list())
    readable = {c for i, c in enumerate(contents) if f"{i:03}.txt" not in unreadable}
    expected_lines = sum(_wc_lines(c) for c in readable)  # byte-identical files are read once
    assert accounting["lines_read"] == expected_lines
    parse_rejects = tables["rejects"].filter(pl.col("stage") == "parse")
    assert parse_rejects.height == accounting["rejected"]
    assert tables["ruling_occurrences"].height == accounting["date_source"]


@SETTINGS
@given(st.lists(raw_bytes, min_size=1, max_size=3))
def test_any_bytes_never_crash_the_run(contents: list[bytes]) -> None:
    run = _run(contents)
    tables = run.tables
    read_rejects = tables["rejects"].filter(pl.col("stage") == "read")
    assert tables["dumps"].height + read_rejects.height == len(contents)
    unread = set(read_rejects["content"].to_list())
    readable = {c for i, c in enumerate(contents) if f"{i:03}.txt" not in unread}
    assert sorted(tables["dumps"]["dump_id"]) == sorted(
        hashlib.sha256(c).hexdigest() for c in readable
    )
    assert account_lines(run.lines)["lines_read"] == sum(_wc_lines(c) for c in readable)


#: Code pages a site's editor may save a pasted line in (a German DOS editor, Windows, a Mac).
CODE_PAGES = ["utf-8", "cp1252", "cp850", "cp437", "cp852", "cp1251", "koi8-r", "mac_roman"]
#: Lines with the letters DOS and Windows code pages place apart (`ü` is 0x81 in cp850, which
#: cp1252 leaves undefined; `ñ`, `ß`, `ø`).
WESTERN_LINES = [
    "Energiemarken sind kein Mana, außer für die Größe des Effekts.",
    "Wenn eine Kreatur stirbt, erhältst du einen Energiezähler für jede Fähigkeit.",
    "Los contadores de energía no son maná; el daño se asigna en el paso de combate.",
    "Energitællere er ikke mana og forsvinder ikke, når runden slutter (søg i biblioteket).",
]
legacy_line = st.tuples(
    st.one_of(
        st.sampled_from(SEED_LINES),
        st.sampled_from(OTHER_SITES),
        st.sampled_from(WESTERN_LINES),
        line,
    ),
    st.sampled_from(CODE_PAGES),
).map(lambda pair: pair[0].encode(pair[1], errors="replace") + b"\n")


@settings(max_examples=200, deadline=None)
@given(st.lists(legacy_line, min_size=1, max_size=6))
def test_lines_of_several_code_pages_never_raise(lines: list[bytes]) -> None:
    """`decode_bytes` never raises: a cp850 `f\\x81r` beside cp1252 and UTF-8 lines once
    stopped the run (`tests/disk/test_raw.py`); a text, or a reject with its reason."""
    decoded = decode_bytes(b"".join(lines))
    assert (decoded.text is None) == (decoded.reject_reason is not None)


@SETTINGS
@given(raw_bytes)
def test_a_bad_dump_never_stops_the_others(bad: bytes) -> None:
    seeds = [path.read_bytes() for path in sorted(SEED_DIR.glob("*.txt"))]
    tables = _run([*seeds, bad]).tables
    seed_ids = {hashlib.sha256(c).hexdigest() for c in seeds}
    seed_occurrences = tables["ruling_occurrences"].filter(pl.col("dump_id").is_in(list(seed_ids)))
    assert seed_occurrences.height == 73


#: Scripts the CLDR formats of DATE_LOCALES do not write: each language's source
#: word and its digits.
OTHER_SCRIPTS = {
    "el": ("πηγή", "0123456789"),
    "ar": ("المصدر", "٠١٢٣٤٥٦٧٨٩"),
    "he": ("מקור", "0123456789"),
    "th": ("แหล่งที่มา", "๐๑๒๓๔๕๖๗๘๙"),
    "hi": ("स्रोत", "०१२३४५६७८९"),
}
HEADER = "Clarifications officielles. La traduction FR ci-dessous est générée automatiquement."
RULINGS = [
    "Energy counters aren't mana. They don't go away as steps, phases, and turns end.",
    "If the copied creature has {X} in its mana cost, X is 0.",
]


@st.composite
def other_script_entry(draw: st.DrawFn) -> tuple[list[str], dt.date | None]:
    """(lines: an optional repeated header, a head in another script, a body; the head's
    date, None when its month is a made-up word)."""
    language = draw(st.sampled_from(sorted(OTHER_SCRIPTS)))
    label, digits = OTHER_SCRIPTS[language]
    day = draw(st.dates(dt.date(1993, 1, 1), TODAY))
    written = format_date(
        day, format=draw(st.sampled_from(["full", "long", "medium"])), locale=language
    )
    made_up = draw(st.booleans())
    if made_up:  # a month word no language writes, of the script's letters
        letters = "".join(c for c in written + label if c.isalpha())
        written = f"{day.day} {draw(st.text(alphabet=letters, min_size=3, max_size=8))} {day.year}"
    if draw(st.booleans()):
        written = written.translate(str.maketrans("0123456789", digits))
    head = f"{written} · {label}: {draw(st.sampled_from(['wotc', 'scryfall']))}"
    repeat = [HEADER] if draw(st.booleans()) else []
    return [*repeat, head, draw(st.sampled_from(RULINGS))], None if made_up else day


@SETTINGS
@given(st.lists(other_script_entry(), min_size=1, max_size=6))
def test_heads_in_any_script_are_dated_or_rejected_with_their_body(
    entries: list[tuple[list[str], dt.date | None]],
) -> None:
    """Every generated head is an entry dated as written, or rejected with its body; never
    header, body or translation. A repeated header is header."""
    lines = [HEADER]
    heads: list[tuple[int, dt.date | None]] = []
    repeats: list[int] = []
    for entry_lines, day in entries:
        if len(entry_lines) == 3:
            repeats.append(len(lines) + 1)
        heads.append((len(lines) + len(entry_lines) - 1, day))
        lines += entry_lines
    kinds = (
        _run(["\n".join(lines).encode()])
        .lines.sort("line_number")
        .select("kind", "published_on")
        .rows()
    )
    for head, day in heads:
        kind, published_on = kinds[head - 1]
        body_kind = kinds[head][0]
        assert (kind, body_kind) in {("date_source", "body"), ("rejected", "rejected")}
        if kind == "date_source":  # dated as written (a made-up month: dated, never null)
            assert published_on == day if day is not None else published_on is not None
    assert all(kinds[line - 1][0] == "header" for line in [1, *repeats])
