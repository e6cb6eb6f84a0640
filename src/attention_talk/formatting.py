"""How every number is written, in one place: Python decides how a number is shown.

Used by the engine's cost model (formulas), the frame builders (notes, labels, derivations) and
the deck's figures. The player's ``static/js/lib/format.js`` formats only what it must (matrix cells,
live widget values) and follows the same rules; ``tests/test_formatting.py`` checks both sides on
one table of values.

Rules:
- a real minus sign (U+2212), never a hyphen;
- no negative zero: a value that rounds to zero is written without a sign;
- ``None`` (a masked score, JSON's stand-in for −∞) and −inf are "−∞", +inf is "∞";
- ties round away from zero on the number's exact binary value (as JavaScript's ``toFixed``);
- counts are integers with thousands separators; a fraction keeps up to 3 decimals.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Context, Decimal
from fractions import Fraction

MINUS = "\u2212"
_EXACT = Context(prec=1100)  # enough digits for any double's exact value, so quantize never overflows
NEG_INF = MINUS + "∞"


def number(x: float | None, digits: int = 2) -> str:
    """``x`` with exactly ``digits`` decimals: −0.004 → "0.00", −1.5 → "−1.50", None → "−∞"."""
    if x is None:
        return NEG_INF
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "∞" if x > 0 else NEG_INF
    q = Decimal(x).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP, context=_EXACT)
    if q == 0:
        q = abs(q)
    return f"{q:f}".replace("-", MINUS)


def count(x: int | float | Fraction) -> str:
    """1234567 → "1,234,567"; a non-integer keeps up to 3 decimals (2.5 → "2.5")."""
    if isinstance(x, Fraction):
        x = int(x) if x.denominator == 1 else float(x)
    if isinstance(x, bool):
        x = int(x)
    if isinstance(x, int):
        return f"{x:,}".replace("-", MINUS)
    q = Decimal(x).quantize(Decimal("0.001"), rounding=ROUND_HALF_UP, context=_EXACT)
    if q == 0:
        q = abs(q)
    s = f"{q:,f}".rstrip("0").rstrip(".")
    return s.replace("-", MINUS)


def scientific(x: float, digits: int = 1) -> str:
    """A tiny or huge number in powers of ten: 1.6e-15 → "1.6 × 10⁻¹⁵" (0 → "0")."""
    if x == 0:
        return "0"
    mantissa, exponent = f"{x:.{digits}e}".split("e")
    sup = str(int(exponent)).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"{mantissa.replace('-', MINUS)} × 10{sup}"


def vector(values, digits: int = 2) -> str:
    """A short vector in brackets: [0.10, −0.20]."""
    return "[" + ", ".join(number(float(v), digits) for v in values) + "]"


def shape(*dims: int) -> str:
    """Tensor dimensions: 7 × 7,168."""
    return " × ".join(count(int(d)) for d in dims)


# The words of a text on stage (VISUAL.md §2: a note or a card says one thing; the rest goes to the
# narration). The deck format refuses a longer one (deck.Words, deck.CardWords).
MAX_STAGE_WORDS = 25  # VISUAL.md §2: a note or card on stage says one thing; the rest goes to the narration


def stage_words(text: str) -> int:
    """Words as the audience reads them: a {placeholder} counts as one word (one number), markup none."""
    return len(re.sub(r"<[^>]+>", " ", text).split())


def check_stage_words(text: str, what: str = "") -> str:
    """``text`` when it is short enough to read on stage; ValueError naming ``what`` and its length."""
    n = stage_words(text)
    if n > MAX_STAGE_WORDS:
        raise ValueError(f"{what}{n} words; a text on stage is at most {MAX_STAGE_WORDS} "
                         "(say the rest in the step's narration)")
    return text
