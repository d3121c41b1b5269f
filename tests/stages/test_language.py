"""language: seeded langdetect, once per distinct text, `und` without letters."""

from __future__ import annotations

import polars as pl

from flows.stages.language import detect_languages, detect_text_language

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

    def counting(text: str) -> tuple[str, float | None]:
        calls.append(text)
        return detect_text_language(text)

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
