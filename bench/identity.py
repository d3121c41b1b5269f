"""Same product, same tables: run one code tree over fixed inputs and record what it publishes.

A restructuring must not change a single published byte. `record` runs the
command line of a code tree (`python -m flows run`, the product's own path,
Prefect included) over each scenario and writes, per scenario, the sha256 of
every table file of `latest` (Parquet, JSON Lines, JSON Schema) and the
manifest's counts; `compare` says whether two records are identical and,
where not, which files differ. It talks to the code only through its command
line, so it records any version of it (an older commit in a `git worktree`).

Scenarios (inputs copied into the work folder, so every run sees the same paths):
    seeds            raw/ (the five real dumps), cold
    seeds_catalog    raw/ with the real MTGJSON catalog (`--catalog`)
    cases_realworld  ../shared/cases/realworld, cold
    cases_round3     ../shared/cases/round3, cold
    corpus_100k      a corpus from `python -m bench generate --lines 100000`, cold
    warm             seeds but 003 and the realworld cases, then every seed and
                     both case folders into the same output (the id registry at work)
    upgrade          `warm`, its first run made by another code tree (`--first-code`):
                     ruling ids survive the upgrade

Usage (from the project folder; see bench/README.md for the recorded result):
    python -m bench identity record --code . --out bench/identity-after.json \\
        --corpus /tmp/c100k --first-code /tmp/baseline
    python -m bench identity compare bench/identity-before.json bench/identity-after.json
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
CASES = SHARED / "cases"
CATALOG = SHARED / "data" / "real" / "mtgjson_v5_AllPrintings_2022-04-25.json.xz"
#: What of a manifest must not change (run ids, times and the work done may).
MANIFEST_KEYS = ("rows", "line_accounting", "ruling_ids", "inputs", "schema_version")


def _copy_tree(sources: dict[str, Path], raw: Path, skip: tuple[str, ...] = ()) -> Path:
    """A raw folder holding each source's *.txt under a subfolder named by its key."""
    for name, source in sources.items():
        (raw / name).mkdir(parents=True)
        for path in sorted(source.rglob("*.txt")):
            if path.name not in skip:
                target = raw / name / path.relative_to(source)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, target)
    return raw


def _run(code: Path, raw: Path, output: Path, home: Path, *extra: str) -> None:
    """`python -m flows run` of the code tree `code` (its folder first on sys.path)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PREFECT_HOME=str(home), PYTHONPATH=str(code))
    command = [sys.executable, "-m", "flows", "run", "--raw", str(raw), "--output", str(output)]
    done = subprocess.run(
        [*command, *extra], cwd=code, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode:
        raise SystemExit(f"{code}: {' '.join(command[2:])} failed:\n{done.stderr}")


def _published(output: Path) -> dict[str, Any]:
    """sha256 of each table file of `output/latest`, and the manifest's stable counts."""
    snapshot = (output / "latest").resolve()
    manifest = json.loads((snapshot / "manifest.json").read_text(encoding="utf-8"))
    files = {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(snapshot.iterdir())
        if path.name.endswith((".parquet", ".jsonl", ".schema.json"))
    }
    inputs = hashlib.sha256(json.dumps(manifest["inputs"], sort_keys=True).encode()).hexdigest()
    stable = {k: manifest.get(k) for k in MANIFEST_KEYS if k != "inputs"}
    return {"files": files, "manifest": {**stable, "inputs_sha256": inputs}}


def record(code: Path, first_code: Path, work: Path, corpus: Path | None) -> dict[str, Any]:
    """Run every scenario with `code` (the first run of `upgrade` with `first_code`)."""
    shutil.rmtree(work, ignore_errors=True)
    home = work / "prefect-home"
    realworld, round3 = CASES / "realworld", CASES / "round3"
    cold: dict[str, tuple[dict[str, Path], tuple[str, ...]]] = {
        "seeds": ({"seeds": REPO / "raw"}, ()),
        "seeds_catalog": ({"seeds": REPO / "raw"}, ("--catalog", str(CATALOG))),
        "cases_realworld": ({"cases": realworld}, ()),
        "cases_round3": ({"cases": round3}, ()),
    }
    if corpus is not None:
        cold["corpus_100k"] = ({"corpus": corpus}, ())
    results: dict[str, Any] = {}
    for name, (sources, extra) in cold.items():
        started = time.monotonic()
        raw = _copy_tree(sources, work / name / "raw")
        _run(code, raw, work / name / "output", home, *extra)
        results[name] = _published(work / name / "output")
        sys.stderr.write(f"{name}: {time.monotonic() - started:.1f} s\n")
    every = {"seeds": REPO / "raw", "realworld": realworld, "round3": round3}
    for name, first in (("warm", code), ("upgrade", first_code)):
        started = time.monotonic()
        output = work / name / "output"
        step1 = _copy_tree(
            {"seeds": REPO / "raw", "realworld": realworld},
            work / name / "raw1",
            skip=("003_321b63c5bd17bae4.txt",),
        )
        _run(first, step1, output, home)
        _run(code, _copy_tree(every, work / name / "raw2"), output, home)
        results[name] = _published(output)
        sys.stderr.write(f"{name}: {time.monotonic() - started:.1f} s\n")
    return results


def compare(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """One line per difference between two records (empty: byte-identical)."""
    problems = [f"{name}: missing in one record" for name in sorted(set(before) ^ set(after))]
    for name in sorted(set(before) & set(after)):
        for part in ("files", "manifest"):
            old, new = before[name][part], after[name][part]
            problems += [
                f"{name}: {part} {key} differs"
                for key in sorted(set(old) | set(new))
                if old.get(key) != new.get(key)
            ]
    return problems
