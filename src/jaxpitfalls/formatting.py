"""Numbers as people read them in the report and the jobs: fixed-point, never e-notation (which a reader
must stop and decode), with as many digits as say something."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


def fixed(x: float, decimals: int = 3) -> str:
    """`x` with `decimals` places, or below a hundredth 3 significant digits written out (`0.0000937`),
    so a small number never reads as 0.000."""
    if x == 0 or not math.isfinite(x) or abs(x) >= 0.01:
        return f"{x:.{decimals}f}"
    return f"{x:.{2 - math.floor(math.log10(abs(x)))}f}"


def fixed_at_most_four(x: float, decimals: int = 3) -> str:
    """`fixed`, in four significant digits at most from 100 up (`924.9`, `1177`): no false precision."""
    rounded = abs(round(x, decimals)) if math.isfinite(x) else 0.0  # 99.9996 prints as 100, four digits
    digits = math.floor(math.log10(rounded)) if rounded >= 100 else 0
    return fixed(x, min(decimals, max(0, 3 - digits)) if digits else decimals)


def short(x: float) -> str:
    """`x` to 3 significant digits in fixed point, trailing zeros dropped (`23.9`, `1550`, `0.00001`):
    `:.3g` without its e-notation."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    if abs(x) >= 100:
        return f"{x:.0f}"
    text = f"{x:.{2 - math.floor(math.log10(abs(x)))}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def bytes_unit(largest: float) -> tuple[str, int]:
    """The binary unit a size of `largest` bytes reads in (`MiB`, 2**20) and its size."""
    return next(((u, s) for u, s in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)) if largest >= s), ("bytes", 1))


def duration_interval(ms: float, low: float, high: float) -> str:
    """A time in ms and its interval in the unit they read in: ms from 10 µs, else µs or ns (`66.2 ns [-53.4, 186]`)."""
    top = max(abs(ms), abs(low), abs(high))
    if not math.isfinite(top) or top >= 0.01:
        return f"{fixed_at_most_four(ms)} ms [{fixed_at_most_four(low)}, {fixed_at_most_four(high)}]"
    scale, unit = (1e3, "µs") if top >= 1e-3 else (1e6, "ns")
    return f"{short(ms * scale)} {unit} [{short(low * scale)}, {short(high * scale)}]"


def readable_times(ms: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """A table of times in ms, in µs where every one is under a millisecond (`11.234`, not `0.011`), and its unit."""
    return (ms * 1e3, "µs") if float(ms.max().max()) < 1 else (ms, "ms")


E_NOTATION = re.compile(r"\d+(?:\.\d+)?e[-+]?\d+")


def plain_numbers(text: str) -> str:
    """A recorded text's e-notation written plainly (`rtol=1e-05` -> `rtol=0.00001`)."""
    return E_NOTATION.sub(lambda m: short(float(m[0])), text)
