"""decode.plain_texts picks out UTF-8 as Python's own decoder does, over all contents at once."""

from __future__ import annotations

import codecs
import itertools
import random

import polars as pl
import pytest

from flows.stages.decode import PYTHON_DECODES, plain_texts, utf8_texts

#: Byte strings at the edges of UTF-8 (RFC 3629, table 3-7 of the Unicode standard).
ODD_BYTES = [
    b"",
    b"plain ASCII",
    "caf\u00e9 \u00b7 \u65e5\u672c \U0001f600".encode(),  # 2-, 3- and 4-byte sequences
    b"caf\xe9",  # cp1252 é: a lone lead byte
    b"\xc3",  # truncated at the end
    b"\xe2\x82",
    b"\xf0\x9f\x98",
    b"\x80",  # a lone continuation byte
    b"\xc0\xaf",  # overlong `/`
    b"\xc1\xbf",
    b"\xe0\x80\xaf",  # overlong, three bytes
    b"\xf0\x80\x80\xaf",  # overlong, four bytes
    b"\xed\xa0\x80",  # U+D800, a surrogate
    b"\xed\xbf\xbf",  # U+DFFF
    b"\xed\x9f\xbf",  # U+D7FF: the last before the surrogates, valid
    b"\xee\x80\x80",  # U+E000, valid
    b"\xf4\x8f\xbf\xbf",  # U+10FFFF, valid
    b"\xf4\x90\x80\x80",  # over U+10FFFF
    b"\xf5\x80\x80\x80",
    b"\xf8\x88\x80\x80\x80",  # the old five-byte form
    b"\xfe",
    b"\xff",
    b"\xef\xbf\xbd",  # U+FFFD itself: valid UTF-8
    b"\xef\xbf\xbe",  # U+FFFE, a noncharacter: valid
    b"ok\n\xc3\xa9\r\n\xc3",  # valid until its last byte
]


def _python(content: bytes) -> str | None:
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _some_bytes() -> list[bytes]:
    """Every two-byte string from a lead byte, and 20,000 random short strings of edge bytes."""
    edges = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF]
    edges += [0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xF8, 0xFE, 0xFF]
    pairs = [bytes(p) for p in itertools.product(range(0xC0, 0x100), range(0x70, 0xC8))]
    draw = random.Random(0)  # the same strings every run
    return pairs + [
        bytes(draw.choice(edges) for _ in range(draw.randint(1, 6))) for _ in range(20_000)
    ]


@pytest.mark.parametrize("content", ODD_BYTES, ids=[repr(b)[:24] for b in ODD_BYTES])
def test_utf8_texts_decodes_as_python_alone(content: bytes) -> None:
    # more copies than PYTHON_DECODES: polars' cast judges them all (it must fail on any
    # content Python rejects; Python decodes the parts that fail)
    copies = [content] * (PYTHON_DECODES + 1)
    decoded = utf8_texts(pl.Series(copies, dtype=pl.Binary))
    assert decoded.to_list() == [_python(content)] * len(copies)


def test_utf8_texts_decodes_as_python_in_a_batch_of_many() -> None:
    # one call over all of them: the halving finds each content that is not UTF-8
    contents = ODD_BYTES + _some_bytes()
    decoded = utf8_texts(pl.Series(contents, dtype=pl.Binary))
    assert decoded.dtype == pl.String
    assert decoded.to_list() == [_python(c) for c in contents]


@pytest.mark.parametrize(
    ("content", "plain"),
    [
        (b"07 juin 2024 \xc2\xb7 source : wotc\nLes marqueurs.\n", True),
        (codecs.BOM_UTF8 + b"a\n", False),
        (codecs.BOM_UTF16_LE + "a\n".encode("utf-16-le"), False),
        (codecs.BOM_UTF16_BE + "a\n".encode("utf-16-be"), False),
        (b"a\x00b\n", False),  # NUL: UTF-16 without a BOM, or binary
        (b"caf\xe9\n", False),  # cp1252
        (b"\xed\xa0\x80\n", False),  # a surrogate
        (b"", True),
    ],
    ids=[
        "utf-8",
        "bom-utf-8",
        "bom-utf-16-le",
        "bom-utf-16-be",
        "nul",
        "cp1252",
        "surrogate",
        "empty",
    ],
)
def test_plain_texts_leaves_to_decode_bytes_what_is_not_plain_utf8(
    content: bytes, plain: bool
) -> None:
    batch = [b"plain\n", content, b"plain too\n"]
    texts = plain_texts(pl.Series(batch, dtype=pl.Binary)).to_list()
    assert texts == ["plain\n", content.decode() if plain else None, "plain too\n"]
