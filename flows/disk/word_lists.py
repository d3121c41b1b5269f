"""wordfreq's lists kept under the state as Arrow IPC files, one per language.

The weighing reads wordfreq's list of each language it meets
(`stages.word_frequency.word_list`: wordfreq's msgpack decoded and sorted,
0.1–0.3 s a language on the 2-core bench machine, 1.1–1.4 s for the eight
common ones). A run keeps each list it built as
`<state>/word_lists/<code key>/<lang>.<sha256>.arrow` (`OutputPaths.word_lists`),
so later runs read it (0.19–0.26 s for the eight, IPC with lz4: ~66 MB on disk
for the 22 languages the 1M-line corpus is weighed in). The code key is the
first 16 hex digits of `cache_keys.code_key` of the module that builds
the lists: another wordfreq (or polars, or Python) builds them again, and
the folders of other keys are removed then. A file's name carries the first
16 hex digits of its bytes' sha256, checked when it is read: a file that
cannot be read, or whose bytes are not those it was written with (a list
replaced by another, even a well-formed one), is built again, with a
warning; one that cannot be written is only not kept (a warning, nothing
staged left). The lists the command line loads while Prefect's server
starts, before the run has made its state, are kept by the run
(`keep_held_lists`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import shutil
from functools import cache, partial
from pathlib import Path

import polars as pl

from flows.disk.cache_keys import code_key
from flows.disk.files import make_folder, write_bytes
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
    folder = cache_dir / _key()
    for path in sorted(folder.glob(f"{lang}.*.arrow")) if folder.is_dir() else ():
        kept = _read_checked(path)
        if kept is not None:
            return kept
    built = word_list(lang)
    if not cache_dir.parent.is_dir():  # no state yet: the command line's preload makes none
        return built
    _keep(built, folder, lang)
    return built


def keep_held_lists(cache_dir: Path, held: dict[str, pl.DataFrame]) -> None:
    """Keep under `cache_dir` the lists of `held` (WORD_LIST_SCHEMA frames by language: what
    `word_scores.held_word_lists` gave) that are not kept there yet.

    The command line loads the common lists while Prefect's server starts,
    before the run has a state folder (`cached_word_list` keeps none then);
    the run calls this once its state folder exists, so the next run reads them.

    Raises:
        OutputDirError: a symlink where the cache is written (`files.make_folder`).
    """
    folder = cache_dir / _key()
    for lang, table in sorted(held.items()):
        if folder.is_dir() and any(folder.glob(f"{lang}.*.arrow")):
            continue
        _keep(table, folder, lang)


def _read_checked(path: Path) -> pl.DataFrame | None:
    """The list in `path` when its bytes' sha256 starts with the digits in its name and it
    has WORD_LIST_SCHEMA; else None, with a warning, the file removed."""
    try:
        data = path.read_bytes()
        if hashlib.sha256(data).hexdigest()[:16] != path.suffixes[-2].removeprefix("."):
            raise ValueError("its bytes are not those it was written with")
        kept = pl.read_ipc(io.BytesIO(data))
        if kept.schema != pl.Schema(WORD_LIST_SCHEMA):
            raise ValueError(f"its columns are {dict(kept.schema)}")
        return kept
    except (OSError, ValueError, pl.exceptions.PolarsError) as exc:
        logger.warning("word list %s unreadable, built again: %s", path, exc)
        with contextlib.suppress(OSError):  # a cache's bad file (a link: the link itself)
            path.unlink()
        return None


def _keep(table: pl.DataFrame, folder: Path, lang: str) -> None:
    """Write `table` as `folder/<lang>.<sha256>.arrow` (`files.write_bytes`; a failed write
    only warns: a cache); remove other keys' folders first.

    Raises:
        OutputDirError: a symlink where the cache is written (`files.make_folder`).
    """
    cache_dir = folder.parent
    first = not folder.is_dir()
    make_folder(folder, cache_dir.parent)  # no link on the way (nothing removed through one)
    for stale in cache_dir.iterdir() if first else ():
        if stale != folder and stale.is_dir() and not stale.is_symlink():
            shutil.rmtree(stale, ignore_errors=True)
    data = io.BytesIO()
    table.write_ipc(data, compression="lz4")
    path = folder / f"{lang}.{hashlib.sha256(data.getbuffer()).hexdigest()[:16]}.arrow"
    try:
        write_bytes(data.getbuffer(), path)
    except OSError as exc:  # a cache: the run goes on without it
        logger.warning("word list %s not kept: %s", path, exc)
