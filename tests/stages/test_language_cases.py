"""Language labels on the real-world cases c05–c11 (`../shared/cases/realworld/CASES.md`)."""

from __future__ import annotations

import polars as pl
import pytest

from flows.stages.claims import claimed_language
from flows.stages.detector import detect_text_language
from flows.stages.language import label_line_languages, mark_translations
from tests.conftest import CASES_DIR as CASES
from tests.conftest import content_of, needs_cases, run_contents

R1 = "Energy counters aren't mana. They don't go away as steps, phases, and turns end."


def tables_of(case: str) -> dict[str, pl.DataFrame]:
    """The validated tables of one case dump."""
    return run_contents({case: (CASES / case).read_bytes()}).tables


@needs_cases
def test_c05_english_rulings_stay_english() -> None:
    tables = tables_of("c05_english_misread.txt")
    assert tables["rulings"].sort("text")["language"].to_list() == ["en", "en"]
    assert tables["ruling_translations"].height == 0
    regicide = tables["rulings"].filter(pl.col("text").str.starts_with("Regicide"))
    # langdetect says ca: no word evidence for it, so English by default, inferred, no probability
    assert regicide.select("language_is_inferred", "language_probability").row(0) == (True, None)


@needs_cases
def test_c06_two_english_lines_are_one_ruling() -> None:
    tables = tables_of("c06_two_line_english.txt")
    assert tables["rulings"]["text"].to_list() == [
        "X can be zero to destroy no lands.\nIf X is 0, the spell still resolves, "
        "but no lands are destroyed and nothing else happens."
    ]
    assert tables["ruling_translations"].height == 0


@needs_cases
def test_c07_a_short_translation_is_separated() -> None:
    tables = tables_of("c07_short_translation.txt")
    assert tables["rulings"].select("text", "language").rows() == [("X can be zero.", "en")]
    assert tables["ruling_translations"].select("language", "text").rows() == [
        ("fr", "X peut valoir zéro.")
    ]


@needs_cases
def test_c08_an_all_caps_header_is_read_in_its_language() -> None:
    dumps = tables_of("c08_caps_header_es.txt")["dumps"]
    assert dumps.select(
        "header_language", "claimed_translation_language", "has_claimed_translation"
    ).row(0) == ("es", "es", True)


@needs_cases
def test_c09_portuguese_translation_is_pt() -> None:
    tables = tables_of("c09_pt_translation.txt")
    assert tables["ruling_translations"]["language"].to_list() == ["pt"]
    assert tables["dumps"].select("claimed_translation_language", "has_claimed_translation").row(
        0
    ) == ("pt", True)


@needs_cases
def test_c10_russian_translation_is_ru() -> None:
    tables = tables_of("c10_ru_translation.txt")
    assert tables["ruling_translations"]["language"].to_list() == ["ru"]
    assert tables["dumps"]["has_claimed_translation"].to_list() == [True]
    assert tables["rulings"]["text"].to_list() == [R1]


@needs_cases
def test_c11_shared_han_characters_take_the_dumps_traditional_script() -> None:
    tables = tables_of("c11_zhtw_shared_chars.txt")
    assert detect_text_language("你不能使用地。")[0] == "zh"  # hanzidentifier: BOTH
    assert tables["ruling_translations"].select("language", "text").rows() == [
        ("zh-tw", "你不能使用地。")
    ]
    assert tables["dumps"]["has_claimed_translation"].to_list() == [True]


@pytest.mark.parametrize(
    ("header", "claimed"),
    [
        ("La traduction FR ci-dessous est générée automatiquement (IA).", "fr"),
        ("TRADUCCIÓN AL ESPAÑOL (ES) GENERADA AUTOMÁTICAMENTE.", "es"),
        ("Die DE-Übersetzung unten wurde automatisch erstellt.", "de"),
        ("以下のJA翻訳は自動生成されたものです。", "ja"),
        ("以下の翻訳は自動生成されたものです。", "ja"),
        ("以下為威世智官方裁定，TW翻譯由人工智慧自動產生。", "zh-tw"),
        ("A tradução BR abaixo é automática.", "pt"),
        ("아래 KO 번역은 자동으로 생성되었습니다.", "ko"),
        ("ACLARACIONES OFICIALES DE WIZARDS OF THE COAST.", None),  # DE: Spanish "of"
        ("PLEASE READ IT BEFORE POSTING", None),
        ("Official rulings<BR>reproduced as published", None),
        ("Rulings for [CN2] Commander Legends", None),
        ("TRADUCCIÓN DE WIZARDS OF THE COAST", None),
        # all capitals, a code that is no word (a fresh review found these unclaimed)
        ("ESCLARECIMENTOS OFICIAIS DA WIZARDS. TRADUÇÃO PT ABAIXO.", "pt"),
        ("ESCLARECIMENTOS OFICIAIS. TRADUÇÃO PT-BR ABAIXO.", "pt"),
        # a code after its own language's word for translation (c08's kind)
        ("CHIARIMENTI UFFICIALI. TRADUZIONE IT GENERATA AUTOMATICAMENTE.", "it"),
        ("OFFIZIELLE ERLÄUTERUNGEN. ÜBERSETZUNG DE AUTOMATISCH ERSTELLT.", "de"),
        # the language named beside its own word for translation, no code
        # (`claims.LANGUAGE_NAMES`; c09's kind)
        ("La traduction française ci-dessous est automatique.", "fr"),
        ("Traducción al español generada automáticamente.", "es"),
        ("Die deutsche Übersetzung unten wurde automatisch erstellt.", "de"),
        ("Traduzione italiana generata automaticamente.", "it"),
        ("Tradução para o português gerada automaticamente.", "pt"),
        ("Русский перевод создан автоматически.", "ru"),
        ("以下の日本語訳は自動生成されました。", "ja"),
        ("以下中文翻译由人工智能自动生成。", "zh"),
        ("以下繁體中文翻譯由人工智慧自動產生。", "zh-tw"),
        ("아래 한국어 번역은 자동으로 생성되었습니다.", "ko"),
        ("Tradução para o português (versão em español disponível)", "pt"),
        ("中文翻譯，原文為日本語", "zh"),
        # a name beside another language's word claims nothing (a review's finds: each
        # claimed that language, and English lines such as `Menace.` became translations)
        ("Official rulings. The German translation below is automatic.", None),
        ("Official rulings, translated from French by our volunteers.", None),
        ("No Spanish translation is available for this page.", None),
        ("Traducción del italiano.", None),
        ("Official rulings (French site)\nTranslation by DeepL", None),
        ("Official rulings from Wizards of the Coast, in English.", None),  # no translating
        ("Переверните эту карту.", None),  # `перев` (flip), no language named
        # forms a probe found unclaimed (c08 and c09's kinds): a region after the code, a
        # colon before it, a plural, a participle, `TRADUCCIÓN ES`
        ("Esclarecimentos oficiais — tradução automática (PT-BR).", "pt"),
        ("Official rulings, machine translated (pt-BR).", "pt"),
        ("Aclaraciones oficiales (ES-MX)", "es"),
        ("Clarifications officielles (fr-FR)", "fr"),
        ("官方裁定 (zh-TW)", "zh-tw"),
        ("Traducción: ES", "es"),
        ("Clarifications officielles de Wizards of the Coast. Traduction : FR (IA).", "fr"),
        ("Übersetzung: DE (KI)", "de"),
        ("Перевод: RU", "ru"),
        ("Translation: FR (machine)", "fr"),
        ("Traductions FR générées automatiquement.", "fr"),
        ("Traduzioni IT generate automaticamente.", "it"),
        ("Traduit automatiquement en français.", "fr"),
        ("Traducido automáticamente al español.", "es"),
        ("Automatisch ins Deutsche übersetzt.", "de"),
        ("Tradotto automaticamente in italiano.", "it"),
        ("Traduzido automaticamente para o português.", "pt"),
        ("Переведено автоматически на русский язык.", "ru"),
        ("ACLARACIONES OFICIALES DE WIZARDS OF THE COAST. TRADUCCIÓN ES GENERADA.", "es"),
        ("以下為官方裁定，繁中翻譯由人工智慧產生。", "zh-tw"),
        ("官方裁定。翻譯：繁體中文", "zh-tw"),
        ("공식 판정. 번역: 한국어", "ko"),
        # forms a second probe found unclaimed (c08, c09 and c10's kinds): Russian's own
        # noun (`перевод на русский`), a colon before the name, `vers le`, `in lingua`,
        # `auf Deutsch`, `한국어로`, `翻译成`
        ("Официальные разъяснения. Перевод на русский язык создан автоматически (ИИ).", "ru"),
        ("Traduction : français", "fr"),
        ("Übersetzung: Deutsch", "de"),
        ("Tradução: português", "pt"),
        ("Перевод: русский", "ru"),
        ("Traduction automatique vers le français", "fr"),
        ("Traduzido automaticamente para português", "pt"),
        ("Traduzione in lingua italiana", "it"),
        ("Automatisch auf Deutsch übersetzt", "de"),
        ("한국어로 번역됨", "ko"),
        ("翻译成中文", "zh"),
        ("Clarifications officielles [MB1]", None),  # a set code
        # a review's finds: a language not translated into, a code in brackets (a
        # translation ending with `[FR]` became a second page's header)
        ("Traduction non disponible en français.", None),
        ("Traducción no disponible en español.", None),
        ("Übersetzung aus dem Deutschen ins Englische.", None),
        ("Перевод с русского на английский.", None),
        ("Перевод пока не на русском.", None),
        ("Langues : [EN] [FR] [DE] [ES]", None),
        # still none: a code that is a word, a language translated from, no code, a
        # lowercase code (a review's finds: `translation ko-fi link`, `Translation pt-BR
        # coming soon` claimed ko and pt)
        ("La traduction fr ci-dessous est automatique.", None),
        ("Community translation ko-fi link below.", None),
        ("The translation it gives is automatic.", None),
        ("La traducción es automática.", None),
        ("Traduit du néerlandais par nos bénévoles.", None),
        ("Übersetzung: ja, automatisch.", None),
    ],
)
def test_a_claimed_language_needs_a_translation_context(header: str, claimed: str | None) -> None:
    found = pl.select(claimed_language(pl.lit(header))).item()
    assert found == claimed


@pytest.mark.parametrize(
    "english",
    [
        "Regicide can't target colorless creatures.",  # langdetect: ca
        "This is not optional.",  # langdetect on the generated corpus: de
        "X can be zero to destroy no lands.",  # langdetect: es
        "Sliver Queen, Sliver Overlord, Sliver Legion",  # langdetect: da, p ~1
        "Yes, it does.",  # langdetect: af 0.571
    ],
)
def test_english_is_never_reliably_another_language(english: str) -> None:
    language, _, is_reliable = detect_text_language(english)
    assert language == "en" or not is_reliable


def test_yes_it_does_is_published_english_without_afrikaans_probability() -> None:

    tables = run_contents(
        {
            "t.txt": content_of(
                "Clarifications officielles de Wizards of the Coast. La traduction FR ci-dessous.",
                "07 juin 2024 · source : wotc",
                "Yes, it does.",
            )
        }
    ).tables
    assert tables["rulings"].select("language", "language_probability", "language_is_inferred").row(
        0
    ) == ("en", None, True)
    assert tables["ruling_variants"].select("language", "language_is_inferred").row(0) == (
        "en",
        True,
    )


def test_a_line_of_card_names_stays_in_its_english_ruling() -> None:
    tables = run_contents(
        {
            "t.txt": content_of(
                "Clarifications officielles de Wizards of the Coast. La traduction FR ci-dessous.",
                "07 juin 2024 · source : wotc",
                "Each of these Slivers has a different ability:",
                "Sliver Queen, Sliver Overlord, Sliver Legion",
                "Die Karte kann nicht mehr als zwei bleibende Karten enttappen lassen.",
            )
        }
    ).tables
    assert tables["rulings"]["text"].to_list() == [
        "Each of these Slivers has a different ability:\nSliver Queen, Sliver Overlord, Sliver Legion"
    ]
    # a German line under a header that claims French is still no part of the English ruling
    assert tables["ruling_translations"]["language"].to_list() == ["de"]
    assert tables["dumps"]["has_claimed_translation"].to_list() == [False]


def test_close_calls_without_a_claim_take_the_dumps_most_common_foreign_language() -> None:
    head = "June 7, 2024 · source: wotc"
    lines = pl.DataFrame(
        {
            "dump_id": ["d"] * 10,
            "line_number": list(range(1, 11)),
            "line": ["Official rulings.", head, "E1", "P1", head, "E2", "P2", head, "E3", "P3"],
            "kind": ["header"] + ["date_source", "body", "body"] * 3,
            "entry_line": [None, 2, 2, 2, 5, 5, 5, 8, 8, 8],
        }
    )
    languages = pl.DataFrame(
        {
            "text": ["E1", "E2", "E3", "P1", "P2", "P3"],
            "language": ["en", "en", "en", "pt", "es", "pt"],  # P2: pt-BR that langdetect reads es
            "language_probability": [0.99, 0.99, 0.99, 0.98, 0.97, 0.96],
            "is_reliable": [True] * 6,
        }
    )
    dumps = pl.DataFrame(
        {
            "dump_id": ["d"],
            "header_language": ["en"],
            "claimed_translation_language": [None],
            "framing_script": [None],
        },
        schema_overrides={"claimed_translation_language": pl.String, "framing_script": pl.String},
    )
    labelled = mark_translations(label_line_languages(lines, languages, dumps))
    translations = labelled.filter(pl.col("kind") == "translation")
    assert translations.select(
        "line", "language", "language_is_inferred", "language_probability"
    ).rows() == [("P1", "pt", False, 0.98), ("P2", "pt", True, None), ("P3", "pt", False, 0.96)]
    originals = labelled.filter(pl.col("kind") == "body")
    assert originals.select("line", "language", "language_is_inferred").rows() == [
        ("E1", "en", False),
        ("E2", "en", False),
        ("E3", "en", False),
    ]
    # one pt and one es line tie: no context, each keeps its own language
    tied = label_line_languages(lines.filter(pl.col("line") != "P3"), languages, dumps)
    assert tied.filter(pl.col("line").is_in(["P1", "P2"]))["language"].to_list() == ["pt", "es"]


TRADITIONAL = "能量指示物不是法術力。它們不會在步驟、階段和回合結束時消失。"  # 們 會 術 驟 階
TW_HEAD = "2024年6月7日 · 來源：wotc"  # 來源: Traditional


@pytest.mark.parametrize(
    "header",
    # `萬智牌・官方裁定`: a second probe's find, `・` (U+30FB) counted as kana, and the
    # header and every translation of characters both scripts share were ja (9 of 9)
    ["官方裁定", "威世智官方裁定", "MTG官方裁定", "官方裁定（中文）", "萬智牌・官方裁定"],
)
def test_c11_a_header_of_shared_characters_takes_its_date_lines_traditional_script(
    header: str,
) -> None:
    # a probe's find: such a header was zh-cn and turned every translation zh-cn,
    # Traditional-only characters and all
    content = (
        f"{header}\n{TW_HEAD}\n{R1}\n{TRADITIONAL}\n{TW_HEAD}\nX can be zero.\n你不能使用地。\n"
    )
    tables = run_contents({"tw.txt": content.encode()}).tables
    assert tables["dumps"]["header_language"].to_list() == ["zh-tw"]
    assert tables["ruling_translations"].select("language", "text").rows() == [
        ("zh-tw", TRADITIONAL),
        ("zh-tw", "你不能使用地。"),
    ]


def test_a_simplified_dump_of_shared_header_characters_stays_zh_cn() -> None:
    content = f"官方裁定\n2024年6月7日 · 来源：wotc\n{R1}\n能量指示物不是法术力。\n"
    tables = run_contents({"cn.txt": content.encode()}).tables
    assert tables["dumps"]["header_language"].to_list() == ["zh-cn"]
    assert tables["ruling_translations"].select("language", "text").rows() == [
        ("zh-cn", "能量指示物不是法术力。")
    ]


@pytest.mark.parametrize(
    ("line", "ruling", "translation"),
    [
        ("Draw three cards. / 抽三張牌。", "Draw three cards.", ("zh-tw", "抽三張牌。")),
        ("Does not target. / 不指定目標。", "Does not target.", ("zh-tw", "不指定目標。")),
        ("X can be zero. | X可以為0。", "X can be zero.", ("zh-tw", "X可以為0。")),
    ],
)
def test_r06_a_short_chinese_half_is_split_under_a_chinese_claim(
    line: str, ruling: str, translation: tuple[str, str]
) -> None:
    # a probe's find: the claim is "zh" and the half zh-tw, so no claim matched it and
    # the line was one English ruling
    header = "以下為威世智官方裁定，TW翻譯由人工智慧自動產生。"
    tables = run_contents({"tw.txt": f"{header}\n{TW_HEAD}\n{line}\n".encode()}).tables
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [ruling]
    assert tables["ruling_translations"].select("language", "text").rows() == [translation]


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("Magic: The Gathering — Clarifications officielles (FR)", "fr"),
        ("MTG — Chiarimenti ufficiali (IT)", "it"),
        ("Magic The Gathering: aclaraciones oficiales (ES)", "es"),
    ],
)
def test_c08_the_games_name_is_no_evidence_of_a_headers_language(
    header: str, language: str
) -> None:
    # a probe's find: the game's English name outweighed a short header's own words (en)
    content = f"{header}\nJune 7, 2024 · source: wotc\n{R1}\n"
    dumps = run_contents({"h.txt": content.encode()}).tables["dumps"]
    assert dumps.select("header_language", "claimed_translation_language").row(0) == (
        language,
        language,
    )


@needs_cases
@pytest.mark.parametrize("reference", ["(704.5j)", "(704.5k)", "CR 702.19c"])
def test_c06_a_rule_reference_line_stays_in_its_english_ruling(reference: str) -> None:
    # a probe's find: `j` after a digit was a French word, `(704.5k)` reliably Czech
    header = (CASES / "c07_short_translation.txt").read_text(encoding="utf-8").splitlines()[0]
    ruling = (
        "Two or more legendary permanents with the same name are put into their owners’ graveyards."
    )
    content = f"{header}\n07 juin 2024 · source : wotc\n{ruling}\n{reference}\n"
    tables = run_contents({"fr.txt": content.encode()}).tables
    assert tables["rulings"]["text"].to_list() == [f"{ruling}\n{reference}"]
    assert tables["ruling_translations"].height == 0


FR_R1 = "Les marqueurs d'énergie ne sont pas du mana."
FR_HEAD = "07 juin 2024 · source : wotc"


@pytest.mark.parametrize(
    "line",
    [
        f"{FR_R1} / {R1}",  # the translation first
        f"{FR_R1} | {R1}",
        f"{R1}\t{FR_R1}\t",  # a table row's last tab
        f"| {R1} | {FR_R1} |",  # Markdown's row
        f"{R1} // {FR_R1}",
        f"{R1}／{FR_R1}",
        f"{R1} ｜ {FR_R1}",
    ],
    ids=["translation first", "first, a bar", "a final tab", "Markdown", "//", "／", "｜"],
)
def test_r06_a_ruling_and_its_translation_on_one_line_in_other_forms(line: str) -> None:
    # a probe's find: 0 of 300 lines with the translation first were split (80 published
    # as a fr ruling, the English one lost), nor any with a final tab, `//`, `／` or `｜`
    header = "Clarifications officielles de Wizards of the Coast. La traduction FR ci-dessous."
    tables = run_contents({"fr.txt": f"{header}\n{FR_HEAD}\n{line}\n".encode()}).tables
    assert tables["ruling_occurrences"].select("text_raw", "language").rows() == [(R1, "en")]
    assert tables["ruling_translations"].select("language", "text").rows() == [("fr", FR_R1)]


@pytest.mark.parametrize("header", ["公式裁定・日本語訳", "公式裁定・日本語訳（機械翻訳）"])
def test_a_japanese_header_of_kanji_that_claims_japanese_is_ja(header: str) -> None:
    # a review's find: with `・` no kana, such headers read as Chinese, their framing too
    content = f"{header}\n2024年6月7日 · 出典：wotc\n{R1}\n"
    tables = run_contents({"ja.txt": content.encode()}).tables
    assert tables["dumps"].select("header_language", "claimed_translation_language").rows() == [
        ("ja", "ja")
    ]
