"""Read an MTGJSON card catalog once into tables, cached as Parquet by the file's sha256.

A catalog is what users download from MTGJSON (v5): `AllPrintings.json`
(plain, `.xz` or `.gz`: `{"meta": …, "data": {"<SET>": {code, cards: […]}}}`)
or a folder of set files (`<SET>.json[.gz|.xz]`: `{"meta": …, "data": {code, cards}}`).
AllPrintings is streamed with ijson one set at a time (237 MB of JSON never
sits in memory whole); set files are small and read with `json`.

The tables (`stages.cards`) land in `<cache_dir>/<sha256>.<code key>/`
(`cards`, `rulings`, `foreign` .parquet, `cache_entry`), so an unchanged
catalog is parsed once and read from Parquet on every later run.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import lzma
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import ijson
import polars as pl

from flows.disk.cache_keys import cache_keys
from flows.disk.files import make_folder, naming_full_disk, open_new
from flows.errors import CatalogError
from flows.stages.cards import TABLES, Catalog, extract_set

logger = logging.getLogger(__name__)


def hash_catalog(path: Path) -> str:
    """sha256 hex of the catalog file; for a folder, of its set files' names and bytes.

    Raises:
        CatalogError: `path` does not exist, or a folder holds no set file.
    """
    if path.is_file():
        return _sha256_file(path)
    if not path.is_dir():
        raise CatalogError(f"catalog {path} not found; give an MTGJSON AllPrintings.json(.xz|.gz)")
    files = _set_files(path)
    digest = hashlib.sha256()
    for file in files:
        digest.update(f"{file.name}\0{_sha256_file(file)}\n".encode())
    return digest.hexdigest()


def cache_entry(cache_dir: Path, digest: str) -> Path:
    """The folder of one catalog's cached tables: `<sha256>.<code key>`.

    The code key is the first 16 hex digits of `cache_keys.cache_keys()["catalog"]`:
    a catalog read by other code or libraries is read again.
    """
    return cache_dir / f"{digest}.{cache_keys()['catalog'][:16]}"


#: Catalogs `checked_catalog` parsed, by cache entry (resolved: the CLI and the
#: flow may spell the output dir differently), held for its `with` block until
#: a run's `load_catalog` takes them (and counts the parse as its own).
_CHECKED: dict[Path, Catalog] = {}


@contextmanager
def checked_catalog(path: Path, cache_dir: Path) -> Iterator[None]:
    """Parse and cache a catalog before a run in this process; the run takes that parse.

    For `ruling-dumps run`: a bad catalog fails here, before Prefect starts.
    When this parses the catalog (it was not cached), the tables are held
    for the `with` block: the block's first `load_catalog` of this catalog
    into this cache takes them and says it parsed them, so the run's
    manifest (`work.catalog_parsed`) says what the run cost. Whatever is
    still held when the block ends (a run that failed before it read the
    catalog) is let go.

    Args:
        path, cache_dir: as for `load_catalog`.

    Raises:
        CatalogError: see `load_catalog`.
    """
    digest = hash_catalog(path)
    tables, from_cache = load_catalog(path, cache_dir, digest)
    held = cache_entry(cache_dir.resolve(), digest)
    if not from_cache:
        _CHECKED[held] = tables
    del tables
    try:
        yield
    finally:
        _CHECKED.pop(held, None)


def load_catalog(path: Path, cache_dir: Path, digest: str | None = None) -> tuple[Catalog, bool]:
    """The catalog's tables, from the Parquet cache when this exact catalog was read before.

    Args:
        path: AllPrintings.json (plain, .xz, .gz) or a folder of MTGJSON set files.
        cache_dir: e.g. `output/state/catalog`; gets `cache_entry(cache_dir,
            sha256)` with the tables.
        digest: `hash_catalog(path)` when the caller has it (hashed here otherwise).

    Returns:
        (the tables, True when they came from the cache; False when parsed
        here, or taken from an enclosing `checked_catalog`'s parse).

    Raises:
        CatalogError: missing, unreadable, not JSON, or not MTGJSON's layout.
    """
    digest = digest or hash_catalog(path)
    checked = _CHECKED.pop(cache_entry(cache_dir.resolve(), digest), None)
    if checked is not None:
        return checked, False
    cached = cache_entry(cache_dir, digest)
    if all((cached / f"{name}.parquet").is_file() for name in TABLES):
        return Catalog(**{n: pl.read_parquet(cached / f"{n}.parquet") for n in TABLES}), True
    catalog = read_catalog(path)
    staging = cache_dir / f".{digest}.{os.getpid()}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    make_folder(staging, cache_dir.parent)  # no link at <output>/state/catalog
    for name in TABLES:
        with (
            naming_full_disk(staging / f"{name}.parquet"),
            open_new(staging / f"{name}.parquet") as out,
        ):
            catalog[name].write_parquet(out, compression="zstd")  # type: ignore[literal-required]
    shutil.rmtree(cached, ignore_errors=True)
    os.rename(staging, cached)
    logger.info(
        "catalog %s: %d printings, %d rulings, %d foreign printings (cached as %s)",
        path, catalog["cards"].height, catalog["rulings"].height, catalog["foreign"].height,
        cached.name,
    )  # fmt: skip
    return catalog, False


#: Seconds between two progress lines of a catalog's parse (2 min 45 s on a busy machine).
PROGRESS_EVERY_S = 5.0


def read_catalog(path: Path) -> Catalog:
    """Parse the catalog (no cache): see `load_catalog` for the shapes and errors.

    Says it starts, then at most every PROGRESS_EVERY_S how far it is (the
    share of the file's bytes read, or of the set files, and the sets read).
    """
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in TABLES}
    sets = 0
    logger.info("catalog %s: parsing it (once: later runs read it from the cache)...", path)
    said_at = time.monotonic()
    try:
        for set_code, set_data, done in _iter_sets(path):
            extract_set(set_code, set_data, rows)
            sets += 1
            if time.monotonic() - said_at >= PROGRESS_EVERY_S:
                logger.info("catalog: %d %% read (%d sets)", int(done() * 100), sets)
                said_at = time.monotonic()
    except (ijson.JSONError, json.JSONDecodeError, lzma.LZMAError, gzip.BadGzipFile, EOFError,
            UnicodeDecodeError) as exc:  # fmt: skip
        reason = " ".join(str(exc).split())  # yajl's messages span lines
        raise CatalogError(f"catalog {path} is not readable MTGJSON JSON: {reason}") from exc
    if not sets:
        raise CatalogError(
            f"catalog {path} has no sets under `data`; expected MTGJSON AllPrintings or set files"
        )
    return Catalog(
        **{
            name: pl.DataFrame(rows[name], schema=schema, orient="row")
            for name, schema in TABLES.items()
        }  # type: ignore[typeddict-item]
    )


def _iter_sets(path: Path) -> Iterator[tuple[str, Any, Callable[[], float]]]:
    """(set code, set object, the share read so far: 0-1) for each set of an AllPrintings
    file (bytes of the file as stored) or a folder of set files (files)."""
    if path.is_dir():
        files = _set_files(path)
        for number, file in enumerate(files, 1):
            with _open(file) as stream:
                document = json.load(stream)
            data = document.get("data") if isinstance(document, dict) else None
            if not isinstance(data, dict):
                raise CatalogError(f"catalog file {file} has no `data` object; not an MTGJSON set")
            share = number / len(files)
            yield str(data.get("code", file.name.split(".")[0])), data, lambda s=share: s
        return
    try:
        size, stored = max(path.stat().st_size, 1), path.open("rb")
    except OSError as exc:
        raise CatalogError(f"catalog {path} cannot be read: {exc.strerror}") from exc
    with stored, _open(path, stored) as stream:
        done = lambda: stored.tell() / size  # noqa: E731
        for code, data in ijson.kvitems(stream, "data", use_float=True):
            yield code, data, done


def _set_files(folder: Path) -> list[Path]:
    files = sorted(
        p
        for p in folder.iterdir()
        if p.is_file() and p.name.endswith((".json", ".json.gz", ".json.xz"))
    )
    if not files:
        raise CatalogError(f"catalog folder {folder} holds no MTGJSON set file (*.json[.gz|.xz])")
    return files


def _open(path: Path, stored: IO[bytes] | None = None) -> IO[bytes]:
    """The file's bytes, decompressed by its magic number (xz, gzip) or as is; read from
    `stored` (the file opened, at its start) when given, so its `tell()` says how far."""
    try:
        with path.open("rb") as probe:
            magic = probe.read(6)
    except OSError as exc:
        raise CatalogError(f"catalog {path} cannot be read: {exc.strerror}") from exc
    source: Any = stored if stored is not None else path
    if magic.startswith(b"\xfd7zXZ\x00"):
        return lzma.open(source, "rb")
    if magic.startswith(b"\x1f\x8b"):
        return gzip.open(source, "rb")
    return stored if stored is not None else path.open("rb")


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with path.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise CatalogError(f"catalog {path} cannot be read: {exc.strerror}") from exc
    return digest.hexdigest()
