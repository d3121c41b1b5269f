"""Every site's dumps: eleven locales built from real data, every line's kind checked.

Each site pastes real English rulings of a real card (with their real dates,
written in the site's locale), then a stub cut from that card's real printed
text in the site's language; the Simplified Chinese site adds the real MH3
release-notes translations under (and above) the seeds' energy rulings. Each
site also saves its file its own way (CRLF, cp1252, BOM, UTF-16, mojibake).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any

import ftfy.bad_codecs  # noqa: F401 - registers "sloppy-windows-1252"
import polars as pl
import pytest

from bench.corpus import (
    MH3_ENERGY_ORIGINALS,
    SITE_LOCALES,
    CardStub,
    SiteDump,
    build_site_dump,
    load_foreign_cards,
    load_mh3_energy_translations,
    load_rulings,
)
from tests.conftest import REAL_DATA, SEED_DIR, Run, needs_real_data, run_contents

REAL = REAL_DATA
pytestmark = needs_real_data


@dataclass(frozen=True)
class SiteCase:
    """One site: its dump, and how it saved the file."""

    dump: SiteDump
    content: bytes


def _save(dump: SiteDump, saving: str) -> bytes:
    match saving:
        case "crlf-cp1252":
            return dump.content("\r\n").encode("cp1252")
        case "bom":
            return b"\xef\xbb\xbf" + dump.content().encode()
        case "utf-16":
            return dump.content().encode("utf-16")
        case "mojibake":  # UTF-8 read once as cp1252 and saved again as UTF-8
            return dump.content().encode().decode("sloppy-windows-1252").encode()
        case "lone-cr":
            return dump.content("\r").encode()
    return dump.content().encode()


#: How each site saves and lays out its dumps.
SAVING = {"de": "crlf-cp1252", "pt": "bom", "zh-tw": "utf-16", "it": "mojibake", "ja": "lone-cr"}


def _card_with_rulings(
    cards: pl.DataFrame, rulings: pl.DataFrame, language: str, pick: int, saving: str
) -> tuple[pl.DataFrame, dict[str, Any]]:
    """The `pick`-th real creature printing in `language` with 3-6 rulings that `saving` can encode."""
    counts = rulings.group_by("oracle_id").len().filter(pl.col("len").is_between(3, 6))
    candidates = (
        cards.filter(
            (pl.col("language") == language)
            & pl.col("power").is_not_null()
            & (pl.col("text").str.len_chars() >= 40)
        )
        .join(counts, on="oracle_id")
        .unique("oracle_id", keep="first", maintain_order=True)
    )
    for card in candidates.slice(pick).iter_rows(named=True):
        card_rulings = rulings.filter(pl.col("oracle_id") == card["oracle_id"])
        texts = "\n".join([card["text"], *card_rulings["text"]])
        if (
            saving != "crlf-cp1252"
            or texts.encode("cp1252", errors="replace").decode("cp1252") == texts
        ):
            return card_rulings, card
    raise AssertionError(f"no {language} card to build a site from")


def _build_sites(
    rulings: pl.DataFrame, cards: pl.DataFrame, zh_energy: list[str]
) -> dict[str, SiteCase]:
    seeds = [
        line
        for line in (SEED_DIR / "000_fbe1a54fee004163.txt").read_text().splitlines()
        if not line.startswith(("07 juin", "Clarifications"))
    ]
    originals = [next(t for t in seeds if t.startswith(first)) for first in MH3_ENERGY_ORIGINALS]
    sites = {}
    for index, (code, site) in enumerate(SITE_LOCALES.items()):
        saving = SAVING.get(code, "utf-8")
        if code == "en":  # no English card text in the data: a non-creature stub without text
            card_rulings, card = _card_with_rulings(cards, rulings, "French", 0, saving)
            stub = CardStub(card["mana_value"], None, None, None)
        else:
            card_rulings, card = _card_with_rulings(
                cards, rulings, site.mtgjson_language, index * 3, saving
            )
            stub = CardStub(card["mana_value"], card["power"], card["toughness"], card["text"])
        entries = list(card_rulings.select("published_on", "text").iter_rows())
        translations = None
        if code == "ko":  # a body over two lines: the ruling's first sentence break
            day, text = entries[0]
            entries[0] = (day, text.replace(". ", ".\n", 1) if ". " in text else text)
        if code == "zh-cn":
            entries += [(dt.date(2024, 6, 7), text) for text in originals]
            translations = dict(zip(originals, zh_energy, strict=True))
        dump = build_site_dump(
            site,
            entries,
            stub,
            translations,
            blank_between=code in {"de", "ru"},
            translated_above=frozenset(originals[::2]),
            stub_dot_line=code != "es",
        )
        sites[code] = SiteCase(dump, _save(dump, saving))
    return sites


@pytest.fixture(scope="module")
def sites() -> dict[str, SiteCase]:
    return _build_sites(
        load_rulings(REAL), load_foreign_cards(REAL), load_mh3_energy_translations(REAL)
    )


@pytest.fixture(scope="module")
def site_run(sites: dict[str, SiteCase]) -> tuple[Run, dict[str, pl.DataFrame]]:
    run = run_contents({f"{code}.txt": case.content for code, case in sites.items()})
    return run, run.tables


def _of(frame: pl.DataFrame, case: SiteCase) -> pl.DataFrame:
    rows = frame.filter(pl.col("dump_id") == hashlib.sha256(case.content).hexdigest())
    return rows.sort("line_number") if "line_number" in rows.columns else rows


CODES = list(SITE_LOCALES)


@pytest.mark.parametrize("code", CODES)
def test_every_line_kind(code: str, sites: dict[str, SiteCase], site_run: Any) -> None:
    run, _ = site_run
    lines = _of(run.lines, sites[code])
    assert lines["kind"].to_list() == sites[code].dump.kinds


@pytest.mark.parametrize("code", CODES)
def test_every_date(code: str, sites: dict[str, SiteCase], site_run: Any) -> None:
    _, tables = site_run
    occurrences = _of(tables["ruling_occurrences"], sites[code])
    assert occurrences["published_on"].to_list() == sites[code].dump.dates
    assert occurrences["source"].unique().to_list() == ["wotc"]
    assert occurrences["language"].unique().to_list() == ["en"]


@pytest.mark.parametrize("code", CODES)
def test_stub_values(code: str, sites: dict[str, SiteCase], site_run: Any) -> None:
    _, tables = site_run
    stub = _of(tables["card_stubs"], sites[code]).select("mana_value", "power", "toughness", "text")
    assert stub.rows() == [sites[code].dump.stub]


@pytest.mark.parametrize("code", [c for c in CODES if c != "en"])
def test_stub_and_header_language(code: str, sites: dict[str, SiteCase], site_run: Any) -> None:
    _, tables = site_run
    assert _of(tables["card_stubs"], sites[code])["language"].to_list() == [code]
    dump = _of(tables["dumps"], sites[code])
    assert dump.select("header_language", "claimed_translation_language").row(0) == (
        code,
        code.split("-")[0],
    )
    assert dump["has_claimed_translation"].to_list() == [code == "zh-cn"]


def test_translation_links(sites: dict[str, SiteCase], site_run: Any) -> None:
    _, tables = site_run
    case = sites["zh-cn"]
    occurrences = _of(tables["ruling_occurrences"], case)
    ruling_of_text = dict(occurrences.select("text_raw", "ruling_id").iter_rows())
    translations = _of(tables["ruling_translations"], case)
    assert len(case.dump.translation_of) == 9
    assert dict(translations.select("line_number", "ruling_id").iter_rows()) == {
        line: ruling_of_text[original] for line, original in case.dump.translation_of.items()
    }
    assert translations["language"].unique().to_list() == ["zh-cn"]


def test_encodings_found(sites: dict[str, SiteCase], site_run: Any) -> None:
    _, tables = site_run
    found = {
        path.removesuffix(".txt"): (enc, repair)
        for path, enc, repair in tables["dumps"]
        .select("path", "encoding", "encoding_repair")
        .iter_rows()
    }
    assert found["de"] == ("cp1252", None)
    assert found["pt"] == ("utf-8-sig", None)
    assert found["zh-tw"] == ("utf-16", None)
    assert found["it"] == ("utf-8", "mojibake repaired (ftfy)")
    assert found["fr"] == ("utf-8", None)
