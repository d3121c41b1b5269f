"""langdetect's trials (`Detector._detect_block`) for a batch of texts at once, with numpy.

For one text langdetect seeds `random.Random(0)` (`DetectorFactory.seed`),
then runs N_TRIAL trials. A trial draws alpha = 0.5 + gauss(0, 1) * 0.05,
starts from 1/55 for each language, and at each iteration i multiplies every
probability p by (alpha / 10000 + the drawn n-gram's profile value), the n-gram
drawn by `random.choice` (`Detector._update_lang_prob`); at i = 0, 5, 10, ...
it divides by their sum, Python's `sum()` (`Detector._normalize_prob`), and
stops when the largest passes CONV_THRESHOLD or i reaches ITERATION_LIMIT.
Each trial's probabilities, divided by N_TRIAL, are added to the result.

Here a batch of texts (slots) steps together, each text's current trial up
to its next check per step, with the same float operations in the same
order (the factor: the smoothing added, then multiplied; the sum: left to
right, as Python 3.11's `sum()`, not numpy's pairwise `sum`), so the same
floats. Each text reads its own place
in the one stream of Random(0)'s 32-bit words (`_Stream`), as its own
Random(0) would: `choice(seq)` of n n-grams takes the top k bits of a word
(k = n.bit_length()) until they are below n (`Random._randbelow`), one word
each; `gauss()` takes 4 words (two `random()`) on trials 0, 2, 4 and 6 and
gives the cached second value on the others (`Random.gauss`).
"""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import numpy
from langdetect.detector import Detector
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

#: `DetectorFactory.seed` reproduced here.
SEED = 0
#: `Detector.n_trial` (set in its __init__), and the class constants of `Detector`.
N_TRIAL = 7
ALPHA = Detector.ALPHA_DEFAULT
ALPHA_WIDTH = Detector.ALPHA_WIDTH
BASE_FREQ = Detector.BASE_FREQ
CONV_THRESHOLD = Detector.CONV_THRESHOLD
ITERATION_LIMIT = Detector.ITERATION_LIMIT
#: Finished texts' slots are given to new texts once they are this share of the batch.
_REFILL_SHARE = 1 / 16
#: A trial checks convergence every this many iterations (`i % 5 == 0`).
_CHECK_EVERY = 5
#: Words of the stream read at once for a slot's 5 draws (too few accepted: 1e-5 at worst).
_WINDOW = 32

#: The arrays of `_Batch` indexed by slot.
_SLOT_FIELDS = ("text", "base", "count", "shift", "position", "trial", "iteration")
_SLOT_FIELDS += ("weight", "cached", "alive", "prob", "total")

Floats = NDArray[numpy.float64]
Ints = NDArray[numpy.int64]


class _Stream:
    """`random.Random(SEED)`'s 32-bit words in the order it makes them, made as far as read."""

    def __init__(self) -> None:
        self._random = random.Random(SEED)
        self._lock = threading.Lock()  # one thread at a time extends the words
        self.words: NDArray[numpy.uint32] = numpy.empty(0, dtype=numpy.uint32)
        #: (words, width, their sliding windows of that width): `windows` reads rows of it
        self._windows: tuple[Any, int, Any] = (None, 0, None)

    def reach(self, end: int) -> None:
        """Make words[:end] (at least) available (the words read so far never change)."""
        if end <= self.words.size:
            return
        with self._lock:
            more = max(end - self.words.size, self.words.size, 1 << 16)
            # getrandbits(32 * more) fills its words from the least significant up
            packed = self._random.getrandbits(32 * more).to_bytes(4 * more, "little")
            self.words = numpy.concatenate([self.words, numpy.frombuffer(packed, dtype="<u4")])

    def windows(self, positions: Ints, width: int) -> NDArray[numpy.uint32]:
        """words[position : position + width] of each position: uint32, positions x width."""
        self.reach(int(numpy.maximum.reduce(positions, initial=0)) + width)
        words, cached = self.words, self._windows  # each read once: another thread may extend
        if cached[0] is not words or cached[1] != width:
            cached = self._windows = (words, width, sliding_window_view(words, width))
        return cached[2][positions]

    def gauss(self, positions: Ints) -> tuple[Floats, Floats]:
        """`Random.gauss(0.0, 1.0)`'s value and cached next value from words[position:+4], each.

        The same float operations as `Random.gauss`, each with numpy where it is
        exact (the 53-bit floats, products, `sqrt`) and with `math` where numpy's
        could round otherwise (`log`, `cos`, `sin`).
        """
        self.reach(int(positions.max(initial=0)) + 4)
        a, b, c, d = self.words[positions[:, None] + _GAUSS_WORDS].T.astype(numpy.int64)
        x2pi = (_random_floats(a, b) * (2.0 * math.pi)).tolist()  # random.TWOPI
        logs = numpy.fromiter(map(math.log, (1.0 - _random_floats(c, d)).tolist()), numpy.float64)
        g2rad = numpy.sqrt(-2.0 * logs)
        cos = numpy.fromiter(map(math.cos, x2pi), numpy.float64, count=len(x2pi))
        sin = numpy.fromiter(map(math.sin, x2pi), numpy.float64, count=len(x2pi))
        return cos * g2rad, sin * g2rad  # mu + z * sigma is z


def _random_floats(a: Ints, b: Ints) -> Floats:
    """`Random.random()` from two words each (CPython's `random_random`: 53 bits, exact)."""
    return ((a >> 5) * 67108864.0 + (b >> 6)) * (1.0 / 9007199254740992.0)


#: The 4 words of a `gauss()` that draws (two `random()`).
_GAUSS_WORDS = numpy.arange(4)
_STREAM = _Stream()


class Block(NamedTuple):
    """Texts cut into n-grams (`batch_langdetect.extract_ngrams`), each with at least one."""

    texts: Ints  # each text's index in the caller's list
    counts: Ints  # its number of n-grams (> 0)
    rows: Ints  # the profile rows of their n-grams, text after text, in langdetect's order


def run_trials(
    blocks: Iterable[Block], profile: Floats, batch_size: int
) -> Iterator[tuple[Ints, Floats]]:
    """`Detector.langprob` of each text of `blocks`, about `batch_size` texts stepping together.

    Args:
        blocks: the texts, read one block at a time as slots free up (a block
            of about `batch_size` / 8 texts keeps the batch nearly full).
        profile: float64 (n-grams x languages), the factory's probabilities.
        batch_size: texts stepping together (state: ~2 KB each).

    Yields:
        (texts, vectors) for the texts a step finishes: their indices (int64)
        and each one's float64 vector over the languages (texts x languages).
    """
    batch, waiting = _Batch(profile), iter(blocks)
    while True:
        block = next(waiting, None) if batch.live < max(1, batch_size * 7 // 8) else None
        if block is not None:
            batch.add(block)
            continue
        if batch.slots - batch.live >= max(1, batch.slots * _REFILL_SHARE):
            batch.drop_finished()
        if not batch.slots:
            return
        texts, vectors = batch.step()
        if texts.size:
            yield texts, vectors


class _Batch:
    """The detectors of the texts in the batch: one slot each, each array indexed by slot.

    A slot's text has `count` n-grams, `pool[base : base + count]` (int32
    profile rows; the pool's first `used` are the slots', the rest room to grow
    into without copying it at each block); it is at
    word `position` of the stream, in trial `trial`, iteration `iteration`,
    with `weight` = alpha / BASE_FREQ (in every language's column: adding it
    runs over whole rows, faster than a column's broadcast) and `cached` the
    gauss value its Random would hand out next; `prob` is the trial's vector,
    `total` the sum of its ended trials'. A finished text's slot is dead
    (`alive`) until `drop_finished`; dead slots still step, and count for nothing.
    """

    def __init__(self, profile: Floats) -> None:
        self.profile = profile
        # trial 0 of every text reads words 0-3
        first, cached = _STREAM.gauss(numpy.zeros(1, dtype=numpy.int64))
        self.first_cached = float(cached[0])
        self.first_weight = (ALPHA + float(first[0]) * ALPHA_WIDTH) / BASE_FREQ
        self.pool = numpy.zeros(0, dtype=numpy.int32)
        self.used = 0
        empty = Block(*(numpy.zeros(0, dtype=numpy.int64),) * 3)
        for name, values in self._new_slots(empty).items():
            setattr(self, name, values)
        self.factors = numpy.empty_like(self.prob)
        self.live = 0

    @property
    def slots(self) -> int:
        """Slots in the batch, dead ones included."""
        return int(self.text.size)

    def add(self, block: Block) -> None:
        """A slot for each text of `block`, at its start."""
        for name, values in self._new_slots(block).items():
            setattr(self, name, numpy.concatenate([getattr(self, name), values]))
        end = self.used + block.rows.size
        if end > self.pool.size:  # room for half as many rows again
            grown = numpy.empty(end + end // 2, dtype=numpy.int32)
            grown[: self.used] = self.pool[: self.used]
            self.pool = grown
        self.pool[self.used : end] = block.rows
        self.used = end
        self.factors = numpy.empty_like(self.prob)
        self.live += block.texts.size

    def drop_finished(self) -> None:
        """Drop the dead slots (and their n-grams, once they are half the pool)."""
        keep = self.alive
        for name in _SLOT_FIELDS:
            setattr(self, name, getattr(self, name)[keep])
        self.factors = numpy.empty_like(self.prob)
        if self.used > 2 * self.count.sum():
            bases = numpy.cumsum(self.count) - self.count
            rows = numpy.repeat(self.base - bases, self.count) + numpy.arange(self.count.sum())
            self.used = rows.size
            self.pool[: self.used], self.base = self.pool[rows], bases  # in the same room

    def _new_slots(self, block: Block) -> dict[str, Any]:
        """The state of a slot for each text of `block` at its start."""
        new, languages, counts = block.texts.size, self.profile.shape[1], block.counts
        return {
            "text": block.texts,
            "base": self.used + numpy.cumsum(counts) - counts,
            "count": counts,
            "shift": 32 - numpy.array([n.bit_length() for n in counts.tolist()], dtype=numpy.int64),
            "position": numpy.full(new, 4, dtype=numpy.int64),  # after trial 0's gauss
            "trial": numpy.zeros(new, dtype=numpy.int64),
            "iteration": numpy.zeros(new, dtype=numpy.int64),
            "weight": numpy.full((new, languages), self.first_weight),
            "cached": numpy.full(new, self.first_cached),
            "alive": numpy.ones(new, dtype=bool),
            "prob": numpy.full((new, languages), 1.0 / languages),
            "total": numpy.zeros((new, languages)),
        }

    def step(self) -> tuple[Ints, Floats]:
        """Every slot's trial up to its next check; the texts it finishes (`_end_trials`).

        A trial checks after iterations 0, 5, 10, ...: a slot at iteration 0
        does that one (its other four factors are 1.0: the product is
        unchanged), the others the next five.
        """
        first = self.iteration == 0
        rows = self.pool[self.base[:, None] + self._choose(first)]
        factors = self.factors
        for draw in range(_CHECK_EVERY):
            self.profile.take(rows[:, draw], axis=0, out=factors, mode="clip")  # no copy
            factors += self.weight  # weight + lang_prob_map[i], then the product
            if draw:
                factors[first] = 1.0
            self.prob *= factors
        self.iteration += numpy.where(first, 1, _CHECK_EVERY)
        ended = self._normalize()
        return self._end_trials(ended) if ended.size else (ended, self.total[ended])

    def _choose(self, first: NDArray[numpy.bool_]) -> Ints:
        """`Random.choice` of each slot's n-grams, 5 times (once where `first`): slots x 5.

        `Random._randbelow(count)` takes a word's top `count.bit_length()`
        bits, or the next word's while they are not below `count` (at most
        half are rejected): the first 5 accepted of the next _WINDOW words,
        read one by one past it in the rare case it has too few. Picks not
        drawn are 0.
        """
        words = _STREAM.windows(self.position, _WINDOW)  # slots x _WINDOW
        # a word's top bits are below count where the word is below count << shift (< 2**32)
        limits = (self.count << self.shift).astype(numpy.uint32)
        accepted = numpy.zeros((self.slots, 4), dtype=numpy.uint8)  # _WINDOW <= 32
        accepted[:, : -(-_WINDOW // 8)] = numpy.packbits(
            words < limits[:, None], axis=1, bitorder="little"
        )
        bits = accepted.view("<u4").ravel()  # bit j: word j of the window accepted
        exponents = numpy.empty((self.slots, _CHECK_EVERY), dtype=numpy.int32)
        for draw in range(_CHECK_EVERY):
            lowest = bits & -bits  # the next accepted word's bit (0: none left; -: modulo 2**32)
            exponents[:, draw] = numpy.frexp(lowest)[1]  # 2 ** (exponent - 1) is that bit
            bits ^= lowest
        columns = exponents - 1  # each draw's column (-1: none)
        # a column -1 reads the window's last word: a pick replaced below, or not drawn
        window_starts = numpy.arange(0, words.size, _WINDOW)[:, None]
        picks = words.ravel()[columns + window_starts] >> self.shift[:, None]  # int64
        picks[first, 1:] = 0
        last = numpy.where(first, columns[:, 0], columns[:, -1])  # -1: too few accepted
        if numpy.minimum.reduce(last) < 0:
            self._read_on(picks, first, (last < 0).nonzero()[0])
        self.position += last + 1  # those read on: already at their end, + 0
        return picks

    def _read_on(self, picks: Ints, first: NDArray[numpy.bool_], short: Ints) -> None:
        """The picks and end positions of the `short` slots, a word at a time."""
        for slot in short.tolist():
            draws = 1 if first[slot] else _CHECK_EVERY
            start = int(self.position[slot])
            picks[slot, :draws], self.position[slot] = self._draw_one_by_one(slot, start, draws)

    def _draw_one_by_one(self, slot: int, position: int, draws: int) -> tuple[list[int], int]:
        """`draws` picks of `slot` a word at a time from `position`; and the position after."""
        count, shift = int(self.count[slot]), int(self.shift[slot])
        picks: list[int] = []
        while len(picks) < draws:
            _STREAM.reach(position + 1)
            value = int(_STREAM.words[position]) >> shift
            position += 1
            if value < count:
                picks.append(value)
        return picks, position

    def _normalize(self) -> Ints:
        """`Detector._normalize_prob` of every slot (each at a check); the slots whose trial ends.

        A trial ends when its largest probability passes CONV_THRESHOLD or its
        last iteration was ITERATION_LIMIT.
        """
        by_language = self.prob.T.copy()  # languages x slots, each language's row contiguous
        # Python 3.11's sum(), left to right: numpy adds along an axis that is not the fast
        # one in memory number after number (pairwise only along the fast one: `numpy.sum`)
        if self.slots > 1:
            total = numpy.add.reduce(by_language, axis=0)
        else:  # with one slot the languages' axis is the fast one
            total = numpy.add.accumulate(by_language, axis=0)[-1]
        largest = numpy.maximum.reduce(by_language, axis=0)
        self.prob /= total[:, None]
        # max(p / total) is max(p) / total: rounding keeps the order
        over = (largest / total > CONV_THRESHOLD) | (self.iteration > ITERATION_LIMIT)
        return (over & self.alive).nonzero()[0]

    def _end_trials(self, ended: Ints) -> tuple[Ints, Floats]:
        """Add the ended trials to the totals; start the next trial, or give the finished texts.

        Returns:
            (texts, vectors): the indices of the texts whose last trial ended and
            their totals (a copy, texts x languages).
        """
        self.total[ended] += self.prob[ended] / N_TRIAL
        self.trial[ended] += 1
        last = self.trial[ended] == N_TRIAL
        finished = ended[last]
        self.alive[finished] = False
        self.live -= finished.size
        self._start_trials(ended[~last])
        return self.text[finished], self.total[finished]

    def _start_trials(self, slots: Ints) -> None:
        """`Detector._init_probability` and alpha's draw for the next trial of `slots`."""
        self.prob[slots] = 1.0 / self.profile.shape[1]
        self.iteration[slots] = 0
        gauss = self.cached[slots]  # odd trials: the value Random.gauss cached
        even = self.trial[slots] % 2 == 0  # even trials: two random() (4 words) anew
        if even.any():
            drawn = slots[even]
            gauss[even], self.cached[drawn] = _STREAM.gauss(self.position[drawn])
            self.position[drawn] += 4
        self.weight[slots] = ((ALPHA + gauss * ALPHA_WIDTH) / BASE_FREQ)[:, None]
