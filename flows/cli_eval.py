"""`ruling-dumps eval attribution`: attribution accuracy and catalog load against a real catalog."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from flows.errors import RulingsError

eval_app = typer.Typer(
    epilog="Example: ruling-dumps eval attribution "
    "--catalog ../shared/data/real/mtgjson_v5_AllPrintings_2022-04-25.json.xz",
    add_completion=False,
    no_args_is_help=True,
    help="Evaluations against real data, results written under bench/.",
)


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
