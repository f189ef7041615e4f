"""The machine's speed in a comparison of two separate runs: each sample in units of the yardstick timed in its own
round, so that runs on the same kind of machine compare their code, not the machine's moments.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...harness import moderated
from ...harness.yardstick import current_yardstick
from .process_t import log_medians

# What makes two runs the same kind of machine: a yardstick measures the host's CPU, so it stands for the
# machine's speed only where the rest of the hardware is the same (the CPU's model and how many cores JAX's
# thread pool and the OS have, the backend and its devices). A result without one of them is another machine.
MACHINE_KEYS = ("backend", "device_kind", "device_count", "cpu_model", "cpu_count")


def same_machine(baseline: dict[str, Any], current: dict[str, Any]) -> bool:
    return all(baseline.get(k) == current.get(k) for k in MACHINE_KEYS)



def yardsticks(doc: dict[str, Any], mode: str, groups: list[list[float]]) -> list[np.ndarray] | None:
    """Each sample's round's yardstick, split per process as the samples are; None where missing or misaligned."""
    speeds = current_yardstick(doc.get("machine", {}).get(mode, {}))
    if not speeds or len(speeds) != sum(len(g) for g in groups):
        return None
    bounds = np.cumsum([0] + [len(g) for g in groups])
    return [np.asarray(speeds[a:b], dtype=float) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def in_machine_units(doc: dict[str, Any], mode: str, groups: list[list[float]]) -> list[np.ndarray] | None:
    """Each sample divided by its round's yardstick, per process; None without yardsticks."""
    sticks = yardsticks(doc, mode, groups)
    if sticks is None:
        return None
    return [np.asarray(g, dtype=float) / s for g, s in zip(groups, sticks, strict=True)]


def speed_change(baseline: dict[str, Any], current: dict[str, Any], mode: str, baseline_groups: list[list[float]],
                 current_groups: list[list[float]]) -> dict[str, float] | None:
    """The yardstick's time current / baseline over one mode's rounds and fresh processes, with its 95% interval
    (above 1: slower); None without yardsticks."""
    before = yardsticks(baseline, mode, baseline_groups)
    after = yardsticks(current, mode, current_groups)
    if before is None or after is None:
        return None
    (found,) = moderated.two_sample([log_medians(after)], [log_medians(before)])
    ratio, low, high = found.as_ratio()
    return {"baseline_yardstick_ms": float(np.median(np.concatenate(before))) * 1e3,
            "current_yardstick_ms": float(np.median(np.concatenate(after))) * 1e3,
            "machine_ratio": ratio, "machine_ratio_ci_low": low, "machine_ratio_ci_high": high}


def judged_as(same: bool, baseline_units: list | None, current_units: list | None, asked: bool = False) -> str:
    """What a row is judged on: yardstick units only where asked, as the division can widen the detectable change."""
    if not asked:
        return "raw samples (the machine's speed reported beside, not divided: compare.machine_units)"
    if not same:
        return "raw samples (another machine: the machine is part of what is compared)"
    if baseline_units is None or current_units is None:
        return "raw samples (no yardstick on both sides: the machine's drift is in the verdict)"
    return "yardstick units"


def section(table) -> list[str]:
    """The machine's speed between the runs: what raw medians would mistake for the code."""
    if not len(table) or "machine_ratio" not in table or table.machine_ratio.isna().all():
        return ["_(no yardstick on both sides: the machine's speed between the runs is unknown, and every "
                "verdict below is on raw samples)_", ""]
    per_mode = table.dropna(subset=["machine_ratio"]).drop_duplicates(["study", "config_id", "mode"])
    ratios = per_mode.machine_ratio
    drifted = per_mode[(per_mode.machine_ratio_ci_low > 1.05) | (per_mode.machine_ratio_ci_high < 0.95)]
    divided = "judged_on" in table and table.judged_on.eq("yardstick units").any()
    low, high = f"{ratios.min():.2f}", f"{ratios.max():.2f}"
    return [
        f"The yardstick (a fixed numpy and Python workload timed in every round) took "
        f"{low if low == high else f'{low}-{high}'}x as long in this run as in the baseline's across {len(per_mode)} "
        "timed modes "
        f"(median {ratios.median():.2f}x); {len(drifted)} of them moved beyond 5% with their interval: the machine's "
        + ("speed, which the verdicts below divide out where `judged_on` says yardstick units (`raw_ratio` is the "
           "ratio before)." if divided else "speed, reported beside each row and not divided out: every verdict below "
           "is on raw samples (`compare.machine_units: true` divides it out on the same kind of machine)."), "",
    ]
