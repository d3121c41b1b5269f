"""state: saved as one generation, checked by sha256 on load, with a fallback and a cold start."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from flows.disk import cache_keys
from flows.disk.generation import discard_state, save_state, stage_parse_cache, stage_state
from flows.disk.state import load_state
from flows.disk.state_files import state_schemas
from flows.stages.parse import PARSED_DUMP_SCHEMA, ParsedFiles
from tests.conftest import REPO


def _parsed(dump_ids: list[str]) -> ParsedFiles:
    return ParsedFiles(
        dumps=pl.DataFrame(
            {
                "dump_id": dump_ids,
                "encoding": ["utf-8"] * len(dump_ids),
                "encoding_repair": [None] * len(dump_ids),
                "reject_reason": [None] * len(dump_ids),
            },
            schema=PARSED_DUMP_SCHEMA,
        ),
        lines=_full(
            pl.DataFrame({"dump_id": dump_ids, "line_number": [1] * len(dump_ids)}), "parsed_lines"
        ),
    )


def _full(frame: pl.DataFrame, kind: str) -> pl.DataFrame:
    """`frame` with the other columns of its state file's schema, null (as this code writes it)."""
    schema = state_schemas()[kind]
    missing = [pl.lit(None, t).alias(c) for c, t in schema.items() if c not in frame.columns]
    return frame.with_columns(missing).select(list(schema))


LANGUAGES = pl.DataFrame(
    {"text": ["x"], "language": ["en"], "language_probability": [0.9], "is_reliable": [True]}
)


def _frames(dump_ids: list[str]) -> tuple[ParsedFiles, pl.DataFrame, pl.DataFrame]:
    registry = pl.DataFrame({"variant_id": dump_ids, "ruling_id": dump_ids})
    return _parsed(dump_ids), LANGUAGES, registry


def _save(state_dir: Path, dump_ids: list[str], generation: str) -> None:
    save_state(state_dir, *_frames(dump_ids), generation)


def test_a_save_killed_halfway_leaves_the_previous_state_whole(tmp_path: Path) -> None:
    _save(tmp_path, ["a", "b"], "run1")
    # run2 wrote its parsed dumps, then was killed before the rest and state.json
    _parsed(["a", "b", "c"])["dumps"].write_parquet(tmp_path / "parsed_dumps.run2.parquet")
    loaded = load_state(tmp_path)
    assert loaded["parsed"] is not None
    assert loaded["parsed"]["dumps"]["dump_id"].to_list() == ["a", "b"]
    assert loaded["parsed"]["lines"]["dump_id"].to_list() == ["a", "b"]
    assert loaded["registry"]["variant_id"].to_list() == ["a", "b"]
    assert (loaded["generation"], loaded["recovered"]) == ("run1", None)


def test_a_complete_save_keeps_the_previous_generation_as_fallback(tmp_path: Path) -> None:
    _save(tmp_path, ["a"], "run1")
    _save(tmp_path, ["a", "c"], "run2")
    (tmp_path / "ruling_ids.run0.parquet.tmp").write_bytes(b"left by a killed run")
    _save(tmp_path, ["a", "c", "d"], "run3")
    assert load_state(tmp_path)["registry"]["variant_id"].to_list() == ["a", "c", "d"]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        *(f"{kind}.{g}.{ext}" for g in ("run2", "run3") for kind, ext in [("generation", "json")]),
        *(f"languages.{g}.parquet" for g in ("run2", "run3")),
        *(f"parsed_dumps.{g}.parquet" for g in ("run2", "run3")),
        *(f"parsed_lines.{g}.parquet" for g in ("run2", "run3")),
        *(f"ruling_ids.{g}.parquet" for g in ("run2", "run3")),
        "state.json",
    ]
    committed = json.loads((tmp_path / "state.json").read_text())
    assert (committed["current"]["generation"], committed["previous"]["generation"]) == (
        "run3",
        "run2",
    )


def _flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:40])


def _wrong_schema(path: Path) -> None:
    pl.DataFrame({"something": [1]}).write_parquet(path)


FAULTS: list[tuple[str, Callable[[Path], None]]] = [
    ("ruling_ids", lambda p: p.unlink()),
    ("ruling_ids", _flip_a_byte),
    ("ruling_ids", lambda p: p.write_bytes(b"")),
    ("languages", _truncate),
    ("languages", _wrong_schema),
    ("parsed_lines", _flip_a_byte),
]
FAULT_IDS = ["registry-deleted", "registry-byte-flipped", "registry-empty", "languages-truncated",
             "languages-wrong-schema", "lines-byte-flipped"]  # fmt: skip


@pytest.mark.parametrize(("kind", "fault"), FAULTS, ids=FAULT_IDS)
def test_a_broken_file_falls_back_to_the_previous_generation(
    tmp_path: Path, kind: str, fault: Callable[[Path], None]
) -> None:
    _save(tmp_path, ["a"], "run1")
    _save(tmp_path, ["a", "c"], "run2")
    fault(tmp_path / f"{kind}.run2.parquet")
    loaded = load_state(tmp_path)
    assert loaded["generation"] == "run1"
    assert loaded["registry"]["variant_id"].to_list() == ["a"]
    assert loaded["recovered"] is not None
    assert loaded["recovered"].startswith(f"generation run2: {kind}.run2.parquet")
    assert loaded["recovered"].endswith("used generation run1")


@pytest.mark.parametrize(("kind", "fault"), FAULTS, ids=FAULT_IDS)
def test_nothing_readable_is_a_loud_cold_start(
    tmp_path: Path, kind: str, fault: Callable[[Path], None], caplog: pytest.LogCaptureFixture
) -> None:
    _save(tmp_path, ["a"], "run1")
    fault(tmp_path / f"{kind}.run1.parquet")
    loaded = load_state(tmp_path)
    assert loaded["generation"] is None
    assert loaded["parsed"] is None and loaded["languages"].is_empty()
    assert loaded["recovered"] is not None
    if kind == "ruling_ids":  # nothing sound left
        assert loaded["registry"].is_empty()
        assert loaded["recovered"].endswith(
            "no readable state left: cold run, ruling ids are content ids again"
        )
        assert "STATE LOST" in caplog.text
    else:  # the caches are lost, the registry is sound: ids stay
        assert loaded["registry"]["variant_id"].to_list() == ["a"]
        assert loaded["recovered"].endswith(
            "no whole generation left: cold run, ruling ids kept from generation run1's registry"
        )
        assert "STATE LOST" not in caplog.text and "state recovered" in caplog.text


@pytest.mark.parametrize("content", ["", "{", '{"current": 3}', "[]"], ids=str)
def test_a_corrupt_state_json_uses_the_generation_records(tmp_path: Path, content: str) -> None:
    _save(tmp_path, ["a"], "run1")
    _save(tmp_path, ["a", "c"], "run2")
    (tmp_path / "state.json").write_text(content)
    loaded = load_state(tmp_path)
    assert loaded["generation"] == "run2"
    assert loaded["registry"]["variant_id"].to_list() == ["a", "c"]
    assert loaded["recovered"] is not None and loaded["recovered"].startswith("state.json: ")


def _stage(state_dir: Path, dump_ids: list[str], generation: str) -> None:
    """Stage a generation (its parse cache first, as a run does) without committing it."""
    parsed, languages, registry = _frames(dump_ids)
    parse_cache = stage_parse_cache(state_dir, parsed, generation)
    stage_state(state_dir, parse_cache, languages, registry, generation)


def test_a_staged_generation_that_latest_names_is_rolled_forward(tmp_path: Path) -> None:
    _save(tmp_path, ["a"], "run1")
    _stage(tmp_path, ["a", "c"], "run2")  # killed after switching latest
    assert load_state(tmp_path)["generation"] == "run1"  # latest still on run1
    rolled = load_state(tmp_path, published="run2")
    assert (rolled["generation"], rolled["recovered"]) == ("run2", None)
    assert rolled["registry"]["variant_id"].to_list() == ["a", "c"]


def test_discarding_a_staged_generation_leaves_the_committed_ones(tmp_path: Path) -> None:
    _save(tmp_path, ["a"], "run1")
    _stage(tmp_path, ["a", "c"], "run2")
    discard_state(tmp_path, "run2")
    discard_state(tmp_path, "run1")  # committed: kept
    assert sorted(p.name for p in tmp_path.glob("*run2*")) == []
    assert load_state(tmp_path)["generation"] == "run1"


def test_caches_follow_library_versions_and_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _save(tmp_path, ["a"], "run1")
    assert load_state(tmp_path)["parsed"] is not None
    real_version = cache_keys.version
    cache_keys.cache_keys.cache_clear()
    monkeypatch.setattr(
        cache_keys, "version", lambda name: "0.0" if name == "ftfy" else real_version(name)
    )
    try:
        other_ftfy = load_state(tmp_path)
    finally:
        monkeypatch.undo()
        cache_keys.cache_keys.cache_clear()
    assert other_ftfy["parsed"] is None  # ftfy shapes decoding: the parse cache is void
    assert other_ftfy["languages"].height == 1  # ftfy does not shape language detection
    assert other_ftfy["registry"]["variant_id"].to_list() == ["a"]  # never a cache
    record = json.loads((tmp_path / "generation.run1.json").read_text())
    keys = cache_keys.cache_keys()
    assert record["cache_keys"] == {kind: keys[kind] for kind in ("parsed", "languages", "results")}


def test_no_state_is_a_cold_start(tmp_path: Path) -> None:
    loaded = load_state(tmp_path / "missing")
    assert (
        loaded["parsed"] is None
        and loaded["languages"].is_empty()
        and loaded["registry"].is_empty()
        and loaded["recovered"] is None
    )


def test_records_of_the_wrong_shape_never_block_a_run(tmp_path: Path) -> None:
    # A fresh review: `current.files` as a list, or a stray record with "files": "x",
    # failed every later run with AttributeError.
    _save(tmp_path, ["a"], "run1")
    _save(tmp_path, ["a", "c"], "run2")
    committed = json.loads((tmp_path / "state.json").read_text())
    committed["current"]["files"] = []
    (tmp_path / "state.json").write_text(json.dumps(committed))
    (tmp_path / "generation.run0.json").write_text('{"generation": "run0", "files": "x"}')
    loaded = load_state(tmp_path)
    assert loaded["generation"] == "run2"
    assert loaded["registry"]["variant_id"].to_list() == ["a", "c"]
    assert loaded["recovered"] is not None


def test_the_first_broken_file_in_order_is_named_though_files_are_read_at_once(
    tmp_path: Path,
) -> None:
    # The files are checked in threads; the problem named is the one a reading
    # one file after the other would meet first (parsed_lines before ruling_ids).
    _save(tmp_path, ["a"], "run1")
    _save(tmp_path, [f"d{i}" for i in range(50_000)], "run2")
    (tmp_path / "ruling_ids.run2.parquet").unlink()
    _flip_a_byte(tmp_path / "parsed_lines.run2.parquet")
    loaded = load_state(tmp_path)
    assert loaded["recovered"] == (
        "generation run2: parsed_lines.run2.parquet differs from its recorded sha256; "
        "used generation run1"
    )


def test_a_cache_key_follows_every_module_its_maker_imports() -> None:
    # fast_badness shapes the parse (decoding) and was left out of the hand-kept lists
    modules, libraries = cache_keys.shaping_code(("flows.stages.parse",))
    assert {"flows.stages.encodings", "flows.stages.fast_badness", "flows.stages.dates"} <= set(
        modules
    )
    assert {"ftfy", "charset-normalizer", "babel"} <= set(libraries)
    assert cache_keys.shaping_code(("flows.stages.detector",)) == (
        [
            "flows.stages.batch_langdetect",
            "flows.stages.batch_trials",
            "flows.stages.detector",
            "flows.stages.word_frequency",  # the weighing's frequencies (wordfreq's own)
            "flows.stages.word_scores",
        ],
        ["hanzidentifier", "langdetect", "numpy", "polars", "regex", "wordfreq"],
    )


def _ast_imports(module: str) -> set[str]:
    """What `cache_keys._imports` read with `ast.walk` before it read the bytecode."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(cache_keys._source(module).read_bytes())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found |= {
                f"{node.module}.{alias.name}"
                for alias in node.names
                if cache_keys._is_module(f"{node.module}.{alias.name}")
            }
    return found - {"__future__"}


PROJECT_MODULES = sorted(
    ".".join(path.relative_to(REPO).with_suffix("").parts).removesuffix(".__init__")
    for package in cache_keys.PROJECT_PACKAGES
    for path in (REPO / package).rglob("*.py")
)


def test_the_imports_read_from_bytecode_are_those_of_the_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # ast.parse in a thread of a run failed it ("AST constructor recursion depth mismatch",
    # Python 3.11) while Prefect's threads parsed signatures: the imports come from bytecode
    expected = {module: _ast_imports(module) for module in PROJECT_MODULES}
    monkeypatch.setattr(ast, "parse", None)  # not called
    assert len(PROJECT_MODULES) > 60
    for module in PROJECT_MODULES:
        assert set(cache_keys._imports.__wrapped__(module)) == expected[module], module


def test_deriving_the_cache_keys_imports_no_module_it_reads() -> None:
    # find_spec("flows.stages.detector.x") imported the detector (langdetect's profiles,
    # wordfreq: 0.85 s and 110 MB more for a load of the catalog's cache)
    probe = (
        "import sys\n"
        "from flows.disk.cache_keys import cache_keys\n"
        "cache_keys()\n"
        "print(sorted(m for m in sys.modules if m.startswith(('flows.', 'schemas', 'langdetect',"
        " 'wordfreq', 'polars'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert done.stdout.strip() == str(["flows.disk", "flows.disk.cache_keys", "flows.stages"])
