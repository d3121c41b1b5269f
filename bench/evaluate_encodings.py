"""Measure how legacy code pages and mojibake are read (`python -m bench eval encodings`).

Real texts, as each site pastes them (`corpus.build_site_dump`: its header, its
date·source lines, real English rulings from `mtgjson_v5_rulings.jsonl`, each
followed by a real card text of the site's language from
`mtgjson_v5_foreign_cards.jsonl.gz` as its translation; the English site's
dumps have rulings only), with 0 (the header alone), 1, 3 and 10 entries, made two ways:

- saved in every legacy code page of the site's language (CODE_PAGES); a
  character the page cannot write is saved as `?`, as an editor saves it
  (the dump's text is then the one saved);
- UTF-8 whose translation lines went once through cp1252, MacRoman or
  Windows-1251 and back (MOJIBAKE_VIA: a translation pasted from a tool that
  misread it, as in case c17), when that reading is defined.

A dump is read right when the product's decoding (`encodings.decode_bytes`,
the mojibake repair included) gives its text exactly; misses are listed by
kind (what it was read as, and the repair claimed). Short dumps are the hard
ones: a few bytes make charset-normalizer's guess weak, and one mojibake pair
is below ftfy's measure. Dumps whose bytes are ASCII (nothing to guess) are
counted (`left_out`, with mojibake no page made of them), not decoded.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import random
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import polars as pl
import typer

from bench.corpus import (
    SITE_LOCALES,
    SiteDump,
    build_site_dump,
    load_foreign_cards,
    load_rulings,
)
from flows.stages.encodings import decode_bytes

#: The legacy code pages each site's dumps are saved in: Windows, ISO, DOS and Mac
#: pages of the language's script, and the East Asian sites' multi-byte ones (with
#: their Windows supersets).
WESTERN_PAGES = ("cp1252", "latin_1", "iso8859_15", "cp850", "cp437", "mac_roman")
CODE_PAGES: dict[str, tuple[str, ...]] = {
    "en": (*WESTERN_PAGES, "cp1251", "koi8_r"),  # an English page on any machine: its `·`
    "fr": WESTERN_PAGES,
    "de": WESTERN_PAGES,
    "es": WESTERN_PAGES,
    "it": WESTERN_PAGES,
    "pt": WESTERN_PAGES,
    "ru": ("cp1251", "koi8_r", "cp866", "iso8859_5", "mac_cyrillic"),
    "ja": ("shift_jis", "cp932", "euc_jp"),
    "zh-cn": ("gbk", "gb18030"),
    "zh-tw": ("big5", "cp950"),
    "ko": ("euc_kr", "cp949"),
}
#: What a translation line's UTF-8 went through before it was pasted (mojibake).
MOJIBAKE_VIA = ("cp1252", "mac_roman", "cp1251")
#: Entries per dump (0: a card page without rulings, its header alone).
SIZES = (0, 1, 3, 10)
PUBLISHED_ON = dt.date(2024, 6, 7)
EXAMPLES_PER_KIND = 3


def evaluate_encodings(real_dir: Path, per_size: int = 40, seed: int = 0) -> dict[str, Any]:
    """Make `per_size` dumps of each size, site and way (saved in a code page, mojibake);
    decode each.

    Returns:
        per site language, way and code page: dumps decoded, read right, misses by
        kind (with examples); the totals; the dumps left out (ASCII, or no
        mojibake made) and those saved with `?` for characters their page
        cannot write.
    """
    started = time.perf_counter()
    rng = random.Random(seed)
    rulings = sorted(t for t in load_rulings(real_dir)["text"].unique().to_list() if "\n" not in t)
    cards = _card_texts(real_dir)
    results: dict[str, Any] = {}
    lossy = unmade = 0
    for code, site in SITE_LOCALES.items():
        texts = cards.filter(pl.col("language") == site.mtgjson_language)["text"].to_list()
        ways = [("saved in", p) for p in CODE_PAGES[code]]
        ways += [("mojibake via", p) for p in MOJIBAKE_VIA if texts]
        for way, page in ways:
            counts: Counter[str] = Counter()
            examples: dict[str, list[str]] = {}
            for size in SIZES:
                for _ in range(per_size):
                    chosen = rng.sample(rulings, size)
                    translations = (
                        dict(zip(chosen, rng.sample(texts, size), strict=True)) if texts else None
                    )
                    dump = build_site_dump(
                        site, [(PUBLISHED_ON, t) for t in chosen], None, translations
                    )
                    made = _made(dump, way, page)
                    if made is None or made[0].isascii():
                        unmade += 1
                        continue
                    content, text = made
                    lossy += text != dump.content()
                    _score(content, text, counts, examples)
            results[f"{code} {way} {page}"] = {
                "decoded": sum(counts.values()),
                "right": counts["right"],
                "misses": {k: {"count": n, "examples": examples[k]} for k, n in counts.items()
                           if k != "right"},
            }  # fmt: skip
    total = sum(r["decoded"] for r in results.values())
    right = sum(r["right"] for r in results.values())
    return {
        "command": "python -m bench eval encodings",
        "seed": seed,
        "per_size": per_size,
        "sizes": list(SIZES),
        "decoded": total,
        "right": right,
        "share_right": round(right / total, 4) if total else None,
        "left_out": unmade,
        "saved_with_question_marks": lossy,
        "by_site_and_code_page": results,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _first_difference(expected: str, found: str) -> str:
    """The first line that differs: `expected → found`."""
    for want, got in zip(expected.splitlines(), found.splitlines(), strict=False):
        if want != got:
            return f"{want[:80]!r} → {got[:80]!r}"
    return f"{len(expected.splitlines())} lines → {len(found.splitlines())}"


def _card_texts(real_dir: Path) -> pl.DataFrame:
    """Distinct real foreign card texts (language, text), each on one line."""
    return (
        load_foreign_cards(real_dir)
        .filter(pl.col("text").is_not_null())
        .with_columns(pl.col("text").str.replace_all("\n", " "))
        .unique(["language", "text"])
        .sort("language", "text")
    )


def _made(dump: SiteDump, way: str, page: str) -> tuple[bytes, str] | None:
    """The dump's bytes made `way` with `page`, and the text they should read as; None
    for mojibake that `page` cannot make of any translation line (a byte it leaves
    undefined)."""
    written = dump.content()
    if way == "saved in":
        content = written.encode(page, errors="replace")
        return content, content.decode(page)  # as saved: what the page cannot write is `?`
    lines = written.splitlines(keepends=True)
    for number in dump.translation_of:  # 1-based
        with contextlib.suppress(UnicodeDecodeError):  # a byte the page leaves undefined
            lines[number - 1] = lines[number - 1].encode().decode(page)
    made = "".join(lines)
    return (made.encode(), written) if made != written else None


def _score(content: bytes, text: str, counts: Counter[str], examples: dict[str, list[str]]) -> None:
    """Decode `content` as the product does; count it right (its `text`) or by what it was
    read as, with the first EXAMPLES_PER_KIND misses of each kind."""
    decoded = decode_bytes(content)
    kind = "right" if decoded.text == text else f"read as {decoded.encoding} ({decoded.repair})"
    counts[kind] += 1
    if kind != "right" and len(examples.setdefault(kind, [])) < EXAMPLES_PER_KIND:
        examples[kind].append(_first_difference(text, decoded.text or ""))


def eval_encodings(
    real: Annotated[Path, typer.Option("--real", help="The real data folder.")] = Path(
        "../shared/data/real"
    ),
    per_size: Annotated[int, typer.Option("--per-size", min=1, help="Dumps per size.")] = 100,
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")] = Path(
        "bench/eval-encodings.json"
    ),
) -> None:
    """Save real dumps of 0, 1, 3 and 10 entries in each legacy code page of their site's
    language, and with mojibake translations; count those read as their text; write
    RESULTS (misses by kind).

    Example:

        python -m bench eval encodings --results bench/eval-encodings.json
    """
    measured = evaluate_encodings(real, per_size)
    results.write_text(json.dumps(measured, indent=2, ensure_ascii=False) + "\n", "utf-8")
    typer.echo({k: measured[k] for k in ("decoded", "right", "share_right")})
