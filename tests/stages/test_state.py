"""state: the caches and the id registry are saved as one unit."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from flows.stages.state import ParsedFiles, load_state, save_state


def _parsed(dump_ids: list[str]) -> ParsedFiles:
    return ParsedFiles(
        dumps=pl.DataFrame(
            {
                "dump_id": dump_ids,
                "encoding": ["utf-8"] * len(dump_ids),
                "encoding_repair": [None] * len(dump_ids),
                "reject_reason": [None] * len(dump_ids),
            },
            schema={
                "dump_id": pl.String,
                "encoding": pl.String,
                "encoding_repair": pl.String,
                "reject_reason": pl.String,
            },
        ),
        lines=pl.DataFrame({"dump_id": dump_ids, "line_number": [1] * len(dump_ids)}),
    )


def _save(state_dir: Path, dump_ids: list[str], generation: str) -> None:
    registry = pl.DataFrame({"variant_id": dump_ids, "ruling_id": dump_ids})
    languages = pl.DataFrame(
        {"text": ["x"], "language": ["en"], "language_probability": [0.9], "is_reliable": [True]}
    )
    save_state(state_dir, _parsed(dump_ids), languages, registry, generation)


def test_a_save_killed_halfway_leaves_the_previous_state_whole(tmp_path: Path) -> None:
    _save(tmp_path, ["a", "b"], "run1")
    # run2 wrote its parsed dumps, then was killed before the rest and state.json
    _parsed(["a", "b", "c"])["dumps"].write_parquet(tmp_path / "parsed_dumps.run2.parquet")
    loaded = load_state(tmp_path)
    assert loaded["parsed"] is not None
    assert loaded["parsed"]["dumps"]["dump_id"].to_list() == ["a", "b"]
    assert loaded["parsed"]["lines"]["dump_id"].to_list() == ["a", "b"]
    assert loaded["registry"]["variant_id"].to_list() == ["a", "b"]


def test_a_complete_save_replaces_the_previous_one(tmp_path: Path) -> None:
    _save(tmp_path, ["a"], "run1")
    _save(tmp_path, ["a", "c"], "run2")
    assert load_state(tmp_path)["parsed"]["dumps"]["dump_id"].to_list() == ["a", "c"]  # type: ignore[index]
    assert sorted(p.name for p in tmp_path.glob("*.parquet")) == [
        "languages.run2.parquet",
        "parsed_dumps.run2.parquet",
        "parsed_lines.run2.parquet",
        "ruling_ids.run2.parquet",
    ]


def test_no_state_is_a_cold_start(tmp_path: Path) -> None:
    loaded = load_state(tmp_path / "missing")
    assert (
        loaded["parsed"] is None
        and loaded["languages"].is_empty()
        and loaded["registry"].is_empty()
    )
