"""Numbers as the report and the jobs write them for people: fixed-point, never in e-notation (a reader of
`9.37e-05` or `1.55e+03` has to stop and decode it), with as many digits as say something."""

from __future__ import annotations

import math


def fixed(x: float, decimals: int = 3) -> str:
    """`x` with `decimals` places (`2.027`, `515.312`), or, below a hundredth, 3 significant digits written out
    (`0.0000937`), so a small number never reads as 0.000."""
    if x == 0 or not math.isfinite(x) or abs(x) >= 0.01:
        return f"{x:.{decimals}f}"
    return f"{x:.{2 - math.floor(math.log10(abs(x)))}f}"


def short(x: float) -> str:
    """`x` to 3 significant digits in fixed point, trailing zeros dropped, for a number beside another or a
    setting (`23.9`, `2.03`, `1550`, `0.00001`): what `:.3g` gives, without its e-notation."""
    if x == 0 or not math.isfinite(x):
        return f"{x:g}"
    if abs(x) >= 100:
        return f"{x:.0f}"
    text = f"{x:.{2 - math.floor(math.log10(abs(x)))}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
