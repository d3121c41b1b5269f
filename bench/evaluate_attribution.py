"""Evaluate card attribution against a real catalog, and measure the catalog's load.

Dumps are built from real catalog cards as fan sites paste them (the card's
own rulings with their catalog dates, in one of the eleven site locales of
`corpus`, sometimes generic rulings of other cards, sometimes a stray stub cut
from the card's printed text in the site's language); others from cards taken
out of the catalog first. The product's own run (`flows.run.run_direct`)
runs on them with the reduced catalog (written as MTGJSON set files,
`write_catalog`), and each dump's attribution is compared with the card it
was built from:

- in the catalog: recall = right oracle_id / identifiable dumps (target >= 95 %), and
  wrong oracle_ids (target: none); `attribution_scores` says what is identifiable;
- out of it: any oracle_id is wrong (target: none);
- twins (`--twins`): cards sharing rulings only they carry, one of a pair removed;
- which cards are removed (`removed`): "random" ones, or "newest": the cards first
  printed after a cutoff date, whole sets, as a catalog older than the cards lacks
  them (`newest_split`; twins are not drawn then);
- the structural bound (`attribution_bound`): the best recall a rule on rulings and
  dates can reach with no removed card named.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import polars as pl

from bench.attribution_bound import structural_bound
from bench.attribution_scores import choose_twins, identifiable_by, score_inside, score_outside
from bench.corpus import SITE_LOCALES, CardStub, build_site_dump
from flows.disk.catalog import load_catalog
from flows.errors import RulingsError
from flows.run import run_direct
from flows.stages.cards import MTGJSON_LANGUAGES, Catalog

#: Share of dumps ending in a stray stub, and of dumps with other cards' generic rulings.
STUB_SHARE = 0.4
GENERIC_SHARE = 0.3
#: A ruling carried by at least this many cards is generic (energy, cycling, reconfigure…).
GENERIC_MIN_CARDS = 20
TODAY = dt.date(2026, 11, 30)

_LOAD_SCRIPT = """
import json, resource, sys, time
from pathlib import Path
from flows.disk.catalog import load_catalog
started = time.perf_counter()
tables, reused = load_catalog(Path(sys.argv[1]), Path(sys.argv[2]))
print(json.dumps({"seconds": round(time.perf_counter() - started, 2), "from_cache": reused,
    "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    "rows": {name: frame.height for name, frame in tables.items()}}))
"""


def measure_catalog_load(catalog: Path, cache_dir: Path) -> dict[str, Any]:
    """Time and peak RSS of a cold load (parse, write the cache) and a warm one (read the cache).

    Each runs in its own Python process, so its peak resident memory is its own.
    `cache_dir` is emptied first, so the cold load parses.
    """
    shutil.rmtree(cache_dir, ignore_errors=True)
    runs = {}
    for kind in ("cold", "warm"):
        done = subprocess.run(
            [sys.executable, "-c", _LOAD_SCRIPT, str(catalog), str(cache_dir)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        runs[kind] = json.loads(done.stdout)
    return runs


def _card_and_generic_rulings(
    catalog: Catalog,
) -> tuple[dict[str, list[tuple[str, str]]], list[tuple[str, str]]]:
    """({oracle_id: its (date, text) rulings}, the generic rulings' (date, text)), sorted."""
    rulings = (
        catalog["rulings"]
        .filter(pl.col("text") != "")
        .unique(["oracle_id", "date", "text"])
        .sort("oracle_id", "date", "text")
    )
    per_card = rulings.group_by("oracle_id", maintain_order=True).agg("date", "text")
    by_card = {row[0]: list(zip(row[1], row[2], strict=True)) for row in per_card.iter_rows()}
    counts = rulings.group_by("text").agg(pl.col("oracle_id").n_unique())
    generic = counts.filter(pl.col("oracle_id") >= GENERIC_MIN_CARDS)
    generic_rulings = (
        rulings.join(generic.select("text"), on="text")
        .sort("text", "date")
        .unique("text", keep="first", maintain_order=True)
    )
    return by_card, list(zip(generic_rulings["date"], generic_rulings["text"], strict=True))


def split_catalog(catalog: Catalog, held_out: set[str]) -> Catalog:
    """The catalog without the cards (oracle_ids) in `held_out`."""
    keep = ~pl.col("oracle_id").is_in(list(held_out))
    return Catalog(
        cards=catalog["cards"].filter(keep),
        rulings=catalog["rulings"].filter(keep),
        foreign=catalog["foreign"].filter(keep),
    )


def first_printed(catalog: Catalog) -> pl.DataFrame:
    """oracle_id, first_printed (String, ISO date): each card's first printing's release date
    (its own: Saw It Coming's Pro Tour promo, in a set released in 2007, is of 2021-10-01)."""
    return (
        catalog["cards"]
        .filter(pl.col("oracle_id").is_not_null())
        .group_by("oracle_id")
        .agg(first_printed=pl.col("release_date").min())
        .sort("oracle_id")
    )


def newest_split(catalog: Catalog, with_rulings: list[str], held_out: int) -> tuple[str, Catalog]:
    """(cutoff, the catalog as it was on the cutoff): the latest set release date after
    which at least `held_out` cards of `with_rulings` were first printed, and the catalog
    without every printing released after it (whole sets, reprints included, and the
    promos added later to an older set) and without the cards first printed after it
    (their rulings and foreign printings).

    Raises RulingsError when fewer than `held_out` cards of `with_rulings` have a date.
    """
    firsts = first_printed(catalog)
    counts = (
        firsts.filter(pl.col("oracle_id").is_in(with_rulings))
        .group_by("first_printed")
        .len()
        .sort("first_printed", descending=True)
    )
    newer = 0
    for date, n in counts.iter_rows():
        if newer >= held_out:
            cutoff = date
            break
        newer += n
    else:
        raise RulingsError(f"fewer than {held_out} cards with rulings have a first printing")
    removed = firsts.filter(pl.col("first_printed") > cutoff)["oracle_id"]
    cards = catalog["cards"].filter(
        (pl.col("release_date") <= cutoff) & ~pl.col("oracle_id").is_in(removed.implode())
    )
    kept = pl.col("uuid").is_in(cards["uuid"].implode())
    rulings, foreign = catalog["rulings"].filter(kept), catalog["foreign"].filter(kept)
    return cutoff, Catalog(cards=cards, rulings=rulings, foreign=foreign)


def build_eval_dumps(
    catalog: Catalog, oracle_ids: list[str], rng: random.Random, prefix: str
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One dump per card: (raw dumps: path, content; expected: path, oracle_id, card_name).

    The same catalog, cards and rng state give the same dumps: every frame is
    sorted before a row is picked from it.
    """
    by_card, generic_list = _card_and_generic_rulings(catalog)
    cards = (
        catalog["cards"]
        .sort("oracle_id", "set_release_date", "uuid")
        .unique("oracle_id", keep="first", maintain_order=True)
    )
    card_rows = {row["oracle_id"]: row for row in cards.iter_rows(named=True)}
    foreign = (
        catalog["foreign"]
        .sort("oracle_id", "language", "uuid")
        .unique(["oracle_id", "language"], keep="first", maintain_order=True)
    )
    foreign_text = {
        (o, lang): t for o, lang, t in foreign.select("oracle_id", "language", "text").iter_rows()
    }
    paths, contents, names, stub_chars = [], [], [], []
    for i, oracle_id in enumerate(oracle_ids):
        site = SITE_LOCALES[rng.choice(sorted(SITE_LOCALES))]
        entries = list(by_card[oracle_id])
        if rng.random() < GENERIC_SHARE:
            entries += rng.sample(generic_list, k=min(3, len(generic_list)))
        rng.shuffle(entries)
        card = card_rows[oracle_id]
        text = card["text"] if site.code == "en" else foreign_text.get((oracle_id, site.code))
        stub = None
        if text and rng.random() < STUB_SHARE:
            stub = CardStub(card["mana_value"], card["power"], card["toughness"], text)
        dump = build_site_dump(site, [(dt.date.fromisoformat(d), t) for d, t in entries], stub)
        paths.append(f"{prefix}{i:05d}.txt")
        contents.append(dump.content().encode())
        names.append(card["name"])
        stub_chars.append(len(" ".join((dump.stub[3] or "").split())) if dump.stub else 0)
    raw = pl.DataFrame(
        {"path": paths, "content": contents}, schema={"path": pl.String, "content": pl.Binary}
    )
    expected = pl.DataFrame(
        {"path": paths, "expected_oracle_id": oracle_ids, "expected_name": names,
         "stub_chars": stub_chars},
        schema_overrides={"stub_chars": pl.Int64},
    )  # fmt: skip
    return raw, expected.join(identifiable_by(catalog, expected), on="path", how="left")


def _with_rulings(catalog: Catalog) -> list[str]:
    """The oracle_ids with a ruling of some text, sorted."""
    rulings = catalog["rulings"].filter(pl.col("text") != "")
    return sorted(rulings["oracle_id"].drop_nulls().unique())


def _choose_random(
    catalog: Catalog, cards: int, held_out: int, rng: random.Random, twins: int
) -> tuple[list[str], list[str], list[tuple[str, str]]]:
    """(cards kept, cards removed, twin pairs: the first `twins` with one removed) for "random"."""
    chosen = rng.sample(_with_rulings(catalog), cards + held_out)
    inside, outside = chosen[:cards], chosen[cards:]
    pairs = choose_twins(catalog, 2 * twins, rng, set(chosen)) if twins else []
    outside += [a for a, _ in pairs[:twins]]
    inside += [b for _, b in pairs[:twins]] + [c for pair in pairs[twins:] for c in pair]
    return inside, outside, pairs


def _choose_newest(
    catalog: Catalog, cards: int, held_out: int, rng: random.Random
) -> tuple[list[str], list[str], Catalog, dict[str, Any]]:
    """(cards kept, cards removed, the reduced catalog, what was removed) for "newest".

    `held_out` of the cards first printed after `newest_split`'s cutoff, with
    rulings; `cards` of the reduced catalog's cards with rulings.
    """
    with_rulings = _with_rulings(catalog)
    cutoff, reduced = newest_split(catalog, with_rulings, held_out)
    kept = set(reduced["cards"]["oracle_id"].drop_nulls())
    newest = [o for o in with_rulings if o not in kept]
    inside = rng.sample(_with_rulings(reduced), cards)
    outside = rng.sample(newest, held_out)
    gone = catalog["cards"].filter(pl.col("release_date") > cutoff)
    split = {
        "removed": "newest", "cutoff": cutoff,
        "cards_removed": len({o for o in catalog["cards"]["oracle_id"].drop_nulls()} - kept),
        "cards_removed_with_rulings": len(newest),
        "sets_removed": sorted(gone["set_code"].unique()),
        "twins": "not drawn (a removed set's twin is removed with it)",
    }  # fmt: skip
    return inside, outside, reduced, split


def evaluate_attribution(
    catalog_path: Path, cache_dir: Path, cards: int, held_out: int, seed: int = 0,
    twins: int = 0, removed: str = "random",
) -> dict[str, Any]:  # fmt: skip
    """Attribution on `cards` dumps of catalog cards and `held_out` of removed cards.

    `removed`: "random" (cards drawn at random) or "newest" (`newest_split`: the
    catalog as it was before the newest sets; `twins` is ignored then). `twins`
    pairs of cards sharing a ruling only they carry add, each, one of the pair
    removed (its dump out of the catalog) and the other kept (in), and as many
    pairs both kept (both dumps in). The dumps and the reduced catalog are
    written under `cache_dir`'s parent (`eval-raw/`, `eval-catalog/`), and the
    run's output under `eval-output/`.
    """
    catalog, _ = load_catalog(catalog_path, cache_dir)
    rng = random.Random(seed)
    if removed not in ("random", "newest"):
        raise RulingsError(f"--removed is random or newest, not {removed!r}")
    if removed == "newest":
        inside, outside, reduced, split = _choose_newest(catalog, cards, held_out, rng)
        pairs, twins = [], 0
    else:
        inside, outside, pairs = _choose_random(catalog, cards, held_out, rng, twins)
        reduced, split = split_catalog(catalog, set(outside)), {"removed": "random"}
    raw_in, expected_in = build_eval_dumps(reduced, inside, rng, "in_")
    raw_out, expected_out = build_eval_dumps(catalog, outside, rng, "out_")
    work = cache_dir.parent
    raw = _write_dumps(pl.concat([raw_in, raw_out]), work / "eval-raw")
    reduced_path = write_catalog(reduced, work / "eval-catalog")
    shutil.rmtree(work / "eval-output", ignore_errors=True)
    started = time.perf_counter()
    at_noon = dt.datetime.combine(TODAY, dt.time(12), tzinfo=dt.UTC)
    run = run_direct(raw, work / "eval-output", catalog=reduced_path, started_at=at_noon)
    seconds = time.perf_counter() - started
    found = run["tables"]["dumps"].select("path", "card_name", "oracle_id", "card_attribution")
    pl.concat([expected_in, expected_out]).write_parquet(work / "eval-expected.parquet")
    twin_paths = pl.Series("expected_oracle_id", [c for p in pairs for c in p], pl.String)
    twin_paths = twin_paths.to_frame()
    return {
        "catalog": str(catalog_path),
        "seed": seed,
        "removal": split,
        "in_catalog": score_inside(found.join(expected_in, on="path")),
        "out_of_catalog": score_outside(found.join(expected_out, on="path")),
        "twins": {
            "pairs_removed_one": len(pairs[:twins]),
            "pairs_both_kept": len(pairs[twins:]),
            "in_catalog": score_inside(
                found.join(expected_in, on="path").join(twin_paths, on="expected_oracle_id")
            ),
            "out_of_catalog": score_outside(
                found.join(expected_out, on="path").join(twin_paths, on="expected_oracle_id")
            ),
        },
        "pipeline_seconds": round(seconds, 1),
        "structural_bound": structural_bound(catalog, work),
    }


def _write_dumps(raw: pl.DataFrame, folder: Path) -> Path:
    """Write each row's `content` to `folder/<path>` (the folder emptied first)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for path, content in raw.select("path", "content").iter_rows():
        (folder / path).write_bytes(content)
    return folder


#: ISO code -> MTGJSON foreignData language name (`cards.MTGJSON_LANGUAGES` reversed).
_MTGJSON_NAMES = {code: name for name, code in MTGJSON_LANGUAGES.items()}


def write_catalog(catalog: Catalog, folder: Path) -> Path:
    """Write `catalog`'s tables as MTGJSON v5 set files (`<SET>.json.gz`) into `folder`.

    What `flows.stages.cards.extract_set` reads comes back as it was: a
    printing's fields, its rulings and its foreign printings with text.
    """
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    rulings = catalog["rulings"].group_by("uuid").agg(pl.struct("date", "text").alias("rulings"))
    foreign = (
        catalog["foreign"]
        .group_by("uuid")
        .agg(pl.struct("language", "name", "text").alias("foreignData"))
    )
    cards = (
        catalog["cards"].join(rulings, on="uuid", how="left").join(foreign, on="uuid", how="left")
    )
    for (set_code,), printings in cards.group_by("set_code", maintain_order=True):
        data = {
            "code": set_code,
            "releaseDate": printings["set_release_date"][0],
            "cards": [_mtgjson_card(row) for row in printings.iter_rows(named=True)],
        }
        with gzip.open(folder / f"{set_code}.json.gz", "wt", encoding="utf-8") as out:
            json.dump({"meta": {}, "data": data}, out)
    return folder


def _mtgjson_card(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "uuid": row["uuid"], "identifiers": {"scryfallOracleId": row["oracle_id"]},
        "name": row["name"], "faceName": row["face_name"], "setCode": row["set_code"],
        "originalReleaseDate": row["release_date"],
        "manaValue": row["mana_value"], "power": row["power"], "toughness": row["toughness"],
        "text": row["text"], "subtypes": row["subtypes"], "keywords": row["keywords"],
        "printings": row["printings"], "rulings": row["rulings"] or [],
        "foreignData": [
            {**f, "language": _MTGJSON_NAMES[f["language"]]} for f in row["foreignData"] or []
        ],
    }  # fmt: skip
