"""report: the run report shows input text as data, never as markup."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from markdown_it import MarkdownIt

from flows.stages.report import code_span
from flows.stages.report_html import MAX_REJECT_KINDS, build_report_html, rejects_by_kind
from schemas.models import TEXT_IS_NOT_HTML
from tests.conftest import REPO, Run, run_contents, run_dumps, write_dumps

#: The issue's repro: a ruling that renders as a remote image and a phishing link.
ATTACK_RULING = "![x](https://attacker.example/t.png)[Re-login](https://phish.example)"
#: A file name with the same markup and HTML (`/` cannot be in a name).
ATTACK_NAME = (
    "![x](https:attacker.example)<img src=x onerror=alert(1)>[Re-login](https:phish.example).txt"
)


def _markup_tokens(markdown: str) -> tuple[list[str], list[str]]:
    """(types of rendered links, images and HTML; contents of code spans) of `markdown`."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    inline = [child for token in tokens for child in (token.children or [])]
    markup = [t.type for t in [*tokens, *inline] if t.type in _MARKUP]
    return markup, [t.content for t in inline if t.type == "code_inline"]


_MARKUP = {"image", "link_open", "html_inline", "html_block"}


@pytest.fixture(scope="module")
def attack_report() -> str:
    """The run's report.md over three dumps of the attack ruling, one named with markup."""
    dump = f"07 juin 2024 · source : wotc\n{ATTACK_RULING}\n".encode()
    return run_contents({"a.txt": dump, ATTACK_NAME: dump, "b.txt": dump}).result["report"]


def test_a_ruling_with_markdown_renders_as_text(attack_report: str) -> None:
    markup, code = _markup_tokens(attack_report)
    assert markup == []
    assert ATTACK_RULING in code


def test_a_file_name_with_markup_in_a_reject_reason_renders_as_text(attack_report: str) -> None:
    markup, code = _markup_tokens(attack_report)
    assert markup == []
    assert "file has the same bytes as " + ATTACK_NAME + "; its lines are read once, there" in code


@pytest.mark.parametrize(
    ("text", "span"),
    [
        ("plain", "`plain`"),
        ("a `b` c", "``a `b` c``"),
        ("`start", "`` `start ``"),
        (" both ", "`  both  `"),
        ("a|b", "`a\\|b`"),
        ("two\nlines", "`two lines`"),
        ("<b>x</b>", "`<b>x</b>`"),
        ("", ""),
    ],
    ids=["plain", "backticks", "leading-backtick", "spaces", "pipe", "newline", "html", "empty"],
)
def test_code_span(text: str, span: str) -> None:
    assert code_span(text) == span
    if text:
        _, code = _markup_tokens(f"| h |\n|---|\n| {span} |\n")
        assert code == [text.replace("\n", " ")]


def test_an_entity_encoded_script_is_text_in_the_tables_and_escaped_in_report_html(
    tmp_path: Path,
) -> None:
    """Issue 23: `&lt;script&gt;` is decoded (text columns hold text: the contract says so),
    and every HTML output escapes it."""
    body = "&lt;script&gt;alert(1)&lt;/script&gt; Counters stay on the permanent."
    dumps = {
        f"{n}.txt": f"Site\n\n07 juin 2024 · source : wotc\n{body}\n".encode() for n in range(3)
    }
    run = run_dumps(write_dumps(tmp_path / "raw", dumps), tmp_path / "output")
    texts = run.result["tables"]["rulings"]["text"].to_list()
    assert texts == ["<script>alert(1)</script> Counters stay on the permanent."]
    html = (Path(run.result["snapshot"]) / "report.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Counters" in html
    assert "<script" not in html
    assert TEXT_IS_NOT_HTML in (REPO / "docs" / "data-dictionary.md").read_text(encoding="utf-8")


def test_rejects_are_counted_by_kind_not_one_row_per_value() -> None:
    # the fresh-clone check's dump: 30 impossible days and 15 two-digit years, each
    # with its body; the report listed 90 reasons of 1 row each
    heads = [f"{day} juin 2024 · source : wotc" for day in range(32, 62)]
    heads += [f"07 juin {year} · source : wotc" for year in range(10, 25)]
    dump = "Official rulings.\n" + "".join(f"{h}\nA ruling.\n" for h in heads)
    run = run_contents({"a.txt": dump.encode()})
    kinds = rejects_by_kind(run.tables["rejects"])
    assert run.tables["rejects"].height == 90
    assert kinds.rows() == [
        ("parse", "body of the entry whose date·source line … was rejected: impossible date"
         " '…': day is out of range for month", 30),
        ("parse", "impossible date '…': day is out of range for month", 30),
        ("parse", "body of the entry whose date·source line … was rejected: two-digit year in"
         " date '…': the century is not written", 15),
        ("parse", "two-digit year in date '…': the century is not written", 15),
    ]  # fmt: skip
    page = build_report_html(run.result["manifest"], run.tables)
    # the two kinds of 15 (each bar's full label and count on hover); no value of a line
    assert page.count("two-digit year in date &#x27;…&#x27;: the century is not written: 15") == 2
    assert "07 juin" not in page and "41 juin" not in page


def test_copies_of_different_files_are_one_kind_of_reject() -> None:
    # the 1M bench corpus: 3,177 copies of 1,986 files were 1,986 bars of 1-17 rejects
    # each (the first copy's path in each reason); 926 KB of report.html, 1.2 s to draw
    one = b"Official rulings.\n07 juin 2024 \xc2\xb7 source : wotc\nA ruling.\n"
    other = one.replace(b"A ruling.", b"Another ruling.")
    run = run_contents({"a.txt": one, "en/b.txt": one, "c.txt": other, "fr/d.txt": other})
    reasons = sorted(run.tables["rejects"]["reason"].to_list())
    assert reasons == [
        "file has the same bytes as a.txt; its lines are read once, there",
        "file has the same bytes as c.txt; its lines are read once, there",
    ]
    assert rejects_by_kind(run.tables["rejects"]).rows() == [
        ("read", "file has the same bytes as …; its lines are read once, there", 2)
    ]


def test_the_rejects_chart_shows_the_commonest_kinds_and_the_rest_as_one_bar(
    seed_run: Run,
) -> None:
    reasons = [f"reason {'x' * n}" for n in range(1, 31) for _ in range(n)]  # 30 kinds
    rejects = pl.DataFrame({"stage": "parse", "reason": reasons})
    page = build_report_html(seed_run.result["manifest"], {**seed_run.tables, "rejects": rejects})
    start = page.index("Rejects by stage")
    chart = page[start : page.index("</svg>", start)]
    assert chart.count('<g class="row">') == MAX_REJECT_KINDS == 25
    assert f"parse: reason {'x' * 30}: 30</title>" in chart  # the commonest, whole
    assert "6 other kinds (see rejects): 21</title>" in chart  # 6 + 5 + 4 + 3 + 2 + 1
