"""The scorecard's magnitude columns: the write-up's number beside ours in the same unit, and whether the two
agree in size where the quantity is set by the model's structure rather than by the write-up's hardware.

A claim's verdict says whether the effect has the write-up's direction; this says whether its size holds.
Only a dimensionless number the structure sets (a ratio of two Python-side costs, an exponent, a share) is
judged, with a tolerance for the hosts' single-thread speed and the library versions (shares in percentage
points). An absolute time or rate always depends on the host, and a speedup of the compute on the write-up's
accelerator and sizes: for those the factor is shown with what differs (`Number.differs`), no verdict.
"""

from __future__ import annotations

import pandas as pd

from ..contract.interface import Number

FACTOR = 2.0  # ratios, exponents, counts the structure sets: hosts' single-thread speed and library versions
POINTS = 15.0  # shares the structure sets: percentage points either way

RULE = ("ours is measured at the write-up's structure (the configuration with its layers and hidden size), as a "
        "95% interval; dimensionless numbers the structure sets: **same size** where our interval reaches within "
        f"a factor {FACTOR:g} of the write-up's number or range (shares: within {POINTS:g} percentage points), "
        "else larger/smaller by the factor shown; absolute times and rates, and numbers the write-up's "
        "accelerator sets: the factor only, with what differs between the two measurements, no verdict")


def device_here(environment: pd.DataFrame) -> str:
    """The run's device as a `Number.differs` names it (`{here}`): what the study's jobs ran on, from its
    environment table, so a GPU run's scorecard never says "this CPU"."""
    kinds = sorted({"CPU" if b == "cpu" else str(k) for b, k in zip(environment.backend, environment.device_kind,
                                                                      strict=True)})
    return "this " + " and ".join(kinds) if kinds else "this machine"


def _number(low: float, high: float, unit: str) -> str:
    return f"{low:.3g}{unit}" if low == high else f"{low:.3g}-{high:.3g}{unit}"


def magnitude(number: Number, ours: tuple[float, float, float] | None, here: str) -> tuple[str, str]:
    """(the two numbers side by side, the magnitude verdict) for one number; `ours` is (estimate, 95% low, high)
    in the number's unit at the write-up's structure (at_write_up_structure), None where this run did not
    measure it there; `here` names the run's device in what differs (device_here)."""
    differs = number.differs.format(here=here)
    theirs = _number(number.low, number.high, number.unit)
    if ours is None:
        where = ", ".join(f"{k} {v}" for k, v in number.at.items())
        return f"{theirs} vs not measured", f"not measured at the write-up's structure ({where})" if where else (
            "not measured")
    value, low, high = ours
    spread = "" if low == high == value else f" [{low:.3g}, {high:.3g}]"
    side_by_side = f"{theirs} vs {value:.3g}{number.unit}{spread}"
    if number.is_share and number.structural:
        return side_by_side, _points(number, low, high)
    if value <= 0:
        return side_by_side, "opposite sign" if number.structural else f"opposite sign ({differs})"
    factor = value / number.high if value > number.high else value / number.low if value < number.low else 1.0
    size = "same size" if factor == 1.0 else (f"{factor:.2g}x larger" if factor > 1 else f"{1 / factor:.2g}x smaller")
    if not number.structural:
        return side_by_side, f"{size}; differs: {differs}"
    reaches = high >= number.low / FACTOR and low <= number.high * FACTOR
    return side_by_side, "same size" if reaches else f"**{size}**"


def _points(number: Number, low: float, high: float) -> str:
    """A share against the write-up's, in percentage points: a factor on a share would call 37% and 100% the
    same size as 74%."""
    if high >= number.low - POINTS and low <= number.high + POINTS:
        return "same size"
    gap = low - number.high if low > number.high else number.low - high
    return f"**{gap:.0f} points {'more' if low > number.high else 'less'}**"
