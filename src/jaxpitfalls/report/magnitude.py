"""The scorecard's magnitude columns: the write-up's number beside ours in the same unit, and whether the two
agree in size where the quantity is set by the model's structure rather than by the write-up's hardware.

A claim's verdict says whether the effect has the write-up's direction; this says whether its size holds.
The write-ups ran on GPUs/TPUs at other batch sizes, so a quantity the accelerator sets (a speedup of the
compute, tokens per second) cannot be expected to match on a CPU: for those the factor is shown and no
verdict given. A quantity the structure sets (Python-side work per pytree leaf, tree manipulation per
transform, shares of that work) runs on the host CPU in both places, so it is judged with a tolerance for the
hosts' single-thread speed and the library versions.
"""

from __future__ import annotations

import pandas as pd

from ..studies.interface import Number
from .aggregate import base_config_id

FACTOR = 2.0  # tolerance for structure-bound numbers: hosts' single-thread speed and library versions

RULE = ("ours is measured at the write-up's structure (the configuration with its layers and hidden size); "
        "structure-bound numbers: **same size** where our 95% interval (for a median: its samples' range) "
        f"reaches within a factor {FACTOR:g} of "
        "the write-up's number or range, else larger/smaller by the factor shown; hardware-bound numbers (set by "
        "the write-up's accelerator and sizes): the factor only, no verdict")


def _number(low: float, high: float, unit: str) -> str:
    return f"{low:.3g}{unit}" if low == high else f"{low:.3g}-{high:.3g}{unit}"


def at_write_up_structure(table: pd.DataFrame, number: Number) -> str | None:
    """The configuration (id) of a result table at the structure the write-up measured its number at
    (`number.at`), the base configuration first; None where this run has none."""
    rows = table
    for key, value in number.at.items():
        rows = rows[rows[key] == value]
    return None if rows.empty else base_config_id(rows)


def median_with_range(steps: pd.DataFrame, config_id: str, variant: str, mode: str) -> tuple[float, float, float]:
    """A variant's median time in one mode (ms) with its samples' range: `ours` for a number the write-up
    gives as a single time."""
    row = steps[(steps.config_id == config_id) & (steps.variant == variant) & (steps["mode"] == mode)].iloc[0]
    return row.median_ms, row.min_ms, row.max_ms


def magnitude(number: Number, ours: tuple[float, float, float] | None) -> tuple[str, str]:
    """(the two numbers side by side, the magnitude verdict) for one number; `ours` is (estimate, 95% low, high)
    in the number's unit at the write-up's structure (at_write_up_structure), None where this run did not
    measure it there."""
    theirs = _number(number.low, number.high, number.unit)
    if ours is None:
        where = ", ".join(f"{k} {v}" for k, v in number.at.items())
        return f"{theirs} vs not measured", f"not measured at the write-up's structure ({where})" if where else (
            "not measured")
    value, low, high = ours
    spread = "" if low == high == value else f" [{low:.3g}, {high:.3g}]"
    side_by_side = f"{theirs} vs {value:.3g}{number.unit}{spread}"
    if value <= 0:
        return side_by_side, "opposite sign" if number.structural else "hardware-bound"
    factor = value / number.high if value > number.high else value / number.low if value < number.low else 1.0
    size = "same size" if factor == 1.0 else (f"{factor:.2g}x larger" if factor > 1 else f"{1 / factor:.2g}x smaller")
    if not number.structural:
        return side_by_side, f"hardware-bound ({size})"
    reaches = high >= number.low / FACTOR and low <= number.high * FACTOR
    return side_by_side, "same size" if reaches else f"**{size}**"
