"""The round-3 field-fault cases (../shared/cases/round3): each right value of its
CASES.md is asserted here, on one run of the nine dumps together (so "the same
ruling as A elsewhere" is checked across them)."""

from __future__ import annotations

import datetime as dt

import polars as pl
import pytest

from tests.conftest import ROUND3_DIR, Run, needs_round3, run_contents

pytestmark = needs_round3
A = (
    "Energy counters are a kind of counter that a player may have. "
    "They're not associated with any specific permanents."
)
B = (
    "An Equipment creature can never become attached to itself. "
    "If an effect tries to do this, nothing happens."
)
C = "If the copied creature has {X} in its mana cost, X is 0."
FR_A = (
    "Les marqueurs d’énergie sont un type de marqueur qu’un joueur peut avoir. "
    "Ils ne sont associés à aucun permanent."
)
JUNE_14, JUNE_7, MARCH_3 = dt.date(2024, 6, 14), dt.date(2024, 6, 7), dt.date(2023, 3, 3)


@pytest.fixture(scope="module")
def round3() -> Run:
    """The product's run of every round-3 dump, together."""
    return run_contents({path.name: path.read_bytes() for path in ROUND3_DIR.glob("*.txt")})


def _dump_id(run: Run, name: str) -> str:
    return run.tables["dumps"].filter(pl.col("path") == name)["dump_id"].item()


def _of(run: Run, table: str, name: str) -> pl.DataFrame:
    return run.tables[table].filter(pl.col("dump_id") == _dump_id(run, name))


def _entries(run: Run, name: str) -> list[tuple[dt.date, str]]:
    return _of(run, "ruling_occurrences", name).select("published_on", "text_raw").rows()


def _kinds(run: Run, name: str) -> list[str]:
    lines = run.lines.filter(pl.col("dump_id") == _dump_id(run, name)).sort("line_number")
    return lines["kind"].to_list()


def test_r01_greek_heads_are_entries_and_the_header_is_line_one(round3: Run) -> None:
    name = "r01_greek_site.txt"
    assert _entries(round3, name) == [(JUNE_14, A), (MARCH_3, B)]
    assert _kinds(round3, name) == ["header", "date_source", "body", "date_source", "body"]
    header = (ROUND3_DIR / name).read_text("utf-8").splitlines()[0]
    assert _of(round3, "dumps", name)["header_text"].to_list() == [header]
    assert _of(round3, "rejects", name).height == 0


#: (header, first head's date, source word, second head's date) of sites whose heads
#: no CLDR shape of `date_names.DATE_LOCALES` reads.
OTHER_SITES = {
    "el": (
        "Επίσημες διευκρινίσεις της Wizards of the Coast.", "14 Ιουνίου 2024", "πηγή",
        "3 Μαρτίου 2023",
    ),
    "ar": ("توضيحات رسمية من Wizards of the Coast.", "14 يونيو 2024", "المصدر", "3 مارس 2023"),
    "pl": ("Oficjalne wyjaśnienia Wizards of the Coast.", "14 czerwca 2024", "źródło", "3 marca 2023"),
}  # fmt: skip


SEPARATORS = [" / ", ", ", " ", "｜", " ― ", " -- ", " :: ", "\t"]


def _other_site_heads(site: str, separator: str) -> list[str]:
    _, first, label, second = OTHER_SITES[site]
    return [f"{first}{separator}{label}: wotc", f"{second}{separator}{label}: wotc"]


@pytest.fixture(scope="module")
def other_sites() -> Run:
    """One run of a dump per site and separator (`site-N.txt`, N its separator's index)."""
    dumps = {}
    for site, (header, *_) in OTHER_SITES.items():
        for number, separator in enumerate(SEPARATORS):
            first, second = _other_site_heads(site, separator)
            dumps[f"{site}-{number}.txt"] = f"{header}\n{first}\n{A}\n{second}\n{B}\n".encode()
    return run_contents(dumps)


@pytest.mark.parametrize("site", sorted(OTHER_SITES))
@pytest.mark.parametrize("separator", SEPARATORS)
def test_r01_a_head_with_another_separator_is_never_header(
    other_sites: Run, site: str, separator: str
) -> None:
    # a probe's find: with a separator other than the dots, no line was a head, and the
    # whole page (both entries) became the dump's header
    name = f"{site}-{SEPARATORS.index(separator)}.txt"
    assert _kinds(other_sites, name) == ["header"] + ["rejected"] * 4
    assert _of(other_sites, "dumps", name)["header_text"].to_list() == [OTHER_SITES[site][0]]
    rejects = _of(other_sites, "rejects", name).sort("line_number")
    first, second = _other_site_heads(site, separator)
    assert rejects["content"].to_list() == [first, A, second, B]
    assert all("date·source line" in reason for reason in rejects["reason"])


def test_r02_chinese_numeral_date_is_an_entry_never_a_translation(round3: Run) -> None:
    name = "r02_zh_numeral_date.txt"
    assert _entries(round3, name) == [(JUNE_14, A), (JUNE_7, B), (MARCH_3, C)]
    assert _of(round3, "ruling_translations", name).height == 0
    assert _of(round3, "rejects", name).height == 0


def test_r03_cp1252_line_is_the_french_translation(round3: Run) -> None:
    name = "r03_utf8_with_cp1252_line.txt"
    assert _entries(round3, name) == [(JUNE_7, A), (JUNE_7, B)]
    translations = _of(round3, "ruling_translations", name)
    assert translations.select("line_number", "language", "text").rows() == [(4, "fr", FR_A)]
    assert _of(round3, "dumps", name)["encoding"].to_list() == ["utf-8+cp1252"]


def test_r04_two_pastes_the_repeated_header_ends_the_stub(round3: Run) -> None:
    name = "r04_two_pastes_one_file.txt"
    assert _entries(round3, name) == [(JUNE_7, A), (JUNE_7, B), (dt.date(2024, 3, 8), C)]
    stubs = _of(round3, "card_stubs", name)
    assert stubs.select("mana_value", "power", "toughness", "language", "text").rows() == [
        (3.0, "2", "2", "fr", "Quand la Sentinelle entre sur le champ de bataille, vous obtenez")
    ]
    assert _kinds(round3, name)[8] == "header"  # line 9, the repeated disclaimer
    dump = _of(round3, "dumps", name)
    assert dump.select("paste_count", "entry_count", "stub_count").rows() == [(2, 3, 1)]
    assert _of(round3, "ruling_translations", name).height == 0


def test_r05_a_break_tag_inside_a_line_is_a_space(round3: Run) -> None:
    name = "r05_br_inside_line.txt"
    assert _entries(round3, name) == [(JUNE_14, A), (JUNE_14, B)]
    assert _of(round3, "dumps", name)["markup_count"].to_list() == [1]


def test_r06_ruling_and_translation_on_one_line_are_split(round3: Run) -> None:
    name = "r06_same_line_translation.txt"
    assert _entries(round3, name) == [(JUNE_7, A), (JUNE_7, B)]
    occurrences = _of(round3, "ruling_occurrences", name)
    assert occurrences["language"].to_list() == ["en", "en"]
    translations = _of(round3, "ruling_translations", name)
    assert translations.select("line_number", "language", "text").rows() == [(3, "fr", FR_A)]
    assert translations["ruling_id"].to_list() == occurrences["ruling_id"].head(1).to_list()
    assert _of(round3, "dumps", name)["translation_count"].to_list() == [1]


def test_ruling_a_is_one_ruling_in_every_dump(round3: Run) -> None:
    """r05 (`<br>` inside A) and r06 (A with its translation on its line) give A's ruling."""
    a = round3.tables["ruling_occurrences"].filter(pl.col("text_raw") == A)
    assert a["dump_id"].n_unique() == 9
    assert a["ruling_id"].n_unique() == 1
    assert round3.tables["rulings"].filter(pl.col("text") == A)["occurrence_count"].item() == 9


@pytest.mark.parametrize(
    ("name", "dates"),
    [
        ("r07_zh_weekday_in_parens.txt", [JUNE_14, MARCH_3]),
        ("r08_es_setiembre.txt", [dt.date(2024, 9, 13), JUNE_7]),
        ("r09_ja_halfwidth_separator.txt", [JUNE_14, MARCH_3]),
    ],
    ids=["r07 zh weekday in parentheses", "r08 es setiembre", "r09 ja half-width separator"],
)
def test_readable_heads_are_read(round3: Run, name: str, dates: list[dt.date]) -> None:
    assert _entries(round3, name) == list(zip(dates, [A, B], strict=True))
    assert _of(round3, "rejects", name).height == 0


ENGLISH_HEADER = "Official rulings from Wizards of the Coast, as published."


@pytest.mark.parametrize(
    "repeated",
    [
        ENGLISH_HEADER.removesuffix("."),  # pasted again without its final period
        f" {ENGLISH_HEADER}",
        f"{ENGLISH_HEADER}  ",
        ENGLISH_HEADER.upper(),
        # a second probe's: other spaces (40 of 50 such headers glued), Markdown's bold
        f"\u00a0{ENGLISH_HEADER}",
        f"{ENGLISH_HEADER}\t",
        f"\u3000{ENGLISH_HEADER}",
        ENGLISH_HEADER.replace(" ", "  ", 1),
        ENGLISH_HEADER.replace(" ", "\u00a0"),
        f"**{ENGLISH_HEADER}**",
    ],
    ids=[
        "no final period",
        "a space before",
        "spaces after",
        "capitals",
        "a no-break space",
        "a tab",
        "an ideographic space",
        "two spaces",
        "no-break spaces",
        "bold",
    ],
)
def test_r04_a_repeated_header_pasted_by_hand_is_a_header(repeated: str) -> None:
    # a probe's find: each was glued into ruling B, which took a new ruling_id
    head = "June 7, 2024 · source: wotc"
    content = f"{ENGLISH_HEADER}\n{head}\n{A}\n{head}\n{B}\n{repeated}\n{head}\n{C}\n"
    run = run_contents({"two.txt": content.encode()})
    occurrences = run.tables["ruling_occurrences"]
    assert occurrences.select("line_number", "text_raw").rows() == [(2, A), (4, B), (7, C)]
    assert run.tables["dumps"]["paste_count"].to_list() == [2]
    kinds = run.lines.sort("line_number")["kind"].to_list()
    assert kinds[5] == "header"  # line 6, the repeated header


@pytest.mark.parametrize(
    ("header", "line"),
    [("Official rulings", "OFFICIAL RULINGS."), ("Rulings…", "Rulings"), ("Energy", "Energy.")],
)
def test_a_ruling_like_a_short_header_line_stays_a_ruling(header: str, line: str) -> None:
    # a review's find: compared loosely, such a line started a second page and its
    # entry's head was rejected without a body
    head = "June 7, 2024 · source: wotc"
    content = f"{header}\n{head}\n{A}\n{head}\n{line}\n{B}\n"
    occurrences = run_contents({"short.txt": content.encode()}).tables["ruling_occurrences"]
    assert occurrences.select("line_number", "text_raw").rows() == [(2, A), (4, f"{line}\n{B}")]


FR_HEADER = (ROUND3_DIR / "r04_two_pastes_one_file.txt").read_text("utf-8").splitlines()[0]
CUT_SENTENCE = "Quand la Sentinelle entre sur le champ de bataille, vous obtenez"
STUB = f"CMC 3F/E 2/2\n.\n{CUT_SENTENCE}"


@pytest.mark.parametrize(
    ("header", "head", "last"),
    [
        (FR_HEADER, "07 juin 2024 · source : wotc", STUB),
        (FR_HEADER, "07 juin 2024 · source : wotc", f"{STUB} "),
        (ENGLISH_HEADER, "June 7, 2024 · source: wotc", STUB),
        (ENGLISH_HEADER, "June 7, 2024 · source: wotc", ""),
        (f"{ENGLISH_HEADER}\nTranslations are not checked.", "June 7, 2024 · source: wotc", ""),
    ],
    ids=["fr header after a stub", "after a space", "en header after a stub",
         "en header after a ruling", "the first of two header lines"],
)  # fmt: skip
def test_r04_a_header_glued_to_the_line_before_is_cut_off(
    header: str, head: str, last: str
) -> None:
    # a probe's find: `cat` of two pages, the first without a final line end, glued the
    # second page's header to the first page's last line: that line became a header
    # line (the stub's cut sentence lost into the dump's header_text), or the
    # disclaimer became part of the stub's text or of ruling B (a new ruling_id)
    first = f"{header}\n{head}\n{A}\n{head}\n{B}" + (f"\n{last}" if last else "")
    run = run_contents({"glued.txt": f"{first}{header}\n{head}\n{C}\n".encode()})
    occurrences = run.tables["ruling_occurrences"].select("text_raw").to_series().to_list()
    assert occurrences == [A, B, C]
    [header_text] = run.tables["dumps"]["header_text"].to_list()
    assert header_text.startswith(header)
    assert CUT_SENTENCE not in header_text and B not in header_text
    stubs = run.tables["card_stubs"].select("mana_value", "text").rows()
    assert stubs == ([(3.0, CUT_SENTENCE)] if last else [])
    assert run.tables["rejects"].height == 0


def test_r09_a_full_width_source_is_the_same_source() -> None:
    # a probe's find: `出典：ｗｏｔｃ` published source `ｗｏｔｃ` beside `wotc` (a group by
    # source split one site's entries in two)
    header = (
        "Wizards of the Coastによる公式裁定です。以下のJA翻訳はAIによって自動生成されたものです。"
    )
    heads = ["2024年6月14日･出典：ｗｏｔｃ", "2023年3月3日･出典：WotC"]
    content = f"{header}\n{heads[0]}\n{A}\n{heads[1]}\n{B}\n"
    occurrences = run_contents({"ja.txt": content.encode()}).tables["ruling_occurrences"]
    assert occurrences.select("published_on", "source").rows() == [
        (JUNE_14, "wotc"),
        (MARCH_3, "wotc"),
    ]


@pytest.mark.parametrize("marker", ["> ", "※ ", "Page 2 — ", "# ", "1. ", "Copie : "])
def test_r04_a_marker_before_a_repeated_header_is_no_glued_text(marker: str) -> None:
    # a review's find: the marker was cut off as the text of a glued line, and glued
    # into the ruling before (`…turns end.\n>`: another ruling_id)
    first = f"{FR_HEADER}\n07 juin 2024 · source : wotc\n{A}\n{FR_A}\n"
    second = f"{marker}{FR_HEADER}\n08 mars 2024 · source : wotc\n{C}\n"
    tables = run_contents({"two.txt": (first + second).encode()}).tables
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [A, C]
    assert tables["ruling_translations"]["text"].to_list() == [FR_A]
    assert tables["dumps"]["paste_count"].to_list() == [2]


def test_a_line_ending_as_a_second_header_line_does_is_no_glued_page() -> None:
    # a review's find: each translation ending with the header's second line lost it
    notice = "(Traduction automatique : l'original anglais fait foi.)"
    head = "07 juin 2024 · source : wotc"
    content = f"Clarifications officielles.\n{notice}\n{head}\n{A}\n{FR_A} {notice}\n"
    tables = run_contents({"notice.txt": content.encode()}).tables
    assert tables["ruling_translations"]["text"].to_list() == [f"{FR_A} {notice}"]


@pytest.mark.parametrize("source", ["wotc´", "WotC™"])
def test_a_source_keeps_its_accents_and_symbols(source: str) -> None:
    # a review's find: NFKC made `wotc´` a space and an accent, and the occurrence was
    # rejected at validation (its source must be one word)
    content = f"{FR_HEADER}\n07 juin 2024 · source : {source}\n{A}\n"
    occurrences = run_contents({"s.txt": content.encode()}).tables["ruling_occurrences"]
    assert occurrences.select("text_raw", "source").rows() == [(A, source.lower())]


def test_translations_ending_with_the_first_header_line_keep_it() -> None:
    # a second review's find: the header's notice ending each translation was cut off
    # the ones followed by a head, as if a page were glued there
    notice = "(Traduction automatique : l'original anglais fait foi.)"
    head = "07 juin 2024 · source : wotc"
    content = f"{notice}\n{head}\n{A}\n{FR_A} {notice}\n{head}\n{B}\n{FR_A} {notice}\n"
    tables = run_contents({"notice.txt": content.encode()}).tables
    assert tables["ruling_translations"]["text"].to_list() == [f"{FR_A} {notice}"] * 2
