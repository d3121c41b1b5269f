"""The benchmark corpus: real data, deterministic for a seed, read back line for line."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from bench.corpus import Sources, generate_corpus, load_sources
from bench.timing import count_lines
from flows.stages.manifest import account_lines
from tests.conftest import REAL_DATA, needs_real_data, run_dumps

pytestmark = needs_real_data


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.txt"))}


@pytest.fixture(scope="module")
def sources() -> Sources:
    return load_sources(REAL_DATA)


def test_same_seed_same_files_other_seed_other_files(sources: Sources, tmp_path: Path) -> None:
    first = generate_corpus(sources, tmp_path / "a", 2000, seed=3)
    again = generate_corpus(sources, tmp_path / "b", 2000, seed=3)
    other = generate_corpus(sources, tmp_path / "c", 2000, seed=4)
    assert first == again and first.lines >= 2000
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    assert _files(tmp_path / "a") != _files(tmp_path / "c") and other.lines >= 2000
    assert count_lines(tmp_path / "a") == (first.dumps, first.lines, first.bytes)


def test_the_pipeline_reads_every_generated_line(sources: Sources, tmp_path: Path) -> None:
    stats = generate_corpus(sources, tmp_path / "corpus", 1500, seed=0)
    run = run_dumps(tmp_path / "corpus", tmp_path / "output")
    tables, accounting = run.tables, account_lines(run.lines)
    read_rejects = tables["rejects"].filter(tables["rejects"]["stage"] == "read").height
    assert tables["dumps"].height + read_rejects == stats.dumps
    assert accounting["rejected"] == 0
    assert set(tables["ruling_occurrences"]["language"].unique()) == {"en"}


def test_above_the_real_cards_other_sites_copies_follow(sources: Sources, tmp_path: Path) -> None:
    # one real card: its first dump reaches a target of 1 line, and the card is written
    # whole (each site and set); three times its lines take two more sites' copies (each a
    # header line longer)
    card = sorted(sources.card_rulings)[0]
    one = Sources(
        {card: sources.card_rulings[card]},
        {card: sources.sets_of[card]} if card in sources.sets_of else {},
        {key: stub for key, stub in sources.foreign.items() if key[0] == card},
    )
    one_pass = generate_corpus(one, tmp_path / "one", 1, seed=1)
    more = generate_corpus(one, tmp_path / "more", 3 * one_pass.lines, seed=1)
    files = _files(tmp_path / "more")
    first = {name: data for name, data in files.items() if not name.startswith("mirror")}
    assert first == _files(tmp_path / "one")  # the first pass is the same for any target
    assert {name.split("/")[0] for name in set(files) - set(first)} == {"mirror1", "mirror2"}
    # each copy has the card's dumps; their lines differ a little (their own stubs)
    assert more.dumps == 3 * one_pass.dumps and more.lines >= 3 * one_pass.lines
    assert count_lines(tmp_path / "more") == (more.dumps, more.lines, more.bytes)
    # each copy is another site's (its address in the header): every file is read, none is
    # rejected as another's bytes, and the address is a header line
    run = run_dumps(tmp_path / "more", tmp_path / "output")
    assert (run.tables["dumps"].height, run.tables["rejects"].height) == (more.dumps, 0)
    mirror = run.lines.filter(pl.col("line") == "https://mirror2.example/")
    assert mirror.height == one_pass.dumps and set(mirror["kind"]) == {"header"}
