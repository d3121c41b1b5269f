"""A header's language and the translation language it claims: the Chinese scripts a
header names (c11's kind) and short headers in a site's language (c08's kind)."""

from __future__ import annotations

import polars as pl
import pytest

from flows.stages.claims import claimed_language, named_code
from tests.conftest import run_contents

R1 = "Energy counters aren't mana. They don't go away as steps, phases, and turns end."
EN_HEAD = "07 Jun 2024 · source: wotc"  # no Han character: the framing names no script
SHARED = ("你不能使用地。", "你可以使用此能力。")  # hanzidentifier: characters of both scripts


@pytest.mark.parametrize(
    ("header", "claimed"),
    [
        ("官方裁定 (zh-TW)", "zh-tw"),
        ("官方裁定 (zh-Hant)", "zh-tw"),
        ("官方裁定 [TW]", "zh-tw"),
        ("官方裁定（TW）", "zh-tw"),
        ("官方裁定【繁中】", "zh-tw"),
        ("官方裁定（繁體中文）", "zh-tw"),
        ("威世智官方裁定（正體中文翻譯）", "zh-tw"),
        ("萬智牌官方裁定 TW翻譯", "zh-tw"),
        ("Official rulings. 繁體中文翻譯 (TW) below.", "zh-tw"),
        ("官方裁定 (zh-CN)", "zh-cn"),
        ("简体中文翻译", "zh-cn"),
        # no script named, or both: Chinese, its script left to the dump's framing
        ("以下中文翻译由人工智能自动生成。", "zh"),
        ("官方裁定，中文翻譯僅供參考。", "zh"),
        ("繁體/简体中文翻譯", "zh"),
        # a script's name does not overrule another language's claim, and a bare TW or
        # Japanese 正体 ("true form") names none
        ("以下の翻訳は自動生成されたものです。正体", "ja"),
        ("官方裁定 TW", None),
        ("官方裁定", None),
    ],
)
def test_a_header_naming_chinese_script_claims_it(header: str, claimed: str | None) -> None:
    assert pl.select(claimed_language(pl.lit(header))).item() == claimed


def test_a_translation_ending_with_a_code_in_brackets_names_no_language() -> None:
    # the script's names are read on header text only: a line ending with `[TW]` stays a
    # translation, never a second page's header
    assert pl.select(named_code(pl.lit("你不能使用地。 [TW]"))).item() is None


@pytest.mark.parametrize(
    "header",
    ["官方裁定 (zh-TW)", "官方裁定 [TW]", "官方裁定【繁中】", "官方裁定（繁體中文）"],
)
def test_c11_a_header_naming_traditional_chinese_makes_its_translations_zh_tw(
    header: str,
) -> None:
    # a probe's find: over an English date line, the header and every translation of
    # characters both scripts share were zh-cn
    content = f"{header}\n{EN_HEAD}\n{R1}\n{SHARED[0]}\n{EN_HEAD}\nX can be zero.\n{SHARED[1]}\n"
    tables = run_contents({"tw.txt": content.encode()}).tables
    dumps = tables["dumps"]
    assert dumps.select("header_language", "claimed_translation_language").row(0) == (
        "zh-tw",
        "zh-tw",
    )
    assert dumps["has_claimed_translation"].to_list() == [True]
    assert tables["ruling_translations"].select("language", "text").rows() == [
        ("zh-tw", SHARED[0]),
        ("zh-tw", SHARED[1]),
    ]


SIMPLIFIED = "从你的牌库中搜寻两张基本地牌并展示之，将其中一张横置进场，另一张置于你手上。"
TRADITIONAL = "在你的維持開始時，抓一張牌。"


@pytest.mark.parametrize(
    ("header", "text", "language", "claim_met"),
    [
        ("官方裁定 (zh-TW)", SIMPLIFIED, "zh-cn", False),
        ("官方裁定 [TW]", SIMPLIFIED, "zh-cn", False),
        ("Official rulings [TW]", SIMPLIFIED, "zh-cn", False),
        ("官方裁定 (zh-CN)", TRADITIONAL, "zh-tw", False),
        ("官方裁定 (zh-TW)", TRADITIONAL, "zh-tw", True),
    ],
)
def test_a_translation_in_one_script_keeps_it_whatever_the_header_names(
    header: str, text: str, language: str, claim_met: bool
) -> None:
    # a review's find: a claimed script relabelled translations of characters only the
    # other script has (24 of 102 probes); the claim decides only shared characters
    content = f"{header}\n{EN_HEAD}\n{R1}\n{text}\n"
    tables = run_contents({"one.txt": content.encode()}).tables
    assert tables["ruling_translations"].select("language", "text").rows() == [(language, text)]
    assert tables["dumps"]["has_claimed_translation"].to_list() == [claim_met]


SITE_HEADS = {
    "fr": "07 juin 2024 · source : wotc",
    "de": "7. Juni 2024 · Quelle: wotc",
    "es": "7 de junio de 2024 · fuente: wotc",
    "pt": "7 de junho de 2024 · fonte: wotc",
    "en": "June 7, 2024 · source: wotc",
}
SITE_TRANSLATIONS = {
    "fr": "X peut valoir zéro.",
    "de": "X kann null sein.",
    "es": "X puede ser cero.",
    "pt": "X pode ser zero.",
}


def _header_languages(headers: list[tuple[str, str]]) -> list[str]:
    """The published header_language of one dump per (site language, header)."""
    contents = {
        f"{i:02d}.txt": "\n".join(
            [header, SITE_HEADS[site], "X can be zero.", SITE_TRANSLATIONS.get(site, R1)]
        ).encode()
        for i, (site, header) in enumerate(headers)
    }
    dumps = run_contents(contents).tables["dumps"].sort("path")
    return dumps["header_language"].to_list()


def test_c08_a_short_header_whose_words_are_not_english_is_undetermined() -> None:
    # a probe's find: these short headers were en (9 of 38): langdetect or the words'
    # weighing cannot tell them, and English was the default
    headers = [
        ("fr", "Clarifications officielles"),
        ("fr", "CLARIFICATIONS OFFICIELLES"),
        ("fr", "Rulings officiels"),
        ("es", "Rulings oficiales"),
        ("pt", "Rulings oficiais"),
    ]
    assert _header_languages(headers) == ["und"] * len(headers)


def test_short_headers_read_right_keep_their_language() -> None:
    headers = [
        ("en", "Official rulings"),
        ("en", "Rulings"),
        ("en", "Tarmogoyf rulings"),  # a name English does not know counts neither way
        ("en", "Rulings: Ragavan, Nimble Pilferer"),
        ("fr", "Clarifications"),  # an English word too: en, as before
        ("fr", "Clarifications officielles (FR)"),  # the claim decides
        ("de", "Offizielle Rulings"),
        ("de", "Klarstellungen"),
        ("es", "Aclaraciones oficiales"),
    ]
    assert _header_languages(headers) == ["en"] * 5 + ["fr", "de", "de", "es"]


def test_short_english_headers_with_names_no_language_knows_stay_english() -> None:
    # a review's find: any lowercase word English does not know made these und (14 of
    # ~150 English headers), and the stubs under them followed; a name or a site is no
    # evidence of another language, nor is a German compound wordfreq does not hold
    headers = [
        ("en", "ragavan rulings"),
        ("en", "tarmogoyf"),
        ("en", "rulings via scryfall"),
        ("en", "Rulings from scryfall.com"),
        ("en", "moxfield"),
        ("en", "Rullings"),
        ("en", "Rulings pasted by u/mtgfan"),
        ("de", "Regelklarstellungen"),  # left: no list holds it, en as before
        # a second review's find: a card's name holding a French or Spanish word
        ("en", "Rulings for Ajani Vengeant"),
        ("en", "Rulings: Belbe's Percher"),
        ("en", "Rulings: Niv-Mizzet, Parun"),
        ("en", "Rulings: Burning Palm Efreet"),
    ]
    assert _header_languages(headers) == ["en"] * len(headers)
