"""Tooling, not product: `python -m bench` generates corpora, benchmarks runs, evaluates quality.

Run from the project folder (the tooling is not installed with the product, and no product
module imports it). Each command writes its results (JSON, some with a markdown summary)
under `bench/`, where bench/README.md and docs/benchmarks.md read them.

    python -m bench generate --lines 1000000 /tmp/corpus-1m
    python -m bench run /tmp/corpus-1m --results bench/results-1m.json
    python -m bench seeds --runs 3 --results bench/results-seeds.json
    python -m bench parse-cpu /tmp/corpus-1m --results bench/parse-cpu-1m.json
    python -m bench memory --results bench/read-memory.json
    python -m bench eval dedup | languages | attribution | engine | encodings | dates
    python -m bench identity record | compare
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from bench.evaluate_dates import eval_dates
from bench.evaluate_encodings import eval_encodings
from flows.errors import RulingsError

app = typer.Typer(
    epilog="Example: python -m bench generate --lines 100000 /tmp/c100k && "
    "python -m bench run /tmp/c100k",
    add_completion=False,
    no_args_is_help=True,
    help="Benchmark and evaluation tooling: corpora from real data, timed runs, quality.",
)
RawOption = Annotated[Path, typer.Option("--raw", help="Folder of dump files (*.txt).")]
RealOption = Annotated[
    Path, typer.Option("--real", help="Real data folder (derived/, zh_release_notes/).")
]


@app.command("generate")
def bench_generate(
    out: Annotated[Path, typer.Argument(help="Folder to write the dumps into (must be empty).")],
    lines: Annotated[
        int, typer.Option("--lines", min=1, help="Lines to write, at least.")
    ] = 100_000,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same files.")] = 0,
    real: RealOption = Path("../shared/data/real"),
) -> None:
    """Write a realistic corpus of dumps built from real data (deterministic for a seed).

    Example:

        python -m bench generate --lines 1000000 /tmp/corpus-1m
    """
    from bench.corpus import generate_corpus, load_sources

    if out.exists() and any(out.iterdir()):
        _fail(RulingsError(f"{out} is not empty; give a new folder"))
    stats = generate_corpus(load_sources(real), out, lines, seed)
    sizes = f"{stats.dumps} dumps, {stats.lines} lines, {stats.bytes} bytes"
    typer.echo(f"wrote {sizes} ({stats.cards} cards, a card per site copy) into {out}")


def _record(measured: dict[str, Any], results: Path, ensure_ascii: bool = True) -> None:
    """Write a benchmark's results as JSON to `results`; print its figures against the targets."""
    results.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(measured, indent=2, ensure_ascii=ensure_ascii)
    results.write_text(text + "\n", encoding="utf-8")
    shown = measured.get("against_targets") or {k: measured[k] for k in ("cold", "warm")}
    typer.echo(json.dumps(shown, indent=2))


@app.command("run")
def bench_run(
    corpus: Annotated[Path, typer.Argument(help="A corpus from `bench generate`.")],
    work: Annotated[
        Path, typer.Option("--work", help="Scratch folder (copied corpus, outputs).")
    ] = Path("/tmp/ruling-dumps-bench"),
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")] = Path(
        "bench/results.json"
    ),
    scale: Annotated[
        bool, typer.Option("--scale", help="Only the flow's runs and a direct run's steps.")
    ] = False,
) -> None:
    """Measure cold and warm runs, the floor and the naive reference; write RESULTS.

    --scale (10M lines, an archive of ten sites): the flow's runs and a direct
    run's steps only (`bench/scale.py`; the floor and naive take an hour there).

    Example:

        python -m bench run /tmp/corpus-1m --results bench/results-1m.json
    """
    try:
        from bench.scale import run_scale
        from bench.timing import run_benchmark
    except ImportError as exc:  # psutil, httpx: the `bench` extra
        _fail(RulingsError(f"{exc}; install the bench extra: pip install -e '.[bench]'"))
    _record(_one_line(run_scale if scale else run_benchmark, corpus, work), results)


@app.command("seeds")
def bench_seeds(
    raw: RawOption = Path("raw"),
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs to time (median).")] = 3,
    work: Annotated[
        Path, typer.Option("--work", help="Scratch folder (outputs, Prefect's home).")
    ] = Path("/tmp/ruling-dumps-bench-seeds"),
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")] = Path(
        "bench/results-seeds.json"
    ),
) -> None:
    """Time `make run` on the seeds: Prefect's server start, and the pipeline's work after it.

    Example:

        python -m bench seeds --runs 3 --results bench/results-seeds.json
    """
    try:
        from bench.seeds import run_seed_benchmark
    except ImportError as exc:  # psutil, httpx: the `bench` extra
        _fail(RulingsError(f"{exc}; install the bench extra: pip install -e '.[bench]'"))
    _record(_one_line(run_seed_benchmark, raw, work, runs), results)


@app.command("parse-cpu")
def bench_parse_cpu(
    raw_dir: Annotated[Path, typer.Argument(help="A raw folder (a corpus, raw/).")],
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")],
) -> None:
    """CPU time of each step of a cold parse (no Prefect, no langdetect); write RESULTS.

    Example:

        python -m bench parse-cpu /tmp/corpus-1m --results bench/parse-cpu-1m.json
    """
    from bench.parse_cpu import measure_parse

    _write(_one_line(measure_parse, raw_dir), results)


@app.command("memory")
def bench_memory(
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")],
    sizes_mb: Annotated[
        list[int] | None, typer.Option("--size-mb", help="File sizes to read (MiB); repeat.")
    ] = None,
) -> None:
    """Peak memory of reading one dump of each size (fresh processes); write RESULTS.

    Example:

        python -m bench memory --results bench/read-memory.json
    """
    from bench.memory import measure_sizes

    _write(_one_line(measure_sizes, sizes_mb or [0, 8, 16, 32, 64]), results)


def _write(measured: dict[str, Any], results: Path) -> None:
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(measured, indent=2) + "\n", encoding="utf-8")
    typer.echo(f"wrote {results}")


def _fail(exc: Exception) -> None:
    typer.echo(f"error: {exc}", err=True)
    raise typer.Exit(1)


def _one_line(run: Any, *args: Any) -> Any:
    """`run(*args)`, a failure as one `error:` line and exit code 1."""
    try:
        return run(*args)
    except (RulingsError, OSError, ValueError) as exc:
        _fail(exc)


eval_app = typer.Typer(
    name="eval",
    epilog="Example: python -m bench eval dedup && "
    "python -m bench eval languages --per-language 1000",
    add_completion=False,
    no_args_is_help=True,
    help="Evaluations against real data, results written under bench/.",
)


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

        python -m bench eval dedup --results bench/eval-dedup.json
    """
    from bench.dedup_report import write_results
    from bench.evaluate_dedup import evaluate_dedup
    from bench.evaluate_engine import rulings_file

    measured = evaluate_dedup(rulings_file(real), positives, seed)
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
    work: Annotated[Path, typer.Option("--work", help="Scratch folder (dumps, output).")] = Path(
        "/tmp/ruling-dumps-eval-languages"
    ),
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")] = Path(
        "bench/eval-languages.json"
    ),
) -> None:
    """Measure language labels on real rulings, translations and stubs; write RESULTS (+ .md).

    Example:

        python -m bench eval languages --per-language 1000 --results bench/eval-languages.json
    """
    from bench.evaluate_languages import evaluate_languages, results_markdown

    measured = evaluate_languages(real, per_language, english_sample, seed, processes, work)
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(measured, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    report = results_markdown(measured)
    results.with_suffix(".md").write_text(report, encoding="utf-8")
    typer.echo(report.split("\n## ")[0])


@eval_app.command("engine")
def eval_engine(
    real: RealOption = Path("../shared/data/real"),
    sample: Annotated[
        int | None, typer.Option("--sample", min=1, help="Texts sampled (default: every one).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same sample and odd texts.")] = 0,
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")] = Path(
        "bench/eval-engine.json"
    ),
) -> None:
    """Compare the batched engine with langdetect on every distinct real text; write RESULTS.

    Counts the texts whose answers differ (target 0) and the CPU per text of
    each (target: the engine 10x below); one process, ~15 min on all texts.

    Example:

        python -m bench eval engine --results bench/eval-engine.json
    """
    from bench.evaluate_engine import evaluate_engine

    measured = _one_line(evaluate_engine, real, sample, seed)
    _record(measured, results, ensure_ascii=False)


@eval_app.command("attribution")
def eval_attribution(
    catalog: Annotated[Path, typer.Option("--catalog", help="MTGJSON AllPrintings or set files.")],
    cards: Annotated[int, typer.Option("--cards", min=1, help="Dumps of catalog cards.")] = 1000,
    held_out: Annotated[
        int, typer.Option("--held-out", min=1, help="Dumps of cards removed from the catalog.")
    ] = 300,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same dumps.")] = 0,
    twins: Annotated[
        int, typer.Option("--twins", min=0, help="Pairs of cards sharing rulings, each way.")
    ] = 0,
    removed: Annotated[
        str, typer.Option("--removed", help="random, or newest: the sets released last (no twins).")
    ] = "random",
    work: Annotated[Path, typer.Option("--work", help="Scratch folder (catalog cache).")] = Path(
        "/tmp/ruling-dumps-eval"
    ),
    results: Annotated[Path, typer.Option("--results", help="JSON file for the results.")] = Path(
        "bench/attribution-eval.json"
    ),
) -> None:
    """Measure the catalog load (cold, warm) and attribution accuracy; write RESULTS.

    Targets: >= 95 % of identifiable dumps of catalog cards right, no wrong
    card, no oracle_id on cards removed from it (twins included).

    Example:

        python -m bench eval attribution --catalog AllPrintings.json.xz --twins 100
        python -m bench eval attribution --catalog AllPrintings.json.xz --removed newest
    """
    from bench.attribution_scores import against_targets
    from bench.evaluate_attribution import evaluate_attribution, measure_catalog_load

    cache = work / "catalog-cache"
    try:
        load = (
            measure_catalog_load(catalog, work / "catalog-load-cache") if catalog.exists() else {}
        )
        measured = evaluate_attribution(catalog, cache, cards, held_out, seed, twins, removed)
    except RulingsError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None
    measured["catalog_load"] = load
    measured["against_targets"] = against_targets(measured)
    _record(measured, results, ensure_ascii=False)


identity_app = typer.Typer(
    name="identity",
    epilog="Example: python -m bench identity compare bench/identity-before.json "
    "bench/identity-after.json",
    add_completion=False,
    no_args_is_help=True,
    help="The same product: what a code tree publishes over fixed inputs (bench/identity.py).",
)


@identity_app.command("record")
def identity_record(
    out: Annotated[Path, typer.Option("--out", help="JSON file for the record.")],
    code: Annotated[Path, typer.Option("--code", help="The code tree to run.")] = Path("."),
    first_code: Annotated[
        Path | None, typer.Option("--first-code", help="The code tree of upgrade's first run.")
    ] = None,
    corpus: Annotated[
        Path | None, typer.Option("--corpus", help="A 100k-line corpus (bench generate).")
    ] = None,
    work: Annotated[Path, typer.Option("--work", help="Scratch folder.")] = Path(
        "/tmp/ruling-dumps-identity"
    ),
) -> None:
    """Run every scenario with the code tree CODE and write what it published to OUT.

    Example:

        python -m bench identity record --out bench/identity-after.json --corpus /tmp/c100k
    """
    from bench.identity import record

    first = (first_code or code).resolve()
    results = _one_line(record, code.resolve(), first, work.resolve(), corpus)
    out.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n", encoding="utf-8")


@identity_app.command("compare")
def identity_compare(
    before: Annotated[Path, typer.Argument(help="A record (identity record).")],
    after: Annotated[Path, typer.Argument(help="Another record.")],
) -> None:
    """Say whether two records are identical; exit 1 and list the differences when not.

    Example:

        python -m bench identity compare bench/identity-before.json bench/identity-after.json
    """
    from bench.identity import compare

    records = [
        _one_line(lambda p: json.loads(p.read_text(encoding="utf-8")), p) for p in (before, after)
    ]
    problems = compare(*records)
    typer.echo("\n".join(problems) or "identical: every table file and manifest count is the same")
    if problems:
        raise typer.Exit(1)


eval_app.command("encodings")(eval_encodings)  # their options and docs are there
eval_app.command("dates")(eval_dates)
app.add_typer(eval_app, name="eval")
app.add_typer(identity_app, name="identity")
if __name__ == "__main__":
    app()
