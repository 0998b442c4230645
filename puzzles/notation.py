"""Cube move notation: tokenise Singmaster move sequences in the spellings of published files.

Accepted spellings of one move (face letter ``U R F D L B`` followed by a suffix, tokens separated by
optional whitespace or commas, so unspaced ``B3L3D3F1`` works too):

=========================  ============================
suffix                     quarter turns (clockwise)
=========================  ============================
none, ``1``, ``+``          1
``'``, ``-``, ``3``, ``’``  3 (one counter-clockwise turn)
``2``, ``2'``, ``'2``       2
=========================  ============================
"""

from __future__ import annotations

import re

from core.errors import InputError

#: face letters in Kociemba's face order; the index is the face number used everywhere in ``puzzles.cube``
FACES = "URFDLB"

_TOKEN = re.compile(r"([URFDLB])(2'|'2|2|1|3|'|-|\+|\u2019)?")
_SEPARATORS = " \t\r\n,;"
_SUFFIX_POWER = {None: 1, "": 1, "1": 1, "+": 1, "'": 3, "-": 3, "3": 3, "\u2019": 3,
                 "2": 2, "2'": 2, "'2": 2}


def tokenize(text: str, what: str = "moves") -> list[tuple[int, int]]:
    """Split a move sequence into ``(face, quarter_turns)`` pairs.

    ``face`` is an index into ``FACES`` (0..5 = U R F D L B), ``quarter_turns`` is 1, 2 or 3
    clockwise quarter turns. Raises a one-line ``InputError`` naming the first bad symbol.
    """
    out: list[tuple[int, int]] = []
    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in _SEPARATORS:
            i += 1
            continue
        m = _TOKEN.match(text, i)
        if m is None:
            raise InputError(
                f"{what}: unknown symbol {ch!r} at position {i + 1} (expected a face letter "
                f"U R F D L B with an optional suffix ' - 2 3 1)"
            )
        out.append((FACES.index(m.group(1)), _SUFFIX_POWER[m.group(2)]))
        i = m.end()
    return out


def looks_like_moves(text: str) -> bool:
    """True if ``text`` contains separators or move suffixes, i.e. cannot be a facelet string."""
    return any(c in text.strip() for c in " \t,;'-+123\u2019")
