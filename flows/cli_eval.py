"""`ruling-dumps eval`: measure dedup, language labels and card attribution on real data.

Each command writes its results (JSON, and a markdown summary) under `bench/`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from flows.errors import RulingsError

eval_app = typer.Typer(
    epilog="Example: ruling-dumps eval dedup && ruling-dumps eval languages --per-language 1000",
    add_completion=False,
    no_args_is_help=True,
    help="Evaluations against real data, results written under bench/.",
)
RealOption = Annotated[Path, typer.Option("--real", help="Real data folder (derived/).")]


@eval_app.command("dedup")
def eval_dedup(
    real: RealOption = Path("../shared/data/real"),
    positives: Annotated[
        int, typer.Option("--positives", min=1, help="Typo variants to make (recall).")
    ] = 2500,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same typo variants.")] = 0,
    results: Annotated[
        Path, typer.Option("--results", help="JSON file; a .md summary is written beside it.")
    ] = Path("bench/eval-dedup.json"),
) -> None:
    """Measure dedup on real rulings: hard negatives merged, typo recall, time.

    Reads REAL/derived/mtgjson_v5_rulings.jsonl; writes RESULTS and RESULTS
    with a .md suffix.

    Example:

        ruling-dumps eval dedup --results bench/eval-dedup.json
    """
    from flows.evaluate_dedup import evaluate_dedup, write_results

    rulings = real / "derived" / "mtgjson_v5_rulings.jsonl"
    if not rulings.is_file():
        typer.echo(f"error: {rulings} not found; pass --real with the real data folder", err=True)
        raise typer.Exit(1)
    measured = evaluate_dedup(rulings, positives, seed)
    write_results(measured, results, results.with_suffix(".md"))
    negatives, recall = measured["hard_negatives"], measured["positives"]
    typer.echo(
        f"hard negatives merged: {negatives['merged']} of {negatives['pairs']}; "
        f"typo recall: {recall['recall']:.2%} of {recall['variants']}; "
        f"dedup: {measured['dedup_seconds']} s on {measured['distinct_texts']} texts"
    )


@eval_app.command("languages")
def eval_languages(
    real: RealOption = Path("../shared/data/real"),
    per_language: Annotated[
        int, typer.Option("--per-language", min=1, help="Foreign card texts per language.")
    ] = 1000,
    english_sample: Annotated[
        int | None,
        typer.Option("--english-sample", min=1, help="English rulings (default: every one)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same samples.")] = 0,
    processes: Annotated[int, typer.Option("--processes", min=1, help="langdetect processes.")] = 2,
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")] = Path(
        "bench/eval-languages.json"
    ),
) -> None:
    """Measure language labels on real rulings, translations and stubs; write RESULTS (+ .md).

    Example:

        ruling-dumps eval languages --per-language 1000 --results bench/eval-languages.json
    """
    from flows.evaluate_languages import evaluate_languages, results_markdown

    measured = evaluate_languages(real, per_language, english_sample, seed, processes)
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(measured, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    report = results_markdown(measured)
    results.with_suffix(".md").write_text(report, encoding="utf-8")
    typer.echo(report.split("\n## ")[0])


@eval_app.command("attribution")
def eval_attribution(
    catalog: Annotated[Path, typer.Option("--catalog", help="MTGJSON AllPrintings or set files.")],
    cards: Annotated[int, typer.Option("--cards", min=1, help="Dumps of catalog cards.")] = 1000,
    held_out: Annotated[
        int, typer.Option("--held-out", min=1, help="Dumps of cards removed from the catalog.")
    ] = 300,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same dumps.")] = 0,
    work: Annotated[Path, typer.Option("--work", help="Scratch folder (catalog cache).")] = Path(
        "/tmp/ruling-dumps-eval"
    ),
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")] = Path(
        "bench/attribution-eval.json"
    ),
) -> None:
    """Measure the catalog load (cold, warm) and attribution accuracy; write RESULTS.

    Targets: accuracy >= 99 % on cards in the catalog, no oracle_id on cards
    removed from it.

    Example:

        ruling-dumps eval attribution --catalog AllPrintings.json.xz --cards 1000 --held-out 300
    """
    from flows.evaluate import evaluate_attribution, measure_catalog_load

    cache = work / "catalog-cache"
    try:
        load = (
            measure_catalog_load(catalog, work / "catalog-load-cache") if catalog.exists() else {}
        )
        measured = evaluate_attribution(catalog, cache, cards, held_out, seed)
    except RulingsError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    inside, outside = measured["in_catalog"], measured["out_of_catalog"]
    measured["catalog_load"] = load
    measured["against_targets"] = {
        "in_catalog_accuracy_at_least_0.99": (inside["accuracy"] or 0) >= 0.99,
        "out_of_catalog_wrong_is_0": outside["wrong"] == 0,
    }
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(measured, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    typer.echo(json.dumps(measured["against_targets"], indent=2))
