"""The catalog reader: MTGJSON AllPrintings or set files, one `error:` line when bad, Parquet cache."""

from __future__ import annotations

import gzip
import json
import logging
import lzma
import re
import shutil
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from flows.disk import catalog as catalog_module
from flows.disk.catalog import hash_catalog, load_catalog, read_catalog
from flows.errors import CatalogError, OutputDirError
from flows.stages.cards import Catalog
from tests.conftest import needs_real_catalog


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not json at all", "is not readable MTGJSON JSON"),
        (b'{"meta": {}, "cards": []}', "has no sets under `data`"),
        (b'{"data": {"KLD": {"name": "Kaladesh"}}}', "set 'KLD' has no `cards` list"),
        (b'{"data": {"KLD": {"cards": [', "is not readable MTGJSON JSON"),
        (lzma.compress(b"[1, 2"), "is not readable MTGJSON JSON"),
        (b"\xfd7zXZ\x00 truncated xz", "is not readable MTGJSON JSON"),
        (gzip.compress(b'{"data": {}}'), "has no sets under `data`"),
    ],
    ids=["text", "no-data", "set-without-cards", "cut-json", "cut-json-xz", "bad-xz", "empty-gz"],
)
def test_bad_catalog_is_one_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "AllPrintings.json"
    path.write_bytes(content)
    with pytest.raises(CatalogError, match=message):
        load_catalog(path, tmp_path / "cache")
    assert not any((tmp_path / "cache").glob("*/*.parquet"))


def test_missing_catalog(tmp_path: Path) -> None:
    with pytest.raises(CatalogError, match="not found"):
        load_catalog(tmp_path / "AllPrintings.json.xz", tmp_path / "cache")


def test_folder_without_set_files(tmp_path: Path) -> None:
    (tmp_path / "readme.txt").write_text("no sets here")
    with pytest.raises(CatalogError, match="holds no MTGJSON set file"):
        load_catalog(tmp_path, tmp_path / "cache")


def test_set_files_folder(small_catalog_dir: Path) -> None:
    """KLD and AER: the counts SOURCES.md gives for the real set files."""
    catalog = read_catalog(small_catalog_dir)
    cards = catalog["cards"].group_by("set_code").len().sort("set_code")
    assert {k: v for k, v in cards.iter_rows() if k in ("AER", "KLD")} == {"AER": 197, "KLD": 278}
    rulings = catalog["rulings"].join(catalog["cards"].select("uuid", "set_code"), on="uuid")
    assert dict(rulings.group_by("set_code").len().iter_rows())["KLD"] == 814
    assert dict(rulings.group_by("set_code").len().iter_rows())["AER"] == 773
    demon = catalog["cards"].filter(
        pl.col("name") == "Demon of Dark Schemes", pl.col("set_code") == "KLD"
    )
    assert demon.select("oracle_id", "mana_value", "power", "toughness").row(0) == (
        "2b2f2abd-6c0f-49a5-a44b-f366614c944d",
        6.0,
        "5",
        "5",
    )
    french = catalog["foreign"].filter(
        pl.col("uuid") == demon["uuid"][0], pl.col("language") == "fr"
    )
    assert french["name"].to_list() == ["Démon aux noirs desseins"]


def test_cache_is_keyed_by_sha256(small_catalog_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "sets"
    shutil.copytree(small_catalog_dir, folder)
    first, reused_first = load_catalog(folder, tmp_path / "cache")
    again, reused_again = load_catalog(folder, tmp_path / "cache")
    assert (reused_first, reused_again) == (False, True)
    for name in ("cards", "rulings", "foreign"):
        assert_frame_equal(first[name], again[name])  # type: ignore[literal-required]
    (folder / "NEO.json.gz").unlink()  # a changed catalog is read again
    smaller, reused = load_catalog(folder, tmp_path / "cache")
    assert not reused
    assert "NEO" not in smaller["cards"]["set_code"].to_list()
    assert len(list((tmp_path / "cache").iterdir())) == 2
    assert hash_catalog(folder) != hash_catalog(small_catalog_dir)


def test_a_catalog_cache_folder_linked_elsewhere_is_never_written_through(
    small_catalog_dir: Path, tmp_path: Path
) -> None:
    """Issue 23: `state/catalog` linked to a folder of the operator's stops the cache write."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "catalog").symlink_to(elsewhere)
    with pytest.raises(
        OutputDirError, match="state/catalog is a symlink; a run never writes through one"
    ):
        load_catalog(small_catalog_dir, tmp_path / "state" / "catalog")
    assert list(elsewhere.iterdir()) == []


@needs_real_catalog
def test_real_all_printings(real_catalog_cache: tuple[Catalog, Path]) -> None:
    """The real AllPrintings.json.xz: SOURCES.md's counts (59,634 printings, 114,243 rulings)."""
    catalog, _ = real_catalog_cache
    assert catalog["cards"].height == 59_634
    assert catalog["rulings"].height == 114_243
    assert catalog["cards"]["set_code"].n_unique() == 549  # 579 sets, 30 of them without cards


@pytest.mark.parametrize("compress", [None, gzip.compress, lzma.compress], ids=["json", "gz", "xz"])
def test_all_printings_plain_gz_xz(small_catalog_dir: Path, tmp_path: Path, compress: Any) -> None:
    """AllPrintings layout ({"meta", "data": {"KLD": set}}) read plain, gzip or xz: 278 printings."""
    kld = json.loads(gzip.decompress((small_catalog_dir / "KLD.json.gz").read_bytes()))["data"]
    content = json.dumps({"meta": {"version": "5.2.0"}, "data": {"KLD": kld}}).encode()
    path = tmp_path / "AllPrintings.json"
    path.write_bytes(compress(content) if compress else content)
    catalog = read_catalog(path)
    assert catalog["cards"].height == 278
    assert catalog["rulings"].height == 814


def test_the_parse_says_how_far_it_is(
    small_catalog_dir: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A line when it starts, then (here: after every set) the share of set files read."""
    monkeypatch.setattr(catalog_module, "PROGRESS_EVERY_S", 0.0)
    with caplog.at_level(logging.INFO, logger="flows.disk.catalog"):
        read_catalog(small_catalog_dir)
    assert caplog.messages == [
        f"catalog {small_catalog_dir}: parsing it (once: later runs read it from the cache)...",
        "catalog: 33 % read (1 sets)",
        "catalog: 66 % read (2 sets)",
        "catalog: 100 % read (3 sets)",
    ]


@pytest.mark.parametrize("compress", [None, gzip.compress, lzma.compress], ids=["json", "gz", "xz"])
def test_the_parse_of_all_printings_says_how_far_it_is_in_its_bytes(
    small_catalog_dir: Path,
    tmp_path: Path,
    compress: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    sets = {
        code: json.loads(gzip.decompress((small_catalog_dir / f"{code}.json.gz").read_bytes()))[
            "data"
        ]
        for code in ("AER", "KLD", "NEO")
    }
    content = json.dumps({"meta": {"version": "5.2.0"}, "data": sets}).encode()
    path = tmp_path / "AllPrintings.json"
    path.write_bytes(compress(content) if compress else content)
    monkeypatch.setattr(catalog_module, "PROGRESS_EVERY_S", 0.0)
    with caplog.at_level(logging.INFO, logger="flows.disk.catalog"):
        read_catalog(path)
    shares = [re.fullmatch(r"catalog: (\d+) % read \((\d) sets\)", m) for m in caplog.messages[1:4]]
    assert [int(share[2]) for share in shares if share] == [1, 2, 3]
    percents = [int(share[1]) for share in shares if share]
    assert percents == sorted(percents) and percents[0] > 0 and percents[-1] <= 100
