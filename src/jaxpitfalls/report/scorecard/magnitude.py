"""Whether a write-up's number held in size (the rules: RULE). Absolute times are never judged."""

from __future__ import annotations

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
        f"points; **in range** where they meet, else smaller or larger by the factor shown, held in size within "
        f"{TOLERANCE:g}x ({POINTS:g} points for shares) and bold beyond it; absolute times and rates depend on the "
        "host: shown, not judged")


@dataclass(frozen=True)
class Size:
    """One write-up number against ours: the cell, whether it held (None: not judged), both numbers."""

    cell: str
    held: bool | None
    side_by_side: str


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


def _factor_size(low: float, high: float, theirs_low: float, theirs_high: float) -> tuple[str, bool]:
    """(cell, held): met, opposite, or the factor apart."""
    if high >= theirs_low and low <= theirs_high:
        return "in range", True
    if theirs_high < 0:  # a slowdown's effects, turned to a gain's: the same comparison
        low, high, theirs_low, theirs_high = -high, -low, -theirs_high, -theirs_low
    if high <= 0:
        return "**opposite direction**", False
    if high < theirs_low:
        factor, word = theirs_low / high, "smaller"
    else:
        factor, word = low / theirs_high, "larger"
    held = factor <= TOLERANCE
    said = f"{factor:.{2 if factor < 10 else 0}f}x {word}" if factor < 100 else f"over 100x {word}"
    return (said if held else f"**{said}**"), held


def _points(number: Number, low: float, high: float) -> tuple[str, bool]:
    """A share in percentage points (a factor on a share would misjudge its size)."""
    if high >= number.low and low <= number.high:
        return "in range", True
    gap = low - number.high if low > number.high else number.low - high
    held = gap <= POINTS
    said = f"{gap:.0f} point{'' if round(gap) == 1 else 's'} {'more' if low > number.high else 'less'}"
    return (said if held else f"**{said}**"), held


UNSIZED_CELL = "— (not sizable here)"
SMALLER_CELL = "— (smaller structure)"  # judged below the write-up's structure: its size is not the write-up's
DEVICE_CELL = "— (another device)"  # judged on another device than the write-up's effect needs: nor is this


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
    _, low, high = ours
    if number.is_share:
        cell, held = _points(number, low, high)
    elif unit_word(number.unit).startswith("x"):
        if low <= 0:
            return Size("— (not a ratio)", None, side_by_side)
        cell, held = _factor_size(_effect(low), _effect(high), _effect(number.low), _effect(number.high))
    elif number.dimensionless:
        cell, held = _factor_size(low, high, number.low, number.high)
    else:
        return Size("— (absolute: host-bound)", None, side_by_side)
    if low == high:  # one measurement (a single trace): where it lies is said, no size is scored on it
        return Size(f"{cell.replace('**', '')} (no interval: not scored)", None, side_by_side)
    return Size(cell, bool(held), side_by_side)  # a numpy bool is not `False`


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
        if word in cell:
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
