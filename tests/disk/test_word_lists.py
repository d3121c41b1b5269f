"""word_lists: wordfreq's lists kept under the state, read back equal, built again when bad."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from flows.disk import word_lists
from flows.disk.paths import OutputPaths
from flows.errors import OutputDirError
from flows.stages import word_frequency


def test_a_list_is_kept_then_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = OutputPaths(tmp_path).word_lists
    assert word_lists.cached_word_list(cache, "ca").height > 100_000
    assert not cache.parent.exists()  # no state made for it (the CLI's preload, before a run)
    cache.parent.mkdir()  # a run's state
    built = word_lists.cached_word_list(cache, "ca")
    kept = cache / word_lists._key() / "ca.arrow"
    assert kept.is_file() and built.equals(word_frequency.word_list("ca"))
    assert [p.name for p in kept.parent.iterdir()] == ["ca.arrow"]  # nothing staged left

    def no_build(lang: str) -> pl.DataFrame:
        raise AssertionError(f"{lang} built again")

    monkeypatch.setattr(word_lists, "word_list", no_build)
    source = word_lists.word_list_cache(cache)
    assert source("ca").equals(built)  # read from the file
    assert source("ca").schema == pl.Schema(word_frequency.WORD_LIST_SCHEMA)


def test_a_bad_file_is_built_again_and_other_keys_go(tmp_path: Path) -> None:
    cache = tmp_path / "state" / "word_lists"
    old = cache / "0123456789abcdef"
    old.mkdir(parents=True)
    (old / "ca.arrow").write_bytes(b"an older wordfreq's list")
    assert word_lists.cached_word_list(cache, "ca").height > 100_000
    assert [p.name for p in cache.iterdir()] == [word_lists._key()]  # the older key removed
    kept = cache / word_lists._key() / "ca.arrow"
    kept.write_bytes(b"not Arrow")
    assert word_lists.cached_word_list(cache, "ca").equals(word_frequency.word_list("ca"))
    assert pl.read_ipc(kept).equals(word_frequency.word_list("ca"))  # written again


def test_a_link_in_the_cache_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "0123456789abcdef").mkdir(parents=True)  # not removed through the link
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "word_lists").symlink_to(elsewhere)
    with pytest.raises(OutputDirError):
        word_lists.cached_word_list(tmp_path / "state" / "word_lists", "ca")
    assert [p.name for p in elsewhere.iterdir()] == ["0123456789abcdef"]
