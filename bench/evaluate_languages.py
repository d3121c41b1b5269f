"""Measure language labels on real data (`python -m bench eval languages`).

Three measures, from the real files in `derived/` (seeded samples):

1. English stays English: real English ruling texts (`mtgjson_v5_rulings.jsonl`)
   as ruling bodies of dumps under the French site's header (as the seeds
   are): the share of rulings published `en`, and the lines moved to
   `ruling_translations` (target 100 % and 0).
2. Translations: real foreign card texts (`mtgjson_v5_foreign_cards.jsonl.gz`,
   each on one line) as translation lines under a real English ruling, in
   dumps of their site (`corpus.SITE_LOCALES`), with the site's header that
   claims the language, and with the English header that claims nothing:
   per language, the share found as a translation in the right language
   (targets 99.5 % and 97 %).
3. Stubs: the same texts cut as stubs (`CMC` line with the site's P/T
   initials, then 60 % of the text) at the end of a one-entry dump with the
   site's header: per language, the share of stubs in the right language
   (target 99 %).

All dumps go through the product's own run (`flows.run.run_direct`); the
lines of each dump come from its `dumps.build_dump_results` step.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any

import polars as pl

from bench.corpus import (
    SITE_LOCALES,
    CardStub,
    SiteDump,
    build_site_dump,
    load_foreign_cards,
    load_rulings,
)
from flows.run import DirectRunner, run_direct
from flows.stages.dumps import build_dump_results

#: Every entry's date (any past date: dates are not measured here).
PUBLISHED_ON = dt.date(2024, 6, 7)
#: English rulings per dump in measure 1, translated entries per dump in measure 2.
RULINGS_PER_DUMP = 20
TRANSLATIONS_PER_DUMP = 10
#: Targets of issue 11, as shares.
TARGETS = {"english": 1.0, "claimed": 0.995, "unclaimed": 0.97, "stubs": 0.99}
#: Misses listed per kind in the results.
EXAMPLES_PER_KIND = 5

_SITES = {site.mtgjson_language: site for site in SITE_LOCALES.values() if site.code != "en"}


def evaluate_languages(
    real_dir: Path,
    per_language: int = 1000,
    english_sample: int | None = None,
    seed: int = 0,
    processes: int = 2,
    work: Path = Path("/tmp/ruling-dumps-eval-languages"),
) -> dict[str, Any]:
    """Run the three measures; return the results (JSON-ready).

    Args:
        real_dir: the real data folder (holds `derived/`).
        per_language: distinct foreign card texts sampled per language.
        english_sample: English ruling texts sampled; None: every distinct one.
        seed: seeds every sample and pairing (same seed, same results).
        processes: langdetect processes.
        work: scratch folder (the dumps, the run's output), emptied first.

    Returns:
        english, claimed, unclaimed, stubs: each with its counts, shares and
        misses by kind; plus the parameters, the targets and the time taken.
    """
    started = time.perf_counter()
    rng = random.Random(seed)
    english = _english_texts(real_dir, english_sample, rng)
    foreign = _foreign_texts(real_dir, per_language, rng)
    one_line = [t for t in english if "\n" not in t]
    dumps: dict[str, SiteDump] = {}
    dumps |= _english_dumps(english)
    dumps |= _translation_dumps(foreign, one_line, rng, claimed=True)
    dumps |= _translation_dumps(foreign, one_line, rng, claimed=False)
    dumps |= _stub_dumps(foreign, one_line, rng)
    shutil.rmtree(work, ignore_errors=True)
    for path, dump in dumps.items():
        (work / "raw" / path).parent.mkdir(parents=True, exist_ok=True)
        (work / "raw" / path).write_bytes(dump.content().encode())
    runner = DirectRunner(keep=(build_dump_results,))
    day_after = dt.datetime.combine(PUBLISHED_ON + dt.timedelta(days=1), dt.time(12), dt.UTC)
    run = run_direct(work / "raw", work / "output", processes, day_after, runner)
    paths = run["tables"]["dumps"].select("dump_id", "path")
    [(_, every_line)] = runner.kept[build_dump_results]  # one run builds every dump once
    lines = every_line.join(paths, on="dump_id")
    return {
        "command": "python -m bench eval languages",
        "seed": seed,
        "per_language": per_language,
        "english_texts": len(english),
        "processes": processes,
        "targets": TARGETS,
        "english": _score_english(run["tables"], lines),
        "claimed": _score_translations(lines, dumps, "claimed/"),
        "unclaimed": _score_translations(lines, dumps, "unclaimed/"),
        "stubs": _score_stubs(run["tables"]["card_stubs"], dumps),
        "seconds": round(time.perf_counter() - started, 1),
    }


def _english_texts(real_dir: Path, sample: int | None, rng: random.Random) -> list[str]:
    texts = load_rulings(real_dir)["text"].unique().sort().to_list()
    return texts if sample is None else rng.sample(texts, min(sample, len(texts)))


def _foreign_texts(
    real_dir: Path, per_language: int, rng: random.Random
) -> dict[str, list[CardStub]]:
    """Distinct foreign card texts per site language code, `per_language` each."""
    cards = (
        load_foreign_cards(real_dir)
        .filter(pl.col("language").is_in(list(_SITES)) & pl.col("text").is_not_null())
        .unique(["language", "text"])
        .sort("language", "text")
    )
    sampled: dict[str, list[CardStub]] = {}
    for (language,), group in cards.group_by("language", maintain_order=True):
        rows = group.select("mana_value", "power", "toughness", "text").rows()
        chosen = rng.sample(rows, min(per_language, len(rows)))
        sampled[_SITES[str(language)].code] = [CardStub(*row) for row in chosen]
    return sampled


def _english_dumps(english: list[str]) -> dict[str, SiteDump]:
    site = SITE_LOCALES["fr"]
    return {
        f"english/{i:05d}.txt": build_site_dump(
            site, [(PUBLISHED_ON, t) for t in english[start : start + RULINGS_PER_DUMP]]
        )
        for i, start in enumerate(range(0, len(english), RULINGS_PER_DUMP))
    }


def _translation_dumps(
    foreign: dict[str, list[CardStub]], originals: list[str], rng: random.Random, claimed: bool
) -> dict[str, SiteDump]:
    """Dumps of TRANSLATIONS_PER_DUMP entries: an English ruling, then a foreign text's line."""
    kind = "claimed" if claimed else "unclaimed"
    dumps: dict[str, SiteDump] = {}
    for code, cards in foreign.items():
        site = SITE_LOCALES[code]
        if not claimed:
            site = dataclasses.replace(site, header=SITE_LOCALES["en"].header)
        for i, start in enumerate(range(0, len(cards), TRANSLATIONS_PER_DUMP)):
            chunk = cards[start : start + TRANSLATIONS_PER_DUMP]
            english = rng.sample(originals, len(chunk))
            translated = {e: " ".join(c.text.split()) for e, c in zip(english, chunk, strict=True)}
            dumps[f"{kind}/{code}/{i:04d}.txt"] = build_site_dump(
                site, [(PUBLISHED_ON, e) for e in english], translations=translated
            )
    return dumps


def _stub_dumps(
    foreign: dict[str, list[CardStub]], originals: list[str], rng: random.Random
) -> dict[str, SiteDump]:
    return {
        f"stubs/{code}/{i:04d}.txt": build_site_dump(
            SITE_LOCALES[code], [(PUBLISHED_ON, rng.choice(originals))], card=card
        )
        for code, cards in foreign.items()
        for i, card in enumerate(cards)
    }


def _score_english(tables: dict[str, pl.DataFrame], lines: pl.DataFrame) -> dict[str, Any]:
    mine = pl.col("path").str.starts_with("english/")
    rulings = tables["ruling_occurrences"].filter(mine)  # each row carries its dump's path
    wrong = rulings.filter(pl.col("language") != "en")
    moved = lines.filter(mine & (pl.col("kind") == "translation"))
    misses = [(f"published {lang}", t) for lang, t in wrong.select("language", "text_raw").rows()]
    misses += [
        (f"moved to translations as {lang}", t)
        for lang, t in moved.select("language", "line").rows()
    ]
    return {
        "rulings": rulings.height,
        "share_en": _share(rulings.height - wrong.height, rulings.height),
        "moved_to_translations": moved.height,
        "misses": _by_kind(misses),
    }


def _score_translations(
    lines: pl.DataFrame, dumps: dict[str, SiteDump], prefix: str
) -> dict[str, Any]:
    expected = pl.DataFrame(
        [
            (path, line_number, path.split("/")[1])
            for path, dump in dumps.items()
            if path.startswith(prefix)
            for line_number in dump.translation_of
        ],
        schema={"path": pl.String, "line_number": pl.Int64, "expected": pl.String},
        orient="row",
    )
    found = expected.join(lines, on=["path", "line_number"], how="left")
    kind = (
        pl.when(pl.col("kind") != "translation")
        .then(pl.format("kept as {} line", pl.col("kind")))
        .when(pl.col("language") != pl.col("expected"))
        .then(pl.format("translation as {}", pl.col("language")))
    )
    return _per_language(found.with_columns(_miss=kind, _text=pl.col("line")))


def _score_stubs(stubs: pl.DataFrame, dumps: dict[str, SiteDump]) -> dict[str, Any]:
    expected = pl.DataFrame({"path": [p for p in dumps if p.startswith("stubs/")]}).with_columns(
        expected=pl.col("path").str.split("/").list.get(1)
    )
    found = expected.join(stubs, on="path", how="left")  # each stub carries its dump's path
    kind = (
        pl.when(pl.col("dump_id").is_null())
        .then(pl.lit("no stub found"))
        .when(pl.col("language").ne_missing(pl.col("expected")))
        .then(pl.format("stub as {}", pl.col("language").fill_null("null")))
    )
    return _per_language(found.with_columns(_miss=kind, _text=pl.col("text")))


def _per_language(found: pl.DataFrame) -> dict[str, Any]:
    """Per expected language: n, right, share; misses by kind; overall share."""
    languages: dict[str, Any] = {}
    for (code,), group in found.sort("expected").group_by("expected", maintain_order=True):
        missed = group.filter(pl.col("_miss").is_not_null())
        languages[str(code)] = {
            "n": group.height,
            "right": group.height - missed.height,
            "share": _share(group.height - missed.height, group.height),
            "misses": _by_kind(missed.select("_miss", "_text").rows()),
        }
    right = sum(v["right"] for v in languages.values())
    return {"share": _share(right, found.height), "languages": languages}


def _by_kind(misses: list[tuple[str, str | None]]) -> dict[str, Any]:
    counts = Counter(kind for kind, _ in misses)
    return {
        kind: {
            "count": count,
            "examples": [text for k, text in misses if k == kind][:EXAMPLES_PER_KIND],
        }
        for kind, count in counts.most_common()
    }


def _share(right: int, total: int) -> float | None:
    return round(right / total, 5) if total else None


def results_markdown(results: dict[str, Any]) -> str:
    """The results as a markdown report: one table per measure, then misses by kind."""
    english = results["english"]
    out = [
        "# Language labels on real data",
        "",
        f"`{results['command']} --seed {results['seed']} --per-language "
        f"{results['per_language']}`: {results['english_texts']} English ruling texts, "
        f"{results['seconds']} s with {results['processes']} processes.",
        "",
        "| measure | result | target |",
        "|---|---|---|",
        f"| 1. English rulings published en | {_pct(english['share_en'])} of "
        f"{english['rulings']} | 100 % |",
        f"| 1. English lines moved to translations | {english['moved_to_translations']} | 0 |",
        f"| 2. translations, claimed header | {_pct(results['claimed']['share'])} | ≥ 99.5 % |",
        f"| 2. translations, no claim | {_pct(results['unclaimed']['share'])} | ≥ 97 % |",
        f"| 3. stubs | {_pct(results['stubs']['share'])} | ≥ 99 % |",
        "",
        "| language | translations, claimed | translations, no claim | stubs |",
        "|---|---|---|---|",
    ]
    for code in results["stubs"]["languages"]:
        cells = [
            _pct(results[m]["languages"].get(code, {}).get("share"))
            for m in ("claimed", "unclaimed", "stubs")
        ]
        out.append(f"| {code} | " + " | ".join(cells) + " |")
    out += ["", "## Misses by kind", ""]
    out += _misses_markdown("1. English", english["misses"])
    for measure in ("claimed", "unclaimed", "stubs"):
        for code, scores in results[measure]["languages"].items():
            out += _misses_markdown(f"{measure}, {code}", scores["misses"])
    return "\n".join(out) + "\n"


def _misses_markdown(title: str, misses: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for kind, found in misses.items():
        examples = "; ".join(f"`{(e or '')[:80]}`" for e in found["examples"])
        lines.append(f"- {title}: {kind} × {found['count']} (e.g. {examples})")
    return lines


def _pct(share: float | None) -> str:
    return "–" if share is None else f"{100 * share:.2f} %"
