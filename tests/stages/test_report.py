"""report: the run report shows input text as data, never as markup."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from flows.stages.report import code_span
from tests.conftest import run_contents

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
