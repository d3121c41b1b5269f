"""report.html in a real browser: headless Chromium lays out a real run's page, and the DOM says
that every chart text stays in its chart and that the counts shown are the manifest's.

The product page has no script; the test measures a copy of it, with a small script added
at the end of its body that writes what it measured into the page as JSON (`MEASURE`), then
reads the DOM Chromium dumps once the page has loaded (`--dump-dom`). Chromium is Debian's
`chromium` (`.ci/run` installs it); without it the test is skipped, unless
RULING_DUMPS_REQUIRE_BROWSER is set (CI sets it: there a missing browser fails).
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SEED_DIR, copy_seeds, run_dumps

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if CHROMIUM is None and not os.environ.get("RULING_DUMPS_REQUIRE_BROWSER"):
    pytest.skip(
        "chromium not on PATH: install Debian's chromium (apt-get install chromium, as .ci/run"
        " does) to run the browser tests of report.html",
        allow_module_level=True,
    )
#: Seconds Chromium may take to start, lay the page out and dump it: generous, as the
#: machine is slow and shared (it takes 1-3 s on a quiet one).
BROWSER_TIMEOUT = 120
#: The window the page is laid out in (px).
WINDOW = (1280, 2000)

#: Added to a copy of report.html: measures every chart text against its chart's box and
#: the bar of its row, reads every count named by `data-count`, and writes it all as JSON.
MEASURE = """<script>
const box = (e) => { const r = e.getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width}; };
const charts = [...document.querySelectorAll("svg.chart")].map((svg) => ({
  title: svg.querySelector(":scope > title").textContent, box: box(svg),
  rows: [...svg.querySelectorAll("g.row")].map((row) => ({
    title: row.querySelector("title").textContent,
    label: row.querySelector("text.label").textContent,
    value: row.querySelector("text.value").textContent,
    texts: [...row.querySelectorAll("text")].map(box), bar: box(row.querySelector("rect")),
  })),
}));
const counts = [...document.querySelectorAll("[data-count]")].map(
  (e) => [e.dataset.count, e.textContent]);
const out = document.createElement("pre");
out.id = "measured";
out.textContent = JSON.stringify({charts, counts, height: document.body.scrollHeight});
document.body.appendChild(out);
</script>"""


def measure_in_chromium(page: Path, tmp_path: Path, script: str = MEASURE) -> Any:
    """Lay out a copy of `page` (with `script` added) in headless Chromium; what it measured
    (the JSON the script wrote into `<pre id="measured">`)."""
    assert CHROMIUM, "chromium not on PATH, and RULING_DUMPS_REQUIRE_BROWSER is set"
    copy = tmp_path / "measured.html"
    text = page.read_text(encoding="utf-8")
    assert "<script" not in text  # the product page itself has no script
    copy.write_text(text.replace("</body>", script + "</body>"), encoding="utf-8")
    command = [
        str(CHROMIUM), "--headless=new", "--disable-gpu", "--no-sandbox", "--no-first-run",
        "--disable-extensions", "--hide-scrollbars", f"--window-size={WINDOW[0]},{WINDOW[1]}",
        f"--user-data-dir={tmp_path / 'chromium-profile'}", "--dump-dom", copy.as_uri(),
    ]  # fmt: skip
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=BROWSER_TIMEOUT, check=False
    )
    found = re.search(r'<pre id="measured">(.*?)</pre>', done.stdout, re.DOTALL)
    assert found, f"chromium exited {done.returncode}; stderr: {done.stderr[-2000:]}"
    return json.loads(html.unescape(found.group(1)))


def manifest_count(manifest: dict[str, Any], name: str) -> int:
    """The count `name` (`inputs` or `part.key`, as `data-count` names it) in the manifest
    (a list: its length)."""
    part, _, key = name.partition(".")
    value = manifest[part][key] if key else manifest[part]
    return len(value) if isinstance(value, list) else int(value)


@pytest.fixture(scope="module")
def second_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The snapshot of a run of the five seeds after a run of four of them (one file added)."""
    root = tmp_path_factory.mktemp("browser")
    raw = copy_seeds(root, "raw", skip=("004_304d898eb3c4b8ca.txt",))
    run_dumps(raw, root / "output")
    shutil.copy(SEED_DIR / "004_304d898eb3c4b8ca.txt", raw)
    return Path(run_dumps(raw, root / "output").result["snapshot"])


@pytest.fixture(params=["seeds-second-run", "seeds-with-catalog"])
def snapshot(request: pytest.FixtureRequest) -> Path:
    """A real run's snapshot: the seeds' second run, or the seeds' run with a small catalog."""
    if request.param == "seeds-second-run":
        return Path(request.getfixturevalue("second_run"))
    return Path(request.getfixturevalue("published")) / "output" / "latest"


def outside_their_chart(measured: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Each chart text whose box leaves its chart's, or is empty; each label reaching its bar."""
    found = []
    for chart in measured["charts"]:
        svg = chart["box"]
        for row in chart["rows"]:
            for text in row["texts"]:
                inside = (
                    text["left"] >= svg["left"] - 0.5
                    and text["right"] <= svg["right"] + 0.5
                    and text["top"] >= svg["top"] - 0.5
                    and text["bottom"] <= svg["bottom"] + 0.5
                )
                if not inside or text["width"] <= 0:
                    found.append((chart["title"], row["label"], text, svg))
            label = row["texts"][0]
            if label["right"] > row["bar"]["left"]:  # the label runs into its bar
                found.append((chart["title"], row["label"], label, row["bar"]))
    return found


def test_every_chart_text_stays_in_its_chart(snapshot: Path, tmp_path: Path) -> None:
    measured = measure_in_chromium(snapshot / "report.html", tmp_path)
    assert outside_their_chart(measured) == []
    assert len(measured["charts"]) >= 5
    assert sum(len(chart["rows"]) for chart in measured["charts"]) >= 20


def test_the_counts_shown_are_the_manifests(snapshot: Path, tmp_path: Path) -> None:
    manifest = json.loads((snapshot / "manifest.json").read_text(encoding="utf-8"))
    measured = measure_in_chromium(snapshot / "report.html", tmp_path)
    shown = [(name, int(text.replace(",", ""))) for name, text in measured["counts"]]
    assert shown == [(name, manifest_count(manifest, name)) for name, _ in shown]
    names = {name for name, _ in shown}
    expected = {f"rows.{table}" for table in manifest["rows"]}
    expected |= {f"line_accounting.{kind}" for kind in manifest["line_accounting"]}
    expected |= {f"since_previous.{change}" for change in ("added", "changed", "removed")}
    expected |= {f"work.{key}" for key in manifest["work"]}
    assert names >= expected
    languages = next(c for c in measured["charts"] if c["title"].startswith("rulings and"))
    assert [(r["label"], int(r["value"])) for r in languages["rows"]] == [
        ("rulings · en", manifest["rows"]["rulings"])  # the rulings (36), not occurrences (73)
    ]


def test_the_second_run_shows_what_changed(second_run: Path, tmp_path: Path) -> None:
    manifest = json.loads((second_run / "manifest.json").read_text(encoding="utf-8"))
    measured = measure_in_chromium(second_run / "report.html", tmp_path)
    counts = dict(measured["counts"])
    assert manifest["since_previous"]["added"] == ["004_304d898eb3c4b8ca.txt"]
    assert (counts["since_previous.added"], counts["rows.rulings"]) == ("1", "36")
    assert manifest["since_previous"]["rows"]["dumps"] == 4
    page = (second_run / "report.html").read_text(encoding="utf-8")
    assert '<span class="up">+1</span>' in page  # dumps: 4 before, 5 now
    assert measured["height"] >= WINDOW[1] * 0.6  # a window of page, not 40 % blank below it


#: Labels in other scripts and shapes than the seeds': each must fit, wrapped or cut.
ODD_LABELS = [
    "Энергетические счётчики — это вид счётчиков, которые может иметь игрок. " * 3,
    "エネルギー・カウンターは、プレイヤーが持つことのできるカウンターの一種である。" * 3,
    "能量指示物是牌手可以拥有的一种指示物。它们不与任何特定永久物相关联。" * 3,
    "Οι μετρητές ενέργειας είναι ένα είδος μετρητή που μπορεί να έχει ένας παίκτης. " * 3,
    "W" * 300,
    "Ме" + "\u0301" * 5 + "WMW@%&" * 40,
    '<b>bold</b> & "quotes" {E}{E}{E} <script>alert(1)</script> ' * 4,
    "Ｆｕｌｌｗｉｄｔｈ　ｆｏｒｍｓ　" * 10,
]


def test_labels_in_any_script_stay_in_their_chart(tmp_path: Path) -> None:
    from flows.stages.svg_charts import bar_chart_svg

    charts = "".join(
        bar_chart_svg(ODD_LABELS, list(range(1, len(ODD_LABELS) + 1)), f"chart {lines}",
                      label_width=width, max_lines=lines)
        for width, lines in ((300, 1), (600, 3), (120, 2))
    )  # fmt: skip
    page = tmp_path / "odd.html"
    page.write_text(f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>{charts}'
                    "</body></html>", encoding="utf-8")  # fmt: skip
    measured = measure_in_chromium(page, tmp_path)
    assert [len(chart["rows"]) for chart in measured["charts"]] == [len(ODD_LABELS)] * 3
    assert outside_their_chart(measured) == []


#: Characters whose drawn width the estimate must not be below: Latin, Greek, Cyrillic,
#: punctuation, letter-like symbols, number forms, CJK symbols, kana, fullwidth forms.
_BLOCKS = ((0x20, 0x7F), (0xA0, 0x250), (0x370, 0x400), (0x400, 0x500), (0x2000, 0x2070),
           (0x2100, 0x2190), (0x3000, 0x3100), (0xFF00, 0xFF60))  # fmt: skip
#: Writes the width of each `<text>` (ten of one character) into the page.
MEASURE_WIDTHS = """<script>
const out = document.createElement("pre");
out.id = "measured";
out.textContent = JSON.stringify([...document.querySelectorAll("text")].map(
  (t) => t.getBBox().width / 10));
document.body.appendChild(out);
</script>"""


def test_the_width_estimate_is_at_least_what_chromium_draws(tmp_path: Path) -> None:
    from flows.stages.svg_charts import FONT_SIZE, text_width

    chars = [chr(c) for start, end in _BLOCKS for c in range(start, end)
             if unicodedata.category(chr(c))[0] in "LNPSZ"]  # fmt: skip
    texts = "".join(f'<text x="0" y="20">{html.escape(c * 10)}</text>' for c in chars)
    page = tmp_path / "widths.html"
    page.write_text(
        f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><svg font-family='
        f'"sans-serif" font-size="{FONT_SIZE}" width="2000" height="40">{texts}</svg></body></html>',
        encoding="utf-8",
    )
    widths = measure_in_chromium(page, tmp_path, MEASURE_WIDTHS)
    assert len(widths) == len(chars) > 1400
    assert [(c, w) for c, w in zip(chars, widths, strict=True) if w > text_width(c) + 0.01] == []
