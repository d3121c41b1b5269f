"""word_lists: wordfreq's lists kept under the state, read back equal, built again when bad."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import polars as pl
import pytest

from flows.disk import files, word_lists
from flows.disk.paths import OutputPaths
from flows.errors import OutputDirError
from flows.stages import word_frequency, word_scores


def test_a_list_is_kept_then_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = OutputPaths(tmp_path).word_lists
    assert word_lists.cached_word_list(cache, "ca").height > 100_000
    assert not cache.parent.exists()  # no state made for it (the CLI's preload, before a run)
    cache.parent.mkdir()  # a run's state
    built = word_lists.cached_word_list(cache, "ca")
    [kept] = (cache / word_lists._key()).iterdir()  # nothing staged left
    assert kept.name.startswith("ca.") and kept.suffix == ".arrow"
    assert built.equals(word_frequency.word_list("ca"))

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
    [kept] = (cache / word_lists._key()).iterdir()
    kept.write_bytes(b"not Arrow")
    assert word_lists.cached_word_list(cache, "ca").equals(word_frequency.word_list("ca"))
    [again] = (cache / word_lists._key()).iterdir()  # the bad file removed, written again
    assert again.name == kept.name and pl.read_ipc(again).equals(word_frequency.word_list("ca"))


def test_a_well_formed_list_that_is_not_the_one_kept_is_built_again(tmp_path: Path) -> None:
    # the fresh-clone check: an empty list with the same columns put in en's place made
    # every ruling de, pt, fr or it, with no warning, for good (the languages are reused)
    cache = tmp_path / "state" / "word_lists"
    cache.parent.mkdir()
    word_lists.cached_word_list(cache, "ca")
    [kept] = (cache / word_lists._key()).iterdir()
    word_frequency.word_list("ca").head(0).write_ipc(kept, compression="lz4")
    assert word_lists.cached_word_list(cache, "ca").height > 100_000
    [again] = (cache / word_lists._key()).iterdir()
    assert pl.read_ipc(again).equals(word_frequency.word_list("ca"))


def test_a_failed_write_leaves_nothing_staged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    cache = tmp_path / "state" / "word_lists"
    cache.parent.mkdir()

    def full_disk(source: object, target: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", full_disk)
    assert word_lists.cached_word_list(cache, "ca").equals(word_frequency.word_list("ca"))
    assert list((cache / word_lists._key()).iterdir()) == []
    assert "not kept" in caplog.text


def test_the_lists_loaded_before_the_run_are_kept_by_it(tmp_path: Path) -> None:
    # the command line loads the common lists while Prefect's server starts, before the
    # run's state exists: the first run of a fresh clone kept none of them
    cache = tmp_path / "state" / "word_lists"
    word_scores.release_word_lists()
    try:
        word_scores.held_word_list("ca", partial(word_lists.cached_word_list, cache))
        assert not cache.parent.exists()
        cache.parent.mkdir()  # the run's state
        word_lists.keep_held_lists(cache, word_scores.held_word_lists())
        [kept] = (cache / word_lists._key()).iterdir()
        assert kept.name.startswith("ca.") and pl.read_ipc(kept).equals(
            word_frequency.word_list("ca")
        )
        word_lists.keep_held_lists(cache, word_scores.held_word_lists())  # kept once
        assert len(list((cache / word_lists._key()).iterdir())) == 1
    finally:
        word_scores.release_word_lists()


def test_a_link_in_the_cache_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "0123456789abcdef").mkdir(parents=True)  # not removed through the link
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "word_lists").symlink_to(elsewhere)
    with pytest.raises(OutputDirError):
        word_lists.cached_word_list(tmp_path / "state" / "word_lists", "ca")
    assert [p.name for p in elsewhere.iterdir()] == ["0123456789abcdef"]
