"""language: seeded langdetect, once per distinct text, `und` without letters."""

from __future__ import annotations

import functools
import gzip

import polars as pl
import pytest
import wordfreq
from langdetect import detector_factory
from langdetect.lang_detect_exception import LangDetectException
from polars.testing import assert_frame_equal

from flows.processes import pools
from flows.stages import detector, language, word_scores
from flows.stages.detector import (
    Probe,
    detect_languages,
    detect_text_language,
    han_script,
    probe_texts,
)
from flows.stages.language import (
    dump_context_languages,
    framing_scripts,
    settle_is_inferred,
    settle_language,
    with_comparison_key,
    with_language,
)
from tests.conftest import REAL_DATA, REPO, needs_real_data

RAW = REPO / "raw"

ENGLISH = "Energy counters are a kind of counter that a player may have. They're not associated with any specific permanents."
FRENCH = "Au début du combat pendant votre tour, vous pouvez payer"
HEADER = "Clarifications officielles de Wizards of the Coast. La traduction FR ci-dessous est générée automatiquement (IA) — l'original anglais reste la source de vérité."
GERMAN = (
    "Jeder Spieler kann nicht mehr als zwei bleibende Karten während seiner Enttap-Phase enttappen."
)


def test_unambiguous_sentences() -> None:
    found = detect_languages(pl.Series([ENGLISH, FRENCH, HEADER, GERMAN, "1/3 — 2/2 · 7"]))
    assert dict(found.select("text", "language").iter_rows()) == {
        ENGLISH: "en",
        FRENCH: "fr",
        HEADER: "fr",
        GERMAN: "de",
        "1/3 — 2/2 · 7": "und",
    }
    assert found.filter(pl.col("language") == "und")["language_probability"].to_list() == [None]
    assert (found.filter(pl.col("language") != "und")["language_probability"] > 0.9).all()


def test_called_once_per_distinct_text_with_letters() -> None:
    calls: list[str] = []

    def counting(texts: list[str]) -> list[Probe]:
        calls.extend(texts)
        return probe_texts(texts)

    found = detect_languages(pl.Series([ENGLISH, FRENCH, ENGLISH, None, "7", ENGLISH]), counting)
    assert sorted(calls) == sorted([ENGLISH, FRENCH])
    assert found.height == 3


def test_seeded_results_repeat_in_any_order() -> None:
    texts = pl.Series(["Vol", "Piétinement", "Haste", ENGLISH, FRENCH])
    assert detect_languages(texts).equals(detect_languages(texts.reverse()))
    assert detect_text_language("Piétinement") == detect_text_language("Piétinement")


def test_a_quoted_card_name_in_another_script_does_not_change_the_language() -> None:
    text = (
        "If 牙長獣の仔 leaves the battlefield, you can't pay any {E} for its last ability anymore."
    )
    assert detect_text_language(text)[0] == "en"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("Razorfield Ripperの能力は解決時に数える。", "ja"),  # an English card name kept
        ("Razorfield Ripper는 공격할 수 있습니다.", "ko"),
        ("Razorfield Ripper 공식 판정입니다. 아래 KR 번역은 AI 자동 번역입니다.", "ko"),
        ("如果Aurora Shifter复制了Razorfield Ripper，它就具有Reconfigure。", "zh-cn"),  # names only
        ("X为0。", "zh-cn"),
        ("The 剃刀野の切り裂き魔 token is an Equipment.", "en"),  # English words, a CJK name
        ("Бросьте d20.", "ru"),  # was fr: its `d` a French word
        ("{T}: бросьте d20.", "ru"),
    ],
)
def test_a_text_in_another_script_with_latin_letters_keeps_its_language(
    text: str, language: str
) -> None:
    assert detect_text_language(text)[0] == language


def test_cjk_by_script() -> None:
    assert (
        [
            detect_text_language(t)[0]
            for t in (
                "能量指示物是玩家可具有的一种指示物。",  # real MH3 release notes: langdetect alone says ko
                "能量指示物是玩家可具有的一種指示物。",
                "エネルギー・カウンターはプレイヤーが持つカウンターです。",
                "에너지 카운터는 플레이어가 가질 수 있는 카운터입니다.",
            )
        ]
        == ["zh-cn", "zh-tw", "ja", "ko"]
    )


def test_neighbours_are_settled_by_the_dumps_context() -> None:
    pairs = pl.DataFrame(
        {
            "detected": ["es", "bg", "it", "zh", "zh", "zh-cn", "es", "de", "en"],
            "context": ["pt", "ru", "es", "zh-tw", None, "ja", None, "fr", "fr"],
        }
    )
    settled = pairs.select(
        language=settle_language(pl.col("detected"), pl.col("context")),
        inferred=settle_is_inferred(pl.col("detected"), pl.col("context")),
    )
    assert settled["language"].to_list() == [
        "pt", "ru", "es", "zh-tw", "zh-cn", "ja", "es", "de", "en"
    ]  # fmt: skip
    assert settled["inferred"].to_list() == [
        True,
        True,
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]


def test_a_comparison_key_found_beforehand_gives_the_languages_found_here() -> None:
    stubs = pl.DataFrame({
        "dump_id": ["a", "b", "c", "d"],
        "text": ["Le  sort\u00ad est copi\u00e9.", None, "When it dies", "Le sort est copié."],
    })  # fmt: skip
    languages = pl.DataFrame({
        "text": ["Le sort est copié.", "When it dies"], "language": ["fr", "en"],
        "language_probability": [0.99, 0.6], "is_reliable": [True, False],
    })  # fmt: skip
    keyed = with_comparison_key(stubs, "text", "text_key")
    assert keyed["text_key"].to_list() == [
        "Le sort est copié.", None, "When it dies", "Le sort est copié."
    ]  # fmt: skip
    prior = pl.lit("de")
    expected = pl.DataFrame({
        "dump_id": ["a", "b", "c", "d"],
        "text": stubs["text"],
        "language": ["fr", "de", "de", "fr"],
        "language_probability": [0.99, None, None, 0.99],
        "language_is_inferred": [False, None, True, False],
    })  # fmt: skip
    found_here = with_language(stubs, "text", languages, prior=prior)
    assert_frame_equal(found_here.select(expected.columns), expected)
    assert_frame_equal(with_language(keyed, "text", languages, prior=prior, key="text_key"),
                       found_here)  # fmt: skip


def test_han_script_of_a_dumps_framing_lines() -> None:
    assert (
        han_script("以下為威世智官方裁定，TW翻譯由人工智慧自動產生。 2024年6月7日 · 來源：wotc")
        == "zh-tw"
    )
    assert han_script("威世智官方规则释疑。以下ZH译文为机器自动生成。") == "zh-cn"
    assert han_script("Clarifications officielles") is None


def test_a_dumps_framing_is_read_by_its_han_characters_as_han_script_reads_them() -> None:
    every_character = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    kept = pl.Series([every_character]).str.replace_all(language._NOT_HAN, "")[0]
    assert kept == "".join(detector.HAN_CHARACTER.findall(every_character))  # the same characters
    resolved = pl.DataFrame({
        "dump_id": ["tw", "tw", "cn", "cn", "none"],
        "line": ["以下為官方裁定", "來源：wotc", "以下为官方裁定", "来源：wotc", "Rulings"],
        "kind": ["header", "date_source", "header", "date_source", "header"],
    })  # fmt: skip
    headers = pl.DataFrame({
        "dump_id": ["tw", "cn", "none"], "claimed_translation_language": ["zh", "zh", "zh"],
        "header_text": ["以下為官方裁定", "以下为官方裁定", "Rulings"],
    })  # fmt: skip
    framing = framing_scripts(resolved, headers)
    assert framing.sort("dump_id").rows() == [("cn", "zh-cn"), ("none", None), ("tw", "zh-tw")]
    dumps = headers.join(framing, on="dump_id", maintain_order="left").with_columns(
        header_language=pl.Series(["zh-tw", "zh-cn", "en"])
    )
    assert dump_context_languages(dumps).rows() == [
        ("tw", "zh-tw"), ("cn", "zh-cn"), ("none", None)
    ]  # fmt: skip


def test_an_all_caps_text_is_read_case_folded() -> None:
    header = "ACLARACIONES OFICIALES DE WIZARDS OF THE COAST. TRADUCCIÓN AL ESPAÑOL (ES) GENERADA AUTOMÁTICAMENTE."
    assert detect_text_language(header)[:3:2] == ("es", True)


def test_symbols_are_no_evidence() -> None:
    assert detect_text_language("{T}: Agrega {G}{G}{G}.")[::2] == ("es", True)  # langdetect: tl


@needs_real_data
def test_real_english_rulings_are_never_reliably_another_language() -> None:
    texts = (
        pl.read_ndjson(REAL_DATA / "derived" / "mtgjson_v5_rulings.jsonl")["comment"]
        .unique()
        .sort()
        .sample(400, seed=11)
        .str.split("\n")
        .explode()
    )
    found = detect_languages(texts)
    foreign = found.filter((pl.col("language") != "en") & pl.col("is_reliable"))
    assert foreign.height == 0, foreign.rows()[:5]


@needs_real_data
def test_real_foreign_card_texts_are_found_in_their_language() -> None:
    cards = pl.read_ndjson(
        gzip.decompress((REAL_DATA / "derived" / "mtgjson_v5_foreign_cards.jsonl.gz").read_bytes()),
        infer_schema_length=None,
    )
    expected = {"French": "fr", "German": "de", "Spanish": "es", "Italian": "it", "Russian": "ru"}
    sample = (
        cards.filter(pl.col("language").is_in(list(expected)) & pl.col("text").is_not_null())
        .with_columns(pl.col("text").str.replace_all(r"\s+", " "))
        .unique(["language", "text"])
        .sort("language", "text")
        .group_by("language", maintain_order=True)
        .agg(pl.col("text").sample(40, seed=11))
        .explode("text")
    )
    found = sample.join(detect_languages(sample["text"]), on="text")
    right = found.filter(
        pl.col("is_reliable") & (pl.col("language_right") == pl.col("language").replace(expected))
    )
    assert right.height >= 0.97 * sample.height


def _langdetect_probabilities(text: str) -> dict[str, float]:
    """langdetect's own `Detector` seeded with 0, the reference for `probe_texts`' probabilities."""
    detector_factory.init_factory()  # langdetect's own global factory
    own = detector_factory._factory.create()
    own.seed = 0  # DetectorFactory.seed = 0
    own.append(text)
    try:
        own.get_probabilities()
    except LangDetectException:
        return {}
    return {lang: p for lang, p in zip(own.langlist, own.langprob, strict=True) if p > 0}


@needs_real_data
def test_probabilities_are_langdetects_to_the_last_bit() -> None:
    cards = pl.read_ndjson(
        gzip.decompress((REAL_DATA / "derived" / "mtgjson_v5_foreign_cards.jsonl.gz").read_bytes()),
        infer_schema_length=None,
    )
    card_texts = (
        cards.select(pl.concat_list("name", "type", "text").alias("text"), "language")
        .explode("text")
        .drop_nulls()
        .unique()
        .sort("language", "text")
        .group_by("language", maintain_order=True)
        .agg(pl.col("text").shuffle(seed=5).head(12))
        .explode("text")["text"]
    )
    rulings = (
        pl.read_ndjson(REAL_DATA / "derived" / "mtgjson_v5_rulings.jsonl")["comment"]
        .unique()
        .sort()
        .sample(60, seed=5)
    )
    seeds = [line for path in sorted(RAW.glob("*")) for line in path.read_text().splitlines()]
    edge = ["", "7", "{T}", "http://example.com x", "a", ENGLISH.upper(), FRENCH]
    texts = [*card_texts, *rulings, *seeds, *edge]
    assert len(texts) > 200 and cards["language"].n_unique() >= 10
    for folded, _, _, probabilities, _ in probe_texts(texts):
        assert probabilities == _langdetect_probabilities(folded), folded


def test_a_process_pool_gives_the_in_process_results(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pools, "PARALLEL_MIN_TEXTS", 20)  # seeded in each worker too
    texts = pl.Series([f"{ENGLISH} {n}" for n in range(20)])
    texts = texts.append(pl.Series([FRENCH, GERMAN, HEADER, "Vol", "Piétinement"]))
    in_process = detect_languages(texts)
    assert {"en", "fr", "de"} <= set(word_scores.held_languages())  # the lists it weighed with
    in_workers = functools.partial(pools.probe_in_workers, processes=2)
    assert detect_languages(texts, in_workers).equals(in_process)
    # the pool's caller weighed the words, then let the lists go (a run detects once)
    assert word_scores.held_languages() == []
    assert not word_scores._SCORES
    assert detect_languages(texts).equals(in_process)  # loaded again, same results


def test_langdetects_half_reads_no_word_list(monkeypatch: pytest.MonkeyPatch) -> None:
    # the workers' half (probe_text) holds no wordfreq list: only the caller's half reads them
    texts = [ENGLISH, FRENCH, GERMAN, HEADER, "Vol", "能量指示物是玩家可具有的一种指示物。", "7"]
    expected = [detect_text_language(text) for text in texts]

    def no_lists(*_: object) -> None:
        raise AssertionError("a word list was read")

    monkeypatch.setattr(wordfreq, "get_frequency_dict", no_lists)
    monkeypatch.setattr(wordfreq, "get_frequency_list", no_lists)
    monkeypatch.setattr(wordfreq, "word_frequency", no_lists)
    monkeypatch.setattr(word_scores, "_HELD", {})  # no list held before
    monkeypatch.setattr(word_scores, "_SCORES", {})  # no word scored before
    probes = [detector.probe_text(text) for text in texts]
    monkeypatch.undo()
    assert [detector.decide_language(probe) for probe in probes] == expected
    assert expected[:2] == [("en", expected[0][1], True), ("fr", expected[1][1], True)]
