"""pyperf beside the lockstep on one callable, over A/A pairs: pyperf's are read by its own test and by ours; a pair
is called changed where its interval excludes 1.
"""

from __future__ import annotations

import math
from statistics import mean
from typing import Any

import pandas as pd

from ...contract.decisions import row
from ...harness.moderated import two_sample
from ..comparison.process_t import log_medians

TARGET = 0.05  # the detectable change each harness is costed at
OVER_PROCESSES = "pyperf's values, over its processes (as separate runs are judged)"


def time_to_target(half_width: float, seconds: float) -> float:
    """The machine time to narrow a relative half-width to TARGET: `seconds` x (half-width / target)^2, a rough cost
    alike for both harnesses."""
    return seconds * (half_width / TARGET) ** 2


def _row(harness: str, samples: str, spent: dict[str, float], ratio: float, low: float, high: float,
         found: bool, pair: str, config_id: str) -> dict[str, Any]:
    """One harness's A/A pair with its machine time (`spent`: `wall_s`, and where known `timed_s` and `prepare_s`)."""
    half = (high - low) / 2 / ratio
    wall, prepare = spent["wall_s"], spent.get("prepare_s")
    return {"harness": harness, "pair": pair, "config_id": config_id, "samples": samples, "machine_s": wall,
            "timing_s": spent.get("timed_s"),
            "prepare_s": prepare, "ratio": ratio, "ratio_ci_low": low, "ratio_ci_high": high, "half_width": half,
            "machine_s_to_5pct": time_to_target(half, wall),
            "unprepared_s_to_5pct": time_to_target(half, wall - prepare) if prepare is not None else None,
            "change_found": found}


def pyperf_rows(doc: dict[str, Any], pair: str = "1") -> list[dict[str, Any]]:
    """pyperf's A/A pair (number `pair`) read twice: by its own t-test, and by the hierarchical interval."""
    from pyperf._utils import is_significant, pooled_sample_variance, tdist95conf_level

    a, a2 = doc["runs"]["a"], doc["runs"]["a2"]
    flat_a, flat_a2 = ([v for g in run["values_s"] for v in g] for run in (a, a2))
    if len(flat_a) != len(flat_a2):
        raise ValueError(f"pyperf's runs have {len(flat_a)} and {len(flat_a2)} values: its t-test needs as many")
    spent = {key: a[key] + a2[key] for key in ("wall_s", "timed_s", "prepare_s")}
    samples = f"{len(a['values_s'])} processes x {len(a['values_s'][0])} values, a side"
    n = len(flat_a)
    half = tdist95conf_level(2 * n - 2) * math.sqrt(pooled_sample_variance(flat_a, flat_a2) / n * 2)
    ratio = mean(flat_a2) / mean(flat_a)
    own = _row("pyperf, its own t-test (compare_to)", samples, spent, ratio, ratio - half / mean(flat_a),
               ratio + half / mean(flat_a), bool(is_significant(flat_a, flat_a2)[0]), pair, doc["config_id"])
    (found,) = two_sample(*([log_medians(run["values_s"])] for run in (a2, a)))
    ratio, low, high = found.as_ratio()
    ours = _row(OVER_PROCESSES, samples, spent, ratio, low, high, not low <= 1 <= high, pair, doc["config_id"])
    return [own, ours]


def lockstep_row(table: pd.DataFrame, job: dict[str, Any], mode: str, variant: str) -> dict[str, Any]:
    """The calibration's A/A row of the job's configuration, variant and mode, with its share of the job's machine
    time."""
    ours = table[table.config_id == job["config_id"]]
    same = ours[ours.injected.round(6) == 1].side.unique()
    if not len(same):
        raise ValueError(f"{job['config_id']}: no A/A side (one without an injected slowdown besides the first)")
    r = row(ours, mode=mode, variant=variant, side=same[0])
    seconds = job["job_seconds"] * 2 / len(job["sides"]) / len(ours[ours.side == same[0]])
    return _row(f"lockstep (this calibration's {same[0]} vs {r.against})", f"{int(r.processes)} processes x "
                f"{int(r.rounds)} rounds, a side", {"wall_s": seconds}, r.ratio, r.ratio_ci_low, r.ratio_ci_high,
                not r.ratio_ci_low <= 1 <= r.ratio_ci_high, job["config_id"], job["config_id"])


def beside(table: pd.DataFrame, jobs: list[dict[str, Any]], pairs: list[dict[str, Any]]) -> pd.DataFrame:
    """Every A/A pair on pyperf's callable: the lockstep's (one per configuration) and pyperf's, read by its test and
    by ours."""
    first = pairs[0]
    if not any(j["config_id"] == first["config_id"] for j in jobs):
        raise ValueError(f"pyperf timed {first['config_id']}, which no lockstep job of the calibration timed")
    lockstep = [lockstep_row(table, job, first["mode"], first["variant"]) for job in jobs]
    return pd.DataFrame([*lockstep, *(r for n, doc in enumerate(pairs, 1) for r in pyperf_rows(doc, str(n)))])
