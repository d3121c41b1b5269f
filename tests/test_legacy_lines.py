"""Heads no code page reads inside a UTF-8 dump: rejected with their entry, never glued to
another (a probe's find: such a head's body was glued to the entry before, or the header
took the first entry)."""

from __future__ import annotations

import polars as pl
import pytest

from tests.conftest import run_contents

EN_1 = "Energy counters aren't mana. They don't go away as steps, phases, and turns end."
EN_2 = (
    "Energy counters are a kind of counter that a player may have. "
    "They're not associated with any specific permanents."
)
JA = [
    "Wizards of the Coastの公式裁定です。日本語訳（JA）は自動生成されたものです。",
    "2024年6月7日 ・ 出典：wotc",
    EN_1,
    "エネルギー・カウンターはマナではない。ステップやフェイズやターンが終了しても消えない。",
    "2024年2月7日 ・ 出典：wotc",
    EN_2,
    "エネルギー・カウンターはプレイヤーが持つことができるカウンターの一種である。"
    "特定のパーマネントとは関連付けられていない。",
]
ZH = [
    "Wizards of the Coast官方裁定。中文翻译（ZH）为自动生成。",
    "2024年6月7日 · 来源：wotc",
    EN_1,
    "能量指示物不是法术力。它们不会在步骤、阶段和回合结束时消失。",
    "2024年2月7日 · 来源：wotc",
    EN_2,
    "能量指示物是玩家可以拥有的一种指示物。它们与任何特定永久物无关。",
]
KO = [
    "Wizards of the Coast의 공식 판정입니다. 한국어 번역(KO)은 자동 생성되었습니다.",
    "2024년 6월 7일 · 출처: wotc",
    EN_1,
    "에너지 카운터는 마나가 아닙니다. 단계, 국면, 턴이 끝나도 사라지지 않습니다.",
    "2024년 2월 7일 · 출처: wotc",
    EN_2,
    "에너지 카운터는 플레이어가 가질 수 있는 카운터의 한 종류입니다. 특정 지속물과 연관되지 않습니다.",
]
RU = [
    "Официальные разъяснения Wizards of the Coast. Перевод RU ниже создан автоматически (ИИ).",
    "7 июня 2024 г. · источник: wotc",
    EN_1,
    "Жетоны энергии не являются маной. Они не исчезают по окончании шагов, фаз и ходов.",
    "7 февраля 2024 г. · источник: wotc",
    EN_2,
    "Жетоны энергии являются видом жетонов, которые может иметь игрок. Они не связаны ни с какими "
    "конкретными перманентами.",
]
DUMPS = {"ja": JA, "zh": ZH, "ko": KO, "ru": RU}


def _mixed(lines: list[str], legacy: dict[int, str]) -> bytes:
    """`lines` in UTF-8 but line i (0-based) in code page legacy[i]."""
    return b"".join(
        (line.encode(legacy[i]) if i in legacy else line.encode()) + b"\n"
        for i, line in enumerate(lines)
    )


def _tables(content: bytes) -> dict[str, pl.DataFrame]:
    return run_contents({"d.txt": content}).tables


@pytest.mark.parametrize(
    ("dump", "page"), [("ja", "cp932"), ("zh", "gbk"), ("ko", "cp949")], ids=["ja", "zh", "ko"]
)
@pytest.mark.parametrize("head", [1, 4], ids=["first head", "second head"])
def test_a_head_no_page_reads_is_rejected_with_its_body(dump: str, page: str, head: int) -> None:
    # The same heads saved with an undefined byte after the year (`2024\xff`): no code page
    # reads them, and each is rejected with its body, as `June 7, 2024\xff · source: wotc`.
    lines = DUMPS[dump]
    encoded = lines[head].encode(page)
    year = encoded.index(b"2024") + 4
    content = _mixed(lines, {}).replace(
        lines[head].encode(), encoded[:year] + b"\xff" + encoded[year:]
    )
    tables = _tables(content)
    rejects = tables["rejects"].filter(pl.col("stage") == "parse").sort("line_number")
    assert rejects["line_number"].to_list() == [head + 1, head + 2, head + 3]
    reason = rejects["reason"].to_list()
    assert reason[0].startswith("line has ") and "undecodable" in reason[0]
    assert reason[1:] == [f"body of the entry whose date·source line {head + 1} was rejected: "
                          f"{reason[0]}"] * 2  # fmt: skip
    kept = 3 if head == 4 else 6
    assert tables["ruling_occurrences"]["text_raw"].to_list() == [lines[kept - 1]]
    assert tables["ruling_translations"]["text"].to_list() == [lines[kept]]
    assert tables["dumps"]["header_text"].item() == lines[0]
