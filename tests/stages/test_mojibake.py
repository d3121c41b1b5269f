"""Mojibake is repaired where its words then read better; real text is left as written."""

from __future__ import annotations

import pytest

from flows.stages.mojibake import MOJIBAKE_LEFT, REPAIR_MOJIBAKE, repair_mojibake


@pytest.mark.parametrize(
    ("line", "written"),
    [
        ("una vez m√°s.", "una vez más."),  # MacRoman: one pair, which ftfy's measure passes
        ("se um oponente n√£o controla", "se um oponente não controla"),
        ("√úbergehe Dein Ziehsegment.", "Übergehe Dein Ziehsegment."),
        ("Ziehe fГјr jede Karte.", "Ziehe für jede Karte."),  # Windows-1251
        ("Les marqueurs dвЂ™énergie", "Les marqueurs d’énergie"),
        # a line of one word, in Cyrillic letters but for one: no real word mixes them
        ("fГјr", "für"),
        ("nГЈo", "não"),
        ("Cuando T√°nazir Qu√°ndrix entre", "Cuando Tánazir Quándrix entre"),  # names
    ],
)
def test_a_line_with_one_pair_is_repaired(line: str, written: str) -> None:
    assert repair_mojibake(line + "\n") == (written + "\n", REPAIR_MOJIBAKE)


@pytest.mark.parametrize(
    "line",
    [
        # strict UTF-8 by chance once undone (`ù`, `ű`, `ŵ`), and no word reads better
        "If X is √π, round down.",
        "The result is n√π.",  # `nù`: wordfreq knows it, but it is no word of 3 letters
        "Area = 2r√π.",
        "Damage is dealt as ≈± 2.",
        "x≈µ",
        "√π ≈ 1.77",
        # real Cyrillic text whose pairs look like Windows-1251 mojibake
        "Відповідь: так, Він може атакувати.",
        "Гірський хребет",
        "МЕЂУНАРОДНИ ТУРНИР",
        "ПРИЈАТЕЉ",
        "Текст В© WotC",
        "В«КАРТА» В©",
        "20В°",
        "СПИСОК ПРАВИЛ В•",
        "Гёте",
        # real card text (MTGJSON, pt): `á—` was read as a cp1252 pair, and claimed
        "revelá-lo e colocá—lo em sua mão.",
    ],
)
def test_real_text_is_left_as_written_with_no_claim(line: str) -> None:
    # A fresh-context review found these rewritten (`√π` as `ù`) or claimed as mojibake.
    assert repair_mojibake(line + "\n") == (line + "\n", None)


def test_a_cp1252_pair_left_is_still_reported() -> None:
    # `CAFÉ—` holds a cp1252 pair (`É—`); undone it would be `CAFɗ`: left, and said so.
    assert repair_mojibake("CAFÉ—BAR\n") == ("CAFÉ—BAR\n", MOJIBAKE_LEFT.format(left=1))


@pytest.mark.parametrize("sign", [" √π", " (МТГ™)", " (≈±1)"])
def test_a_real_sign_beside_mojibake_does_not_stop_its_repair(sign: str) -> None:
    # A fresh-context review: these signs hold a MacRoman or Windows-1251 pair, and a
    # line ftfy repaired was then refused (its sign left) and said to look like mojibake.
    written = "Quand la Hache à relique arrive, attachez-la à une créature ciblée" + sign
    mojibake = written.encode().decode("cp1252")  # the sign read back: `â‰ˆÂ±1`
    line = mojibake.replace(sign.encode().decode("cp1252"), sign)  # the sign as written
    assert repair_mojibake(line + "\n") == (written + "\n", REPAIR_MOJIBAKE)


@pytest.mark.parametrize("sign", ["√π", "(МТГ™)", "(≈±1)"])
def test_a_real_sign_on_a_line_of_its_own_is_no_mojibake_left(sign: str) -> None:
    mojibake = "Créez un jeton de créature-artefact 1/1 bleue.".encode().decode("cp1252")
    text = f"{mojibake}\nNote {sign}\n"
    assert repair_mojibake(text) == (
        f"Créez un jeton de créature-artefact 1/1 bleue.\nNote {sign}\n",
        REPAIR_MOJIBAKE,
    )


#: Real-looking lines of the sites' languages with letters whose UTF-8 latin-9 reads as one
#: of its own signs (ä: `Ã€`, è: `Ãš`, ô: `ÃŽ`, ü: `ÃŒ`).
LATIN_9_LINES = [
    "Une créature avec la vigilance peut être à côté du trône ; elle rôde très près.",
    "Wählt ein Ziel für die Fähigkeit; über Kreaturen hinweg gilt das für alle Spieler.",
    "Se la creatura è già tappata, l'abilità non può essere attivata.",
]


@pytest.mark.parametrize("line", LATIN_9_LINES, ids=["fr", "de", "it"])
def test_mojibake_through_latin_9_is_repaired_to_its_letters(line: str) -> None:
    # A probe: ftfy read these through cp1252 and published `cÎté`, `WÀhlt`, `Ú già`, with
    # "mojibake repaired (ftfy)".
    mojibake = line.encode().decode("iso8859_15")
    assert repair_mojibake(mojibake + "\n") == (line + "\n", REPAIR_MOJIBAKE)


@pytest.mark.parametrize(
    "line", ["À chaque tour, Über alles.", "Die Straße ist Ürsprünglich.", "ÎLE DE FRANCE"]
)
def test_cp1252_mojibake_of_latin_9_signs_stays_cp1252(line: str) -> None:
    # `Ã€` is À through cp1252 and ä through latin-9: the words say which (`à` and `ä` alone
    # are one-letter words, far more frequent in one reading).
    mojibake = line.encode().decode("cp1252")
    assert repair_mojibake(mojibake + "\n") == (line + "\n", REPAIR_MOJIBAKE)


def test_a_repair_into_letters_no_site_writes_is_not_made() -> None:
    # A probe: UTF-8 read as cp1257 (`dĆ©nergie`) was "repaired" by ftfy to `d'Ʃnergie`.
    line = "Les marqueurs d'énergie ne sont pas du mana, à la fin des étapes.\n"
    mojibake = line.encode().decode("cp1257")
    assert repair_mojibake(mojibake) == (mojibake, None)
