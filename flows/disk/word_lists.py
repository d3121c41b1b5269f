"""wordfreq's lists kept under the state as Arrow IPC files, one per language.

The weighing reads wordfreq's list of each language it meets
(`stages.word_frequency.word_list`: wordfreq's msgpack decoded and sorted,
0.1–0.3 s a language on the 2-core bench machine, 1.1–1.4 s for the eight
common ones). A run keeps each list it built as
`<state>/word_lists/<code key>/<lang>.arrow` (`OutputPaths.word_lists`), so
later runs read it (0.19–0.26 s for the eight, IPC with lz4: ~66 MB on disk
for the 22 languages the 1M-line corpus is weighed in). The code key is the
first 16 hex digits of `cache_keys.code_key` of the module that builds
the lists: another wordfreq (or polars, or Python) builds them again, and
the folders of other keys are removed then. A file that cannot be read is
built again; one that cannot be written is only not kept (a warning).
"""

from __future__ import annotations

import logging
import os
import shutil
from functools import cache, partial
from pathlib import Path

import polars as pl

from flows.disk.cache_keys import code_key
from flows.disk.files import fsync_path, make_folder, naming_full_disk, open_new
from flows.stages.word_frequency import WORD_LIST_SCHEMA, WordListSource, word_list

logger = logging.getLogger(__name__)

#: The module whose code (and libraries: wordfreq) shapes the lists.
BUILDER = "flows.stages.word_frequency"


def word_list_cache(cache_dir: Path) -> WordListSource:
    """A source of wordfreq's lists (`stages.word_frequency.WordListSource`) kept under
    `cache_dir` (`OutputPaths.word_lists`): `cached_word_list` there; picklable."""
    return partial(cached_word_list, cache_dir)


@cache
def _key() -> str:
    return code_key((BUILDER,))[:16]


def cached_word_list(cache_dir: Path, lang: str) -> pl.DataFrame:
    """`stages.word_frequency.word_list(lang)`, read from `cache_dir` when kept there.

    A list built here is kept when the state folder (`cache_dir`'s parent)
    exists: a run has made it (its parse parts are there before it detects);
    the command line, which loads the common lists while Prefect's server
    starts, before the run, makes no state of its own (a failed start leaves
    none).

    Returns:
        The list (WORD_LIST_SCHEMA: word String, bucket UInt16; sorted by word).

    Raises:
        LookupError: wordfreq has no list for `lang`.
        OutputDirError: a symlink where the cache is written (`files.make_folder`).
    """
    path = cache_dir / _key() / f"{lang}.arrow"
    if path.is_file():
        try:
            kept = pl.read_ipc(path)
            if kept.schema == pl.Schema(WORD_LIST_SCHEMA):
                return kept
        except (OSError, pl.exceptions.PolarsError) as exc:
            logger.warning("word list %s unreadable, built again: %s", path, exc)
    built = word_list(lang)
    if not cache_dir.parent.is_dir():  # no state yet: the command line's preload makes none
        return built
    try:
        _keep(built, path)
    except OSError as exc:  # a cache: the run goes on without it
        logger.warning("word list %s not kept: %s", path, exc)
    return built


def _keep(table: pl.DataFrame, path: Path) -> None:
    """Write `table` to `path` (staged, flushed, renamed); remove other keys' folders first."""
    cache_dir = path.parent.parent
    first = not path.parent.is_dir()
    make_folder(path.parent, cache_dir.parent)  # no link on the way (nothing removed through one)
    for stale in cache_dir.iterdir() if first else ():
        if stale != path.parent and stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
    staged = path.with_name(f".{path.stem}.{os.getpid()}.tmp")
    with naming_full_disk(path):
        with open_new(staged) as out:
            table.write_ipc(out, compression="lz4")
        fsync_path(staged)
        os.replace(staged, path)
