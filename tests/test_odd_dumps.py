"""Odd but real-looking dumps: short headers, translations in another language, stubs without text."""

from __future__ import annotations

import polars as pl

from tests.conftest import content_of, run_contents

DATE = "07 juin 2024 · source : wotc"
ENERGY = "{E} is the energy symbol. It represents one energy counter."
MANA = "Energy counters aren't mana. They don't go away as steps, phases, and turns end."
GERMAN = (
    "Energiezähler sind kein Mana. Sie verschwinden nicht, wenn Schritte, Phasen und Züge enden."
)


def _tables(*lines: str) -> dict[str, pl.DataFrame]:
    return run_contents({"t.txt": content_of(*lines)}).tables


def test_a_short_header_takes_the_language_it_claims() -> None:
    tables = _tables("Traduction FR.", DATE, ENERGY, "CMC 2F/E 1/3", ".", "Vol, vigilance")
    dump = tables["dumps"].row(0, named=True)
    assert (dump["header_language"], dump["header_language_is_inferred"]) == ("fr", True)
    stub = tables["card_stubs"].row(0, named=True)
    assert (stub["text"], stub["language"], stub["language_is_inferred"]) == (
        "Vol, vigilance",
        "fr",
        True,
    )


def test_a_translation_in_another_language_than_claimed_is_still_a_translation() -> None:
    tables = _tables(
        "Clarifications officielles. La traduction FR ci-dessous est automatique.",
        DATE,
        MANA,
        GERMAN,
    )
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [MANA]
    translation = tables["ruling_translations"].select("line_number", "language", "text")
    assert translation.rows() == [(4, "de", GERMAN)]
    assert tables["dumps"]["has_claimed_translation"].to_list() == [False]


def test_a_stub_without_text_has_no_language() -> None:
    stub = _tables(DATE, ENERGY, "CMC 3", ".")["card_stubs"].row(0, named=True)
    assert (stub["text"], stub["language"], stub["language_is_inferred"], stub["is_truncated"]) == (
        None,
        None,
        False,
        True,
    )
