"""pyperf beside the lockstep on one callable, over A/A pairs: pyperf's are read by its own test and by ours; a pair
is called changed where its interval excludes 1. Each harness's false alarms, and the machine time a +-5% interval
costs it: a geometric mean over pairs, as one pair would extrapolate one interval's width; narrowing adds fresh
processes, so all machine time scales (`unprepared_s_to_5pct`, a lower bound, skips preparation).
"""

from __future__ import annotations

import math
from statistics import mean
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as scipy_stats

from ...contract.decisions import row
from ...harness.moderated import two_sample
from ...harness.stats import welch_df, wilson
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


COLUMNS = ["harness", "pairs", "found", "false_alarms", "median_half_width", "machine_s_to_5pct", "low", "high",
           "against_lockstep", "against_low", "against_high"]


def _log_mean(values: np.ndarray) -> tuple[float, float, int]:
    """Mean, standard error and df of log `values`."""
    logs = np.log(values)
    return float(logs.mean()), float(logs.std(ddof=1) / np.sqrt(logs.size)) if logs.size > 1 else np.inf, logs.size - 1


def _geometric(values: np.ndarray) -> tuple[float, float, float]:
    """The geometric mean of `values` with a 95% t interval (nan bounds from one value)."""
    mean, se, df = _log_mean(values)
    if df < 1:
        return float(np.exp(mean)), np.nan, np.nan
    t = float(scipy_stats.t.ppf(0.975, df))
    return float(np.exp(mean)), float(np.exp(mean - t * se)), float(np.exp(mean + t * se))


def ratio_of_geometric_means(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """a's geometric mean over b's with Welch's 95% interval on the logs; nan bounds where either has one value."""
    (ma, sa, da), (mb, sb, db) = _log_mean(a), _log_mean(b)
    if min(da, db) < 1:
        return float(np.exp(ma - mb)), np.nan, np.nan
    se = np.hypot(sa, sb)
    t = float(scipy_stats.t.ppf(0.975, welch_df(sa, da, sb, db)))
    return float(np.exp(ma - mb)), float(np.exp(ma - mb - t * se)), float(np.exp(ma - mb + t * se))


def cost_summary(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per harness: pairs, false alarms with a Wilson interval, median half-width, cost to +-5% against the
    lockstep's."""
    lockstep = pairs[pairs.harness.str.startswith("lockstep")].machine_s_to_5pct.to_numpy(dtype=float)
    rows = []
    for harness, own in pairs.groupby("harness", sort=False):
        cost = own.machine_s_to_5pct.to_numpy(dtype=float)
        k, n = int(own.change_found.astype(bool).sum()), len(own)
        low, high = wilson(k, n)
        rows.append({"harness": harness, "pairs": n, "found": k,
                     "false_alarms": f"{k} of {n} ({k / n:.0%} [{low:.0%}, {high:.0%}])",
                     "median_half_width": float(own.half_width.median()),
                     **dict(zip(("machine_s_to_5pct", "low", "high"), _geometric(cost), strict=True)),
                     **dict(zip(("against_lockstep", "against_low", "against_high"),
                                ratio_of_geometric_means(cost, lockstep), strict=True))})
    return pd.DataFrame(rows, columns=COLUMNS)


def same_configuration(pairs: pd.DataFrame) -> tuple[str, float, float, float] | None:
    """The like-for-like cost on pyperf's configuration: the lockstep's one A/A pair's, and pyperf's geometric mean
    with and without its workers' preparation."""
    own = pairs[pairs.harness.str.contains("compare_to")]
    if own.empty:
        return None
    config = own.config_id.iloc[0]
    there = pairs[pairs.harness.str.startswith("lockstep") & (pairs.config_id == config)]
    if there.empty:
        return None
    return (config, float(there.machine_s_to_5pct.iloc[0]),
            *(_geometric(own[column].to_numpy(dtype=float))[0]
              for column in ("machine_s_to_5pct", "unprepared_s_to_5pct")))


def pyperf_section(pairs: pd.DataFrame, pyperf: dict, costs: pd.DataFrame,
                   like: tuple[str, float, float, float] | None) -> list[str]:
    """The page's section on pyperf beside the lockstep; `pyperf`: its callable and options."""
    options = f", but with `{' '.join(pyperf['options'])}`" if pyperf["options"] else ""
    runs = pairs[~pairs.harness.str.startswith("lockstep")].pair.nunique()
    return [
        "## Beside pyperf, on the same callable", "",
        f"pyperf at its defaults (20 processes x 3 values after a warmup, loops calibrated to 100 ms a value){options} "
        f"on one lockstep callable ({pyperf['callable']} at the base), run twice one after the other as `pyperf "
        f"compare_to` compares two runs: an A/A pair, {runs} such pair(s) one after another. The lockstep's A/A "
        "pairs: that callable's row (a2 against a) in each configuration the calibration timed, so its costs "
        "spread with the configurations' sizes as well as from pair to pair. A pair called changed (its interval "
        "excludes 1; pyperf's own test: significant) is a false alarm. `machine_s_to_5pct`: the machine time to "
        "an interval of +-5%, geometric mean over the pairs with a 95% interval; `against_lockstep`: that cost "
        f"over the lockstep's, with Welch's 95% interval on the logs.{_apart(pyperf.get('apart_s'))}", "",
        costs.drop(columns="found").to_markdown(index=False, floatfmt=".3f"), "",
        *_same_configuration_line(pairs, like),
        "Each pair: `machine_s` is the machine time the pair took, process starts and each worker's preparation "
        "included (pyperf's `timing_s`: what its runs recorded timing; `prepare_s`: what its workers spent "
        "preparing the configuration as a lockstep worker does, the floor built beside the variant to check its "
        "outputs, more than a hand-written pyperf script would); for the lockstep, its job's time for one pair of "
        "sides and one row. "
        "`machine_s_to_5pct`: `machine_s` x (half-width / 5%)^2, the samples an interval of +-5% would need, all "
        "of it scaled (each added process starts and prepares anew); `unprepared_s_to_5pct`: the same without the "
        "preparation, pyperf's lower bound.", "",
        pairs.to_markdown(index=False, floatfmt=".3f"), "",
    ]


def _apart(seconds: float | None) -> str:
    """Where the pairs were timed apart from this run's lockstep jobs (compare.pyperf.published), said so."""
    if seconds is None:
        return ""
    return (f" These pairs were timed apart from this run's lockstep jobs (`make calibrate-pyperf`, on the same "
            f"callable and configuration), in {seconds:.0f} s ({seconds / 60:.1f} min) of machine time that this "
            "run's summary does not count.")


def _same_configuration_line(pairs: pd.DataFrame, like: tuple[str, float, float, float] | None) -> list[str]:
    if like is None:
        return []
    config, lockstep, pyperf, _ = like
    spread = pairs[pairs.harness.str.startswith("lockstep")].machine_s_to_5pct
    return [f"At the configuration pyperf timed ({config}), the lockstep's one A/A pair cost {lockstep:.1f} s to +-5% "
            f"and pyperf's own test {pyperf:.1f} s (geometric mean over its pairs): {pyperf / lockstep:.1f}x, on one "
            "lockstep pair (no interval); across the calibration's configurations the lockstep's cost ranged "
            f"{spread.min():.1f}-{spread.max():.1f} s.", ""]
