"""The summary of `python -m bench eval dedup` (`evaluate_dedup`): its JSON and markdown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def write_results(results: dict[str, Any], json_path: Path, markdown_path: Path) -> None:
    """Write `results` as JSON and a short markdown summary (misses listed by kind)."""
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    lines = _summary(results) + _misses(results)
    markdown_path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _summary(results: dict[str, Any]) -> list[str]:
    """The table of measures and the counts by kind (markdown lines)."""
    negatives, positives = results["hard_negatives"], results["positives"]
    made, apostrophes = results["made_hard_negatives"], results["dropped_apostrophes"]
    real_words = positives["real_words"]
    return [
        "# Dedup evaluation on real rulings",
        "",
        f"`python -m bench eval dedup` over {results['distinct_texts']:,} distinct real ruling "
        f"texts ({results['data']}), merge rules version {results['merge_rules_version']}.",
        "",
        "| measure | result | target |",
        "|---|---|---|",
        f"| hard negatives merged | {negatives['merged']} of {negatives['pairs']:,} "
        f"({negatives['share_merged']:.2%}) | 0 |",
        f"| typo variants recalled | {positives['merged']:,} of {positives['variants']:,} "
        f"({positives['recall']:.2%}) | ≥ 99 % |",
        f"| negations typed without their apostrophe (`arent`), merged | "
        f"{apostrophes['merged']:,} of {apostrophes['variants']:,} | all |",
        f"| dedup step (cluster_variants) on all texts | {results['dedup_seconds']} s | |",
        "",
        "Hard negatives by kind: "
        + ", ".join(f"{k} {v:,}" for k, v in negatives["by_kind"].items()),
        "",
        f"Hard negatives made from real rulings: {made['merged']} merged of {made['pairs']:,} "
        f"({made['within_2_edits']:,} within 2 edits; "
        + ", ".join(f"{k} {v:,}" for k, v in made["by_kind"].items())
        + ").",
        "",
        "Pairs differing only in other words (not scored): "
        + ", ".join(
            f"{k} {v:,}" for k, v in sorted(results["other_word_pairs"]["decisions"].items())
        ),
        "",
        "Typos drawn on the way that made a common word of similar frequency (a changed word "
        f"to the merge rule, not scored): {real_words['variants']:,}, kept apart "
        f"{real_words['kept_apart']:,}; "
        + ", ".join(f"`{w}` {n}" for w, n in list(real_words["words"].items())[:30])
        + (", …" if len(real_words["words"]) > 30 else "")
        + ".",
        "",
    ]


def _misses(results: dict[str, Any]) -> list[str]:
    """The missed typo variants by kind, then the merged hard negatives (markdown lines)."""
    positives, apostrophes = results["positives"], results["dropped_apostrophes"]
    lines = ["## Missed typo variants, by kind", ""]
    for kind, n in positives["misses_by_kind"].items():
        lines.append(f"- {kind}: {n}")
        lines += [f"  - `{m['original']}` → `{m['variant']}`"
                  for m in positives["misses"] if m["kind"] == kind]  # fmt: skip
    for m in apostrophes["misses"]:
        lines.append(f"- a negation typed without its apostrophe; {m['kind']}: 1")
        lines.append(f"  - `{m['original']}` → `{m['variant']}`")
    if not positives["misses"] and not apostrophes["misses"]:
        lines.append("- none")
    merged = [f"- {m['kind']}: `{m['a']}` / `{m['b']}`"
              for m in results["hard_negatives"]["merged_pairs"]]  # fmt: skip
    merged += [f"- {m['kind']}: `{m['original']}` / `{m['negative']}`"
               for m in results["made_hard_negatives"]["merged_pairs"]]  # fmt: skip
    return [*lines, "", "## Merged hard negatives", "", *(merged or ["- none"])]
