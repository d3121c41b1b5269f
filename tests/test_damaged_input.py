"""Damaged input keeps its good lines: control characters, cut UTF-8, unknown sources."""

from __future__ import annotations

import polars as pl

from flows.pipeline import run_pipeline
from tests.conftest import SEED_DIR, TODAY, dump_of

SEED = (SEED_DIR / "004_304d898eb3c4b8ca.txt").read_bytes()


def _run(*contents: bytes) -> dict[str, pl.DataFrame]:
    raw = pl.DataFrame(
        {"path": [f"{i}.txt" for i in range(len(contents))], "content": list(contents)},
        schema={"path": pl.String, "content": pl.Binary},
    )
    return run_pipeline(raw, TODAY)[1]


def test_cut_utf8_keeps_the_good_lines() -> None:
    # Seed 004 cut inside the "é" of its last line's "début": that line alone is rejected.
    cut = SEED[: SEED.rindex("é".encode()) + 1]
    tables = _run(cut)
    dump = tables["dumps"].row(0, named=True)
    assert (dump["encoding"], dump["encoding_repair"]) == (
        "utf-8",
        "invalid UTF-8 bytes replaced by U+FFFD",
    )
    assert (dump["line_count"], dump["entry_count"], dump["rejected_line_count"]) == (32, 14, 1)
    assert tables["rejects"].select("line_number", "reason", "content").rows() == [
        (32, "line has 1 undecodable byte sequences (shown as U+FFFD)", "Au d\ufffd")
    ]
    stub = tables["card_stubs"].row(0, named=True)
    assert (stub["mana_value"], stub["text"], stub["language"]) == (2.0, None, None)


def test_damaged_body_line_is_rejected_with_its_entry() -> None:
    damaged = SEED.replace(b"Energy counters are a kind", b"Energy counters \xff\xfe a kind")
    tables = _run(damaged)
    # Line 9 is the only body of the entry of line 8: the entry goes to rejects whole.
    assert tables["rejects"].select("line_number", "reason").rows() == [
        (8, "every body line of the entry was rejected (see them below)"),
        (9, "line has 2 undecodable byte sequences (shown as U+FFFD)"),
    ]
    assert tables["dumps"]["rejected_line_count"].to_list() == [2]
    assert tables["ruling_occurrences"].height == 13


def test_control_characters_are_counted_in_the_dump_row() -> None:
    content = dump_of("07 juin 2024 · source : wotc", "{E} is the energy\x07 symbol.\x1b")[
        "content"
    ][0]
    tables = _run(content)
    assert tables["dumps"]["control_char_count"].to_list() == [2]
    assert tables["ruling_occurrences"]["text_raw"].to_list() == ["{E} is the energy symbol."]


def test_unknown_source_is_kept_lowercased() -> None:
    content = dump_of("07 juin 2024 · source : Scryfall", "{E} is the energy symbol.")["content"][0]
    assert _run(content)["ruling_occurrences"]["source"].to_list() == ["scryfall"]
