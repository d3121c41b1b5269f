"""Stub matching: mana value, P/T and a text prefix that parts from every other card's text."""

from __future__ import annotations

import polars as pl
import pytest

from bench.evaluate_attribution import split_catalog
from flows.stages.cards import Catalog
from flows.stages.stub_match import attribute_by_stub, find_stub_fits, index_catalog_texts
from tests.conftest import needs_real_catalog

#: Real MTGJSON printings (2022 catalog): two lands that start alike.
SKARRG = "92bac34e-2045-4331-842f-185711c1ac56"
CLIFFS = "b891a683-2ebc-4e9c-b402-5dd9c1b42b69"
LANDS = pl.DataFrame(
    {
        "uuid": ["u1", "u2"],
        "oracle_id": [SKARRG, CLIFFS],
        "name": ["Skarrg, the Rage Pits", "Contested Cliffs"],
        "mana_value": [0.0, 0.0],
        "power": [None, None],
        "toughness": [None, None],
        "text": [
            "{T}: Add {C}.\n{R}{G}, {T}: Target creature gets +1/+1 and gains trample until end of turn.",
            "{T}: Add {C}.\n{R}{G}, {T}: Target Beast creature you control fights target creature an opponent controls. (Each deals damage equal to its power to the other.)",
        ],
    },
    schema_overrides={"power": pl.String, "toughness": pl.String},
)
NO_FOREIGN = pl.DataFrame(schema={"uuid": pl.String, "language": pl.String, "text": pl.String})


def stub(text: str, mana_value: float = 0.0) -> pl.DataFrame:
    return pl.DataFrame({
        "dump_id": ["d"], "mana_value": [mana_value], "power": [None], "toughness": [None],
        "text": [text], "language": ["en"], "language_is_inferred": [False],
    }, schema_overrides={"power": pl.String, "toughness": pl.String})  # fmt: skip


@pytest.mark.parametrize(
    ("text", "lands", "expected"),
    [
        ("{T}: Add {C}.\n{R}{G}, {T}: Target creature gets +1/+1 and", LANDS, [SKARRG]),
        ("{T}: Add {C}.\n{R}{G}, {T}: Target Beast creature you", LANDS, [CLIFFS]),
        # 12 letters, but only 3 after the text parts from Contested Cliffs': no card ...
        ("{T}: Add {C}.\n{R}{G}, {T}: Target cre", LANDS, []),
        # ... unless the catalog does not know the other land.
        ("{T}: Add {C}.\n{R}{G}, {T}: Target cre", LANDS.head(1), [SKARRG]),
        # Fewer than 12 letters outside mana symbols: no card even alone in the catalog.
        ("{T}: Add {C}.\n{R}{G}, {T}: Target ", LANDS.head(1), []),
    ],
    ids=["skarrg", "cliffs", "parts-too-late", "rival-unknown", "few-letters"],
)
def test_stub_prefix_must_part_from_other_cards(
    text: str, lands: pl.DataFrame, expected: list[str]
) -> None:
    found = attribute_by_stub(stub(text), index_catalog_texts(lands, NO_FOREIGN))
    assert found["oracle_id"].to_list() == expected


def test_stub_with_another_mana_value_matches_nothing() -> None:
    text = "{T}: Add {C}.\n{R}{G}, {T}: Target creature gets +1/+1 and"
    assert attribute_by_stub(stub(text, 1.0), index_catalog_texts(LANDS, NO_FOREIGN)).height == 0


SALVAGE_DRONE = "9b18bbf3-3b1c-4010-bc6f-e7eacb2ffb70"


@needs_real_catalog
def test_a_portuguese_stub_cut_from_the_card_names_it(
    real_catalog_cache: tuple[Catalog, object],
) -> None:
    """`CMC 1P/R 1/1` + Salvage Drone's Brazilian text as MTGJSON prints it (no break after
    `cor.)`), cut: the candidates are the 1-mana 1/1 texts in pt (Sludge Crawler's starts
    the same), and other Eldrazi print `Quando Zangão de` too."""
    catalog = real_catalog_cache[0]
    texts = index_catalog_texts(catalog["cards"], catalog["foreign"])
    cut = (
        "Desprovido (Este card não tem cor.)Ingerir (Toda vez que esta criatura causa dano "
        "de combate a um jogador, ele exila o card do topo do próprio grimório.)Quando "
        "Zangão de Recuperação morre,"
    )
    stub_pt = stub(cut, 1.0).with_columns(
        power=pl.lit("1"), toughness=pl.lit("1"), language=pl.lit("pt")
    )
    found = attribute_by_stub(stub_pt, texts)
    assert found.select("oracle_id", "card_name").rows() == [(SALVAGE_DRONE, "Salvage Drone")]


CURSE_OF_PREDATION = "69ea4ce2-f749-4d5b-a392-efcfdce14a30"
CURSE_OF_THE_FORSAKEN = "e00f8d6b-5bb1-4625-9fa4-114cdc381bd4"


@needs_real_catalog
@pytest.mark.parametrize(
    ("cut", "expected"),
    [
        # Forsaken's text, cut before it parts from Predation's: it parts from Curse of
        # Inertia's (`ein Spieler den verzauberten Spieler`) in words Inertia prints too.
        ("Verzaubert einen SpielerImmer wenn eine Kreatur den verzauberten Spieler ", []),
        # Predation's own words past the template (`lege eine +1/+1-Marke`): Predation.
        ("Verzaubert einen SpielerImmer wenn eine Kreatur den verzauberten Spieler angreift, "
         "lege eine +1/+1-Marke", [CURSE_OF_PREDATION]),
    ],
    ids=["template", "own-words"],
)  # fmt: skip
def test_a_stub_cut_inside_a_cycles_template_pins_nothing(
    real_catalog_cache: tuple[Catalog, object], cut: str, expected: list[str]
) -> None:
    """Curse of the Forsaken removed from the catalog (the evaluation's seed 2): its German
    stub is Curse of Predation's opening word for word (mana value 3), and its five rulings
    are Predation's too. A stub that parts from its rivals only in words they print (a
    cycle's template) names no card, alone or beside the record."""
    catalog = split_catalog(real_catalog_cache[0], {CURSE_OF_THE_FORSAKEN})
    texts = index_catalog_texts(catalog["cards"], catalog["foreign"])
    stub_de = stub(cut, 3.0).with_columns(language=pl.lit("de"))
    assert attribute_by_stub(stub_de, texts)["oracle_id"].to_list() == expected
    assert find_stub_fits(stub_de, texts)["oracle_id"].to_list() == expected
