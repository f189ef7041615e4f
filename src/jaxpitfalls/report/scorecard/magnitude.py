"""Whether a write-up's number held in size (the rules: RULE). Absolute times are never judged."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ...contract.interface import Number
from ...contract.verdicts import ANOTHER_DEVICE, CHECKED, NOT_MEASURED, NOT_TESTABLE
from ...formatting import short

TOLERANCE = 1.5  # effects and exponents: the factor within which a write-up's number held in size
POINTS = 15.0  # shares: percentage points either way

RULE = (f"size compares effects, our 95% interval against the write-up's number or range: a ratio's distance from "
        f"1 (x - 1 for a speedup, 1/x - 1 for a slowdown), an exponent or count itself, a share in percentage "
        f"points; held in size where our estimate lies within {TOLERANCE:g}x of theirs ({POINTS:g} points for shares), "
        "bold beyond it: **in range** where our interval meets their number and lies wholly within the tolerance, else "
        "smaller or larger by the factor at our estimate, and where our interval reaches across the tolerance, the "
        "factors at its ends in brackets (held, or not, by the estimate alone); absolute times and rates depend on "
        "the host: shown, not judged")


@dataclass(frozen=True)
class Size:
    """One write-up number against ours: the cell, whether it held by our point (None: not judged), both numbers."""
    cell: str
    held: bool | None
    side_by_side: str
    sure: bool = True  # the whole interval on the point's side of the tolerance


def device_here(environment: pd.DataFrame) -> str:
    """The run's device for `Number.differs` (`{here}`), so a GPU run never says "this CPU"."""
    kinds = sorted({"CPU" if b == "cpu" else str(k) for b, k in zip(environment.backend, environment.device_kind,
                                                                      strict=True)})
    return "this " + " and ".join(kinds) if kinds else "this machine"


def unit_word(unit: str) -> str:
    """A unit's first word (`x` of `x slower`, `%`)."""
    return (unit.split() or [""])[0]


def as_written(x: float) -> str:
    """A write-up's number as written (133.5, 0.1495), never in e-notation."""
    return f"{x:g}" if 1e-4 <= abs(x) < 1e6 else short(x)


def theirs_text(number: Number) -> str:
    """`7.6x`, `1.23-1.27x`."""
    low, high = as_written(number.low), as_written(number.high)
    return f"{low}{number.unit}" if low == high else f"{low}-{high}{number.unit}"


def ours_text(ours: tuple[float, float, float], unit: str) -> str:
    """Ours in the unit's first word: `5.88x [5.86, 5.90]`, `515 ms/step [493, 656]`."""
    value, low, high = ours
    spread = "" if low == high == value else f" [{short(low)}, {short(high)}]"
    return f"{short(value)}{' ' if unit.startswith(' ') else ''}{unit_word(unit)}{spread}"


def _effect(ratio: float) -> float:
    """So a claim and its reverse are equal and opposite."""
    return ratio - 1 if ratio >= 1 else -(1 / ratio - 1)


OPPOSITE, BELOW, WITHIN, ABOVE = -2, -1, 0, 1  # where an effect lies against the write-up's, in order
FACTOR_WORDS = {OPPOSITE: "opposite direction", BELOW: "smaller", WITHIN: "in range", ABOVE: "larger"}
POINT_WORDS = {BELOW: "less", WITHIN: "in range", ABOVE: "more"}


def _factor(f: float) -> str:
    """Two decimals, three where that would round onto the tolerance (1.504x is not held: not `1.50x`)."""
    digits = 3 if abs(f - TOLERANCE) < 0.005 else 2 if f < 10 else 0
    return f"{f:.{digits}f}x" if f < 100 else "over 100x"


def _gap(gap: float) -> str:
    digits = 1 if abs(gap - POINTS) < 0.5 else 0  # 15.4 points is not held: not `15 points`
    return f"{gap:.{digits}f} point{'' if round(gap, digits) == 1 else 's'}"


def _judged(ends: list[tuple[float, int]], tolerance: float, words: dict[int, str],
            text: Callable[[float], str]) -> tuple[str, bool, bool]:
    """(cell, held, sure) from how far the interval's low end, point and high end lie: held by the point; sure
    where the whole interval lies on the point's side of the tolerance, else the cell gives the ends too."""
    point, (near, far) = ends[1], sorted((ends[0], ends[2]))
    meets = min(ends[0][1], ends[2][1]) <= WITHIN <= max(ends[0][1], ends[2][1])
    held = point[0] <= tolerance
    sure = far[0] <= tolerance if held else near[0] > tolerance and not meets

    def said(distance: float, where: int) -> str:
        return words[where] if where in (WITHIN, OPPOSITE) else f"{text(distance)} {words[where]}"

    cell = words[WITHIN] if meets and held and sure else said(*point)
    if not sure:  # both ends on the estimate's side: their factors, nearest first; else each end as it lies
        alike = ends[0][1] == ends[2][1] == point[1] and point[1] in (BELOW, ABOVE)
        cell += f" [{text(near[0])}, {text(far[0])}]" if alike else f" [{said(*ends[0])}, {said(*ends[2])}]"
    return (cell if held else f"**{cell}**"), held, sure


def _factor_size(value: float, low: float, high: float, theirs_low: float,
                 theirs_high: float) -> tuple[str, bool, bool]:
    """(cell, held, sure) on the effects, a factor apart."""
    if theirs_high < 0:  # a slowdown's effects, turned to a gain's: the same comparison
        value, low, high, theirs_low, theirs_high = -value, -high, -low, -theirs_high, -theirs_low

    def apart(x: float) -> tuple[float, int]:
        if theirs_low <= x <= theirs_high:
            return 1.0, WITHIN
        if x <= 0:
            return math.inf, OPPOSITE
        return (theirs_low / x, BELOW) if x < theirs_low else (x / theirs_high if theirs_high > 0 else math.inf, ABOVE)

    return _judged([apart(x) for x in (low, value, high)], TOLERANCE, FACTOR_WORDS, _factor)


def _points(number: Number, value: float, low: float, high: float) -> tuple[str, bool, bool]:
    """A share in percentage points (a factor on a share would misjudge its size)."""
    def apart(x: float) -> tuple[float, int]:
        if x < number.low:
            return number.low - x, BELOW
        return (x - number.high, ABOVE) if x > number.high else (0.0, WITHIN)

    return _judged([apart(x) for x in (low, value, high)], POINTS, POINT_WORDS, _gap)


UNSIZED_CELL = "— (not sizable here)"
SMALLER_CELL = "— (smaller structure)"  # judged below the write-up's structure: its size is not the write-up's
DEVICE_CELL = "— (another device)"  # judged on another device than the write-up's effect needs: nor is this


def tolerance(number: Number) -> str:
    """The tolerance `size` holds `number` to, as printed."""
    return f"{POINTS:g} points" if number.is_share else f"{TOLERANCE:g}x"


def size(number: Number, ours: tuple[float, float, float] | None, here: str) -> Size:
    """The write-up's `number` against `ours` (estimate, low, high, or None); `here`: our device."""
    theirs = theirs_text(number)
    if number.unsized:
        return Size(UNSIZED_CELL, None, f"{theirs}, not sized here: {number.unsized}")
    if number.sized_by:
        return Size(f"— (= {number.sized_by}'s, sized there)", None, f"{theirs}, sized under {number.sized_by}")
    if ours is None:
        where = ", ".join(f"{k} {v}" for k, v in number.at.items())
        return Size("— (not measured here)", None,
                    f"{theirs} vs not measured at the write-up's structure{f' ({where})' if where else ''}")
    shown = ours if number.dimensionless else (ours[0],) * 3  # an absolute number: no interval, it is not judged
    side_by_side = f"{theirs} vs {ours_text(shown, number.unit)}"
    if not number.structural and here:
        side_by_side += f" ({number.differs.format(here=here)})"
    value, low, high = ours
    if number.is_share:
        cell, held, sure = _points(number, value, low, high)
    elif unit_word(number.unit).startswith("x"):
        if low <= 0:
            return Size("— (not a ratio)", None, side_by_side)
        cell, held, sure = _factor_size(*map(_effect, (value, low, high, number.low, number.high)))
    elif number.dimensionless:
        cell, held, sure = _factor_size(value, low, high, number.low, number.high)
    else:
        return Size("— (absolute: host-bound)", None, side_by_side)
    if low == high:  # one measurement (a single trace): where it lies is said, no size is scored on it
        return Size(f"{cell.replace('**', '')} (no interval: not scored)", None, side_by_side)
    return Size(cell, bool(held), side_by_side, bool(sure))  # a numpy bool is not `False`


def sized(claim: dict[str, Any]) -> Size:
    """The headline against the write-up's first number where comparable, else ours measured for that number."""
    number, ours, headline = claim["numbers"][0], claim["ours"][0], claim.get("headline")
    same_unit = headline is not None and unit_word(headline.unit) == unit_word(number.unit)
    if not same_unit or claim.get("supporting"):
        return size(number, ours, "")
    return size(number, (headline.value, headline.low, headline.high), "")


def _where(cell: str) -> str:
    """Where ours lies against the write-up's number, sizing nothing."""
    for word, said in (("in range", "inside the write-up's range"), ("smaller", "below the write-up's"),
                       ("larger", "above the write-up's"), ("opposite", "in the opposite direction")):
        if word in cell.split(" [")[0]:  # where our estimate lies, not the interval's ends
            return said
    return cell


def size_cell(claim: dict[str, Any]) -> str:
    """The first number's size, or the hardware's ceiling where not testable; below the write-up's structure, only
    against a number the structure sets."""
    if claim["verdict"] == NOT_TESTABLE:  # a size this hardware cannot reach says nothing of the write-up's
        ceiling = claim.get("ceiling")
        if not ceiling:
            return "— (not testable here)"
        return f"— (at most {ceiling:.3f}x here)" if ceiling >= 1 else f"— (no gain here to show: {ceiling:.3f}x)"
    if claim["verdict"] in (NOT_MEASURED, CHECKED) or not claim["numbers"]:
        return "—"
    number, headline = claim["numbers"][0], claim.get("headline")
    if claim.get("supporting") and not (number.unsized or number.sized_by):
        if ANOTHER_DEVICE in claim["measured"]:
            return DEVICE_CELL
        there = None if headline is None or unit_word(headline.unit) != unit_word(number.unit) \
            or not number.structural else \
            size(number, (headline.value, headline.low, headline.high), "")
        if there is None or there.held is None:
            return SMALLER_CELL
        return f"{SMALLER_CELL[:-1]}; ours {_where(there.cell)})"  # where it lies, not a size: not scored
    return sized(claim).cell
