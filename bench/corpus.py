"""Build realistic dumps, as fan sites in eleven locales paste them, from real data.

Used by the tests (fixtures with a known kind for every line) and by the benchmark
corpus. The inputs are real: English rulings and their dates, foreign printed card
text for the stubs, and real Chinese translations of rulings. What each site writes
around them (disclaimer, source word, separator, colon, power/toughness initials)
follows the sites' conventions in the issue; dates are written in each locale's CLDR
long form (Babel), with `1er` on French sites and CLDR's medium form (`7 juil. 2024`)
where a site uses abbreviations.
"""

from __future__ import annotations

import datetime as dt
import gzip
import math
import random
from dataclasses import dataclass, field, replace
from pathlib import Path

import polars as pl
from babel.dates import format_date


@dataclass(frozen=True)
class SiteLocale:
    """How one site writes its dumps."""

    code: str  #: the language of the site, as langdetect writes it ("fr", "zh-cn")
    mtgjson_language: str  #: foreign card language in MTGJSON ("French")
    babel_locale: str  #: locale of its dates ("fr", "zh_Hant")
    source_word: str  #: localized "source"
    separator: str  #: between date and source word
    colon: str  #: between source word and source
    pt_initials: str  #: localized power/toughness initials on the stat line
    header: tuple[str, ...]  #: disclaimer lines, naming the translation's ISO code
    date_format: str = "long"  #: Babel format of its dates ("long" or "medium")


NBSP, NNBSP = "\u00a0", "\u202f"

SITE_LOCALES: dict[str, SiteLocale] = {
    site.code: site
    for site in (
        SiteLocale("en", "English", "en", "source", " · ", ": ", "P/T",
                   ("Official rulings from Wizards of the Coast, reproduced as published.",)),
        SiteLocale("fr", "French", "fr", "source", " · ", f"{NBSP}: ", "F/E",
                   ("Clarifications officielles de Wizards of the Coast. La traduction FR "
                    "ci-dessous est générée automatiquement (IA) — l'original anglais reste la "
                    "source de vérité.",)),
        SiteLocale("de", "German", "de", "Quelle", " · ", ": ", "S/W",
                   ("Offizielle Regelklarstellungen von Wizards of the Coast.",
                    "Die DE-Übersetzung unten wurde automatisch erstellt; maßgeblich ist das "
                    "englische Original.")),
        SiteLocale("es", "Spanish", "es", "fuente", " · ", ": ", "F/R",
                   ("Aclaraciones oficiales de Wizards of the Coast. La traducción ES de abajo "
                    "se generó automáticamente; el original en inglés es la referencia.",),
                   date_format="medium"),
        SiteLocale("it", "Italian", "it", "fonte", " · ", f"{NNBSP}: ", "F/C",
                   ("Chiarimenti ufficiali di Wizards of the Coast. La traduzione IT qui sotto è "
                    "generata automaticamente; l'originale inglese resta il riferimento.",)),
        SiteLocale("pt", "Portuguese (Brazil)", "pt_BR", "fonte", " · ", ": ", "P/R",
                   ("Esclarecimentos oficiais da Wizards of the Coast. A tradução PT abaixo foi "
                    "gerada automaticamente; o original em inglês continua sendo a referência.",)),
        SiteLocale("ja", "Japanese", "ja", "出典", "・", "：", "P/T",
                   ("ウィザーズ・オブ・ザ・コーストの公式裁定です。以下のJA翻訳は自動生成されたもので、"
                    "英語の原文が正式なものです。",)),
        SiteLocale("zh-cn", "Chinese Simplified", "zh_Hans", "来源", "・", "：", "P/T",
                   ("威世智官方规则释疑。以下ZH译文为机器自动生成，以英文原文为准。",)),
        SiteLocale("zh-tw", "Chinese Traditional", "zh_Hant", "來源", "・", "：", "P/T",
                   ("威世智官方規則釋疑。以下ZH譯文為機器自動生成，以英文原文為準。",)),
        SiteLocale("ko", "Korean", "ko", "출처", " · ", ": ", "P/T",
                   ("위저드 오브 더 코스트의 공식 규칙 해설입니다. 아래 KO 번역은 자동으로 "
                    "생성되었으며 영어 원문이 기준입니다.",)),
        SiteLocale("ru", "Russian", "ru", "источник", " · ", ": ", "P/T",
                   ("Официальные разъяснения Wizards of the Coast. Перевод RU ниже создан "
                    "автоматически; английский оригинал остаётся первоисточником.",),
                   date_format="medium"),
    )
}  # fmt: skip


@dataclass(frozen=True)
class CardStub:
    """A real foreign printing to cut into a stub."""

    mana_value: float | None
    power: str | None
    toughness: str | None
    text: str | None  #: the full printed text; the stub keeps a cut part


@dataclass
class SiteDump:
    """A generated dump and what each of its lines is."""

    lines: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)  #: one per line (parse.LINE_KINDS)
    dates: list[dt.date] = field(default_factory=list)  #: one per entry, in order
    translation_of: dict[int, str] = field(default_factory=dict)  #: line number -> original
    stub: tuple[float | None, str | None, str | None, str | None] | None = None

    def add(self, line: str, kind: str) -> int:
        """Append a line; return its 1-based line number."""
        self.lines.append(line)
        self.kinds.append(kind)
        return len(self.lines)

    def content(self, line_end: str = "\n") -> str:
        """The dump's text, every line ended by `line_end`."""
        return "".join(line + line_end for line in self.lines)


def date_source_line(site: SiteLocale, published_on: dt.date, source: str = "wotc") -> str:
    """`07 juin 2024 · source : wotc` in the site's locale (Babel CLDR formats)."""
    written = format_date(published_on, format=site.date_format, locale=site.babel_locale)
    if site.code == "fr" and published_on.day == 1:
        written = written.replace("1 ", "1er ", 1)
    return f"{written}{site.separator}{site.source_word}{site.colon}{source}"


def stat_line(site: SiteLocale, card: CardStub) -> str:
    """`CMC 2F/E 1/3`: mana value, then the site's P/T initials and values (none without P/T)."""
    mana_value = "X" if card.mana_value is None else f"{card.mana_value:g}"
    if card.power is None or card.toughness is None:
        return f"CMC {mana_value}"
    return f"CMC {mana_value}{site.pt_initials} {card.power}/{card.toughness}"


def cut_text(text: str, fraction: float = 0.6) -> str:
    """Cut `text` as a scrape does: at `fraction` of its length, after a word when it has spaces."""
    end = max(1, math.floor(len(text) * fraction))
    cut = text[:end]
    if " " in cut:
        cut = cut[: cut.rindex(" ") + 1]
    return cut


def build_site_dump(
    site: SiteLocale,
    rulings: list[tuple[dt.date, str]],
    card: CardStub | None = None,
    translations: dict[str, str] | None = None,
    *,
    blank_between: bool = False,
    translated_above: frozenset[str] = frozenset(),
    stub_dot_line: bool = True,
    set_code: str | None = None,
) -> SiteDump:
    """Write one card's dump as `site` pastes it.

    Args:
        rulings: (published_on, English text); a text with "\\n" is a body
            over several lines.
        card: the stray card stub at the end (cut to its first 60 %).
        translations: English text -> the site's translation, put on its own
            line under the original (above it for the texts in `translated_above`).
        set_code: the printing's set, named on a last header line (`[KLD]`).
    """
    dump = SiteDump()
    for line in site.header:
        dump.add(line, "header")
    if set_code:  # the page of one printing names its set
        dump.add(f"[{set_code}]", "header")
    for published_on, text in rulings:
        if blank_between:
            dump.add("", "blank")
        dump.add(date_source_line(site, published_on), "date_source")
        dump.dates.append(published_on)
        translated = (translations or {}).get(text)
        above = text in translated_above
        if translated and above:
            dump.translation_of[dump.add(translated, "translation")] = text
        for body_line in text.split("\n"):
            dump.add(body_line, "body")
        if translated and not above:
            dump.translation_of[dump.add(translated, "translation")] = text
    if card is not None:
        _add_stub(dump, site, card, stub_dot_line)
    return dump


def _add_stub(dump: SiteDump, site: SiteLocale, card: CardStub, dot_line: bool) -> None:
    dump.add(stat_line(site, card), "stub")
    if dot_line:
        dump.add(".", "stub")
    cut = cut_text(card.text) if card.text else ""
    for line in cut.splitlines():
        dump.add(line, "stub")
    power = card.power if card.toughness is not None else None
    toughness = card.toughness if card.power is not None else None
    text = "\n".join(line.strip() for line in cut.splitlines())
    dump.stub = (card.mana_value, power, toughness, text or None)


def load_rulings(real_dir: Path) -> pl.DataFrame:
    """Real English rulings (`derived/mtgjson_v5_rulings.jsonl`).

    Returns:
        oracle_id (String), published_on (Date), text (String), non-empty texts
        with an oracle_id, sorted by oracle_id, published_on, text.
    """
    rulings = pl.read_ndjson(
        real_dir / "derived" / "mtgjson_v5_rulings.jsonl", infer_schema_length=None
    )
    return (
        rulings.select(
            "oracle_id", published_on=pl.col("published_at").str.to_date(), text="comment"
        )
        .filter(pl.col("oracle_id").is_not_null() & (pl.col("text").str.strip_chars() != ""))
        .sort("oracle_id", "published_on", "text")
    )


def load_foreign_cards(real_dir: Path) -> pl.DataFrame:
    """Real foreign printings (`derived/mtgjson_v5_foreign_cards.jsonl.gz`).

    Returns:
        oracle_id, language (MTGJSON name, e.g. "French"), name, text (String),
        mana_value (Float64), power, toughness (String); sorted by oracle_id, language.
    """
    with gzip.open(real_dir / "derived" / "mtgjson_v5_foreign_cards.jsonl.gz") as packed:
        cards = pl.read_ndjson(packed.read(), infer_schema_length=None)
    return cards.select(
        "oracle_id", "language", "name", "text", "mana_value", "power", "toughness"
    ).sort("oracle_id", "language", "name")


#: The MH3 release notes' energy rulings (`zh_release_notes/text/faq_mh3.txt`,
#: the bullets under 复出机制：能量), in order, and the first words of the
#: English original of each (the seeds' energy rulings).
MH3_ENERGY_ORIGINALS: tuple[str, ...] = (
    "{E} is the energy symbol.",
    "Energy counters are a kind of counter",
    "Keep track of how many energy counters",
    "If an effect says you get one or more {E}",
    "Energy counters aren't mana.",
    'Some triggered abilities state that you "may pay"',
    'Some triggered abilities that state that you "may pay"',
    "If a spell or ability with one or more targets",
    "Some spells and abilities that give you {E}",
)


def load_mh3_energy_translations(real_dir: Path) -> list[str]:
    """The nine Simplified Chinese energy rulings of the MH3 release notes, one string each.

    Bullet paragraphs (`•` lines and their wrapped continuation lines) from the
    energy section, joined without the layout's line breaks.
    """
    text = (real_dir / "zh_release_notes" / "text" / "faq_mh3.txt").read_text(encoding="utf-8")
    section = text.split("复出机制：能量", 1)[1].split("复出的牌张类别", 1)[0]
    bullets: list[str] = []
    for line in section.splitlines():
        stripped = line.strip()
        if stripped.startswith("•"):
            bullets.append(stripped.lstrip("•").strip())
        elif stripped and bullets and line.startswith("      "):
            bullets[-1] += stripped
    return bullets


#: Share of dumps ending with a stray card stub.
STUB_SHARE = 0.4
#: Share of dumps whose site folds curly quotes to straight ones.
STRAIGHT_QUOTE_SHARE = 0.3
#: Share of ruling occurrences with a one-letter typo (a near-duplicate variant).
TYPO_SHARE = 0.01


@dataclass(frozen=True)
class CorpusStats:
    """What `generate_corpus` wrote."""

    dumps: int
    lines: int
    cards: int
    bytes: int


@dataclass(frozen=True)
class Sources:
    """The real data a corpus is cut from (`load_sources`): card_rulings, oracle_id -> its
    (published_on, text) rulings in `load_rulings`' order; sets_of, oracle_id -> the set
    codes its rulings list (sorted); foreign, (oracle_id, site code) -> its printing there."""

    card_rulings: dict[str, list[tuple[dt.date, str]]]
    sets_of: dict[str, list[str]]
    foreign: dict[tuple[str, str], CardStub]


def load_sources(real_dir: Path) -> Sources:
    """The rulings, printings and foreign printings of the real data in `real_dir` (~6 s)."""
    rulings = load_rulings(real_dir)
    sets = pl.read_ndjson(
        real_dir / "derived" / "mtgjson_v5_rulings.jsonl", infer_schema_length=None
    ).select("oracle_id", "set_codes")
    printings = (
        sets.filter(pl.col("oracle_id").is_not_null())
        .explode("set_codes")
        .group_by("oracle_id")
        .agg(pl.col("set_codes").drop_nulls().unique().sort())
    )
    cards = load_foreign_cards(real_dir).unique(
        ["oracle_id", "language"], keep="first", maintain_order=True
    )
    by_language = {site.mtgjson_language: site for site in SITE_LOCALES.values()}
    foreign = {
        (card["oracle_id"], by_language[card["language"]].code): CardStub(
            card["mana_value"], card["power"], card["toughness"], card["text"]
        )
        for card in cards.filter(pl.col("language").is_in(list(by_language))).iter_rows(named=True)
    }
    card_rulings = {
        o: list(g.select("published_on", "text").iter_rows())
        for (o,), g in rulings.group_by("oracle_id", maintain_order=True)
    }
    return Sources(card_rulings, dict(printings.iter_rows()), foreign)


def generate_corpus(
    sources: Sources, out_dir: Path, target_lines: int, seed: int = 0
) -> CorpusStats:
    """Write realistic dumps from real data (`load_sources`) until `target_lines` lines are written.

    One dump per card printing (a set the card's rulings list) and site
    language (English, and each language the card has a real printing in):
    the card's real rulings with their real dates in the site's locale, the
    site's header, a stray stub cut from the printing's real text in
    STUB_SHARE of dumps, straight instead of curly quotes in
    STRAIGHT_QUOTE_SHARE of dumps, a one-letter typo in TYPO_SHARE of
    ruling occurrences. Cards are taken in a seeded random order, so the same
    seed gives the same files, byte for byte. The real cards give about 2.6M
    lines; above that, further passes over them write the copies other sites
    would hold (their own quotes, typos and stubs), as an archive of several
    sites does: the first pass's files are the same for any `target_lines`.

    Files: `out_dir/<site>/<oracle_id>-<set>.txt` (first pass),
    `out_dir/mirror<k>/<site>/<oracle_id>-<set>.txt` (pass k >= 1), UTF-8.
    """
    rng = random.Random(seed)
    order = sorted(sources.card_rulings)
    rng.shuffle(order)
    written, copy = CorpusStats(0, 0, 0, 0), 0
    while order and written.lines < target_lines:
        folder = out_dir / f"mirror{copy}" if copy else out_dir
        # another site's copy: its own address in the header (no file repeats another's bytes)
        more = (f"https://mirror{copy}.example/",) if copy else ()
        sites = {c: replace(s, header=(*s.header, *more)) for c, s in SITE_LOCALES.items()}
        for oracle_id in order:
            if written.lines >= target_lines:
                break
            written = _write_card(sites, folder, oracle_id, sources, rng, written)
        copy += 1
    return written


def _write_card(
    sites: dict[str, SiteLocale],
    out_dir: Path,
    oracle_id: str,
    sources: Sources,
    rng: random.Random,
    written: CorpusStats,
) -> CorpusStats:
    dumps, lines, size = written.dumps, written.lines, written.bytes
    entries = sources.card_rulings[oracle_id]
    for code, site in sites.items():
        printed = sources.foreign.get((oracle_id, code))
        if code != "en" and printed is None:
            continue
        for set_code in sources.sets_of.get(oracle_id) or ["NA"]:
            straight = rng.random() < STRAIGHT_QUOTE_SHARE
            texts = [(day, _vary(text, rng, straight)) for day, text in entries]
            card = printed if printed is not None and rng.random() < STUB_SHARE else None
            dump = build_site_dump(site, texts, card, set_code=set_code)
            content = dump.content().encode()
            folder = out_dir / code
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"{oracle_id}-{set_code}.txt").write_bytes(content)
            dumps, lines, size = dumps + 1, lines + len(dump.lines), size + len(content)
    return CorpusStats(dumps, lines, written.cards + 1, size)


def _vary(text: str, rng: random.Random, straight_quotes: bool) -> str:
    if straight_quotes:
        text = text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    if rng.random() < TYPO_SHARE:
        words = [
            i for i, w in enumerate(text.split(" ")) if w.isalpha() and w.islower() and len(w) > 3
        ]
        if words:
            parts = text.split(" ")
            i = rng.choice(words)
            j = rng.randrange(len(parts[i]))
            parts[i] = parts[i][: j + 1] + parts[i][j:]  # a doubled letter
            text = " ".join(parts)
    return text
