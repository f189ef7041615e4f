"""Sample summaries and paired ratios with bootstrap intervals: variants are timed interleaved, so ratios are
formed pair by pair and the rounds resampled."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0

# A compiling sample's time by stage, each kept per call under its key: XLA's compile, JAX's tracing, lowering
COMPILING_STAGES = ("compile", "tracing", "lowering")
STAGE_SECONDS = {stage: f"{stage}_seconds" for stage in COMPILING_STAGES}


def summarize(samples: Sequence[float]) -> dict[str, float]:
    x = np.asarray(samples, dtype=float)
    if x.size == 0:
        raise ValueError("no samples to summarize")
    q1, median, q3 = np.percentile(x, [25, 50, 75])
    return {
        "n": int(x.size),
        "median": float(median),
        "mean": float(x.mean()),
        "std": float(x.std(ddof=1)) if x.size > 1 else 0.0,
        "iqr": float(q3 - q1),
        "min": float(x.min()),
        "max": float(x.max()),
    }


def bootstrap_medians(values: Sequence[float], seed: int = BOOTSTRAP_SEED) -> np.ndarray:
    """Each bootstrap resample's median (fixed seed: same samples, same result)."""
    return _bootstrap(values, np.median, seed)


def relative_iqr(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """IQR over median: predictability, robust to an outlier and independent of speed."""
    q1, median, q3 = np.percentile(x, [25, 50, 75], axis=axis)
    return (q3 - q1) / median


def relative_iqr_ci(values: Sequence[float], level: float = 0.95) -> tuple[float, float, float]:
    """One process's relative IQR with a bootstrap interval: drift between processes is not the variant's."""
    x = np.asarray(values, dtype=float)
    return float(relative_iqr(x)), *percentile_interval(_bootstrap(x, relative_iqr, BOOTSTRAP_SEED), level)


def _bootstrap(values: Sequence[float], statistic, seed: int) -> np.ndarray:
    """Each resample's `statistic(..., axis=1)`, all drawn at once (a loop is far slower)."""
    x = np.asarray(values, dtype=float)
    rng = np.random.default_rng(seed)
    return statistic(x[rng.integers(0, x.size, (BOOTSTRAP_RESAMPLES, x.size))], axis=1)


def percentile_interval(distribution: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(distribution, [tail, 100 - tail])
    return float(low), float(high)


FEW_TO_RESAMPLE = 5  # fewer values: a bootstrap interval of their median is their range (75% coverage at 3)
T_975 = {1: 12.706, 2: 4.303, 3: 3.182}  # Student's t quantiles by degrees of freedom (scipy: not in a worker)


def bootstrap_median_ci(values: Sequence[float], times: bool = False) -> tuple[float, float]:
    """The median's 95% interval: percentile bootstrap; under FEW_TO_RESAMPLE values Student's t widened to hold it,
    on the log scale for `times` (positive: an interval of times never reaches below 0)."""
    x = np.asarray(values, dtype=float)
    if x.size >= FEW_TO_RESAMPLE:
        return percentile_interval(bootstrap_medians(x))
    if x.size < 2:
        return math.nan, math.nan
    logged = times and bool((x > 0).all())
    y = np.log(x) if logged else x
    half = _t_half(y)
    low, high = (math.exp(v) if logged else v for v in (y.mean() - half, y.mean() + half))
    median = float(np.median(x))
    return min(low, median), max(high, median)


def _t_half(x: np.ndarray) -> float:
    """Half of a 95% Student's t interval of the mean of 2 to 4 values (T_975)."""
    return T_975[x.size - 1] * float(x.std(ddof=1)) / math.sqrt(x.size)


# A comparison side named `a - b`: variant a's samples minus b's, sample by sample (both timed in the same
# rounds), so that two overheads (e.g. filter_jit - jit_partition at two dropout settings) are compared round by
# round and the machine's drift between rounds cancels from their difference.
DIFFERENCE = " - "


def difference_side(a: str, b: str) -> str:
    return f"{a}{DIFFERENCE}{b}"


def side_parts(name: str) -> list[str]:
    """A comparison side's variants: itself, or a difference's two."""
    return name.split(DIFFERENCE)


def side_samples(samples: Mapping[str, Sequence[float]], name: str) -> np.ndarray:
    """One process's samples of a comparison side (a variant or a difference)."""
    first, *rest = side_parts(name)
    return np.asarray(samples[first], dtype=float) - sum(np.asarray(samples[r], dtype=float) for r in rest)


def is_difference(variant: str, baseline: str) -> bool:
    """Whether a comparison's sides are differences: overheads, nothing to gate on."""
    return DIFFERENCE in variant + baseline


TWIN = "~twin"


def twin_side(floor: str) -> str:
    """The name of `floor`'s A/A twin, timed in the same rounds so every job measures false alarms."""
    return f"{floor}{TWIN}"


def is_twin(name: str) -> bool:  # a floor's A/A twin (twin_side)
    return name.endswith(TWIN)


def paired_comparison(variant: Sequence[float], baseline: Sequence[float],
                      of_medians: bool = False) -> dict[str, float | None]:
    """Median ratio variant/baseline of paired samples (log scale: a reversed pair gives its inverse), its 95%
    interval over rounds (bootstrap_median_ci), and difference. `of_medians` (difference sides): the ratio of
    medians, None where a resample's baseline median is not positive (the difference then the rounds' median)."""
    a, b = np.asarray(variant, dtype=float), np.asarray(baseline, dtype=float)
    if a.shape != b.shape:
        raise ValueError(f"paired samples differ in length: {a.size} vs {b.size}")
    keys = ("ratio", "ratio_ci_low", "ratio_ci_high")
    if not of_medians:
        logs = np.log(a / b)
        found = np.exp([np.median(logs), *bootstrap_median_ci(logs)])
        differences = difference_at(found, float(np.median(a)), float(np.median(b)))
        return dict(zip((*keys, "diff", "diff_ci_low", "diff_ci_high"), map(float, (*found, *differences)),
                        strict=True))
    base = float(np.median(b))
    if 2 <= a.size < FEW_TO_RESAMPLE and (b > 0).all():  # Fieller's pivot a - r b, its t interval as ratios
        ratio = float(np.median(a)) / base
        half = _t_half(a - ratio * b) / base
        found = (ratio, ratio - half, ratio + half)
    else:
        tops, bottoms = bootstrap_medians(a), bootstrap_medians(b)  # one seed: the same draws
        if not (bottoms > 0).all():
            return dict.fromkeys(keys) | dict(zip(("diff", "diff_ci_low", "diff_ci_high"),
                                                  (float(np.median(a - b)), *bootstrap_median_ci(a - b)), strict=True))
        found = (float(np.median(a)) / base, *percentile_interval(tops / bottoms))
    return dict(zip(keys, found, strict=True)) | dict(zip(("diff", "diff_ci_low", "diff_ci_high"),
                                                          ((r - 1) * base for r in found), strict=True))


def difference_at(ratio, variant_size: float, baseline_size: float) -> np.ndarray:
    """The difference (s) a ratio stands for at its sides' medians: their geometric mean times
    sqrt(r) - 1/sqrt(r), so ratio and difference agree and a reversed pair negates it."""
    root = np.sqrt(np.asarray(ratio, dtype=float))
    with np.errstate(divide="ignore"):  # a ratio of 0 (an interval's end) stands for a difference of -inf
        return math.sqrt(variant_size * baseline_size) * (root - 1 / root)


def relative_half_width(comparison) -> float:
    """Half a ratio's 95% interval relative to the ratio: the precision reached."""
    return (comparison["ratio_ci_high"] - comparison["ratio_ci_low"]) / 2 / comparison["ratio"]


def enough_within(half_widths: Sequence[float], target: float, share: float) -> bool:
    """Whether `share` of the rows' half-widths are within `target` (every one at 1): one noisy row need not
    hold a job's processes at their most."""
    return sum(float(w) <= target for w in half_widths) >= rows_needed(share, len(half_widths))


def rows_needed(share: float, rows: int) -> int:
    """The rows of `rows` that `share` asks for, rounded up."""
    return math.ceil(share * rows - 1e-9)


Z_95 = 1.959963984540054  # two-sided 95% quantile of the standard normal


def log_standard_error(low, high) -> np.ndarray:
    """Log-scale standard error of estimates from their 95% intervals."""
    return (np.log(np.asarray(high, dtype=float)) - np.log(np.asarray(low, dtype=float))) / (2 * Z_95)


def power_law_exponent(x: Sequence[float], y: Sequence[float], low: Sequence[float],
                       high: Sequence[float]) -> dict[str, float]:
    """b of y ~ a * x^b with a 95% interval: weighted least squares on log-log, widened by the Birge ratio
    (`scatter`, at least 1) where points scatter beyond their own intervals."""
    lx, ly = np.log(np.asarray(x, dtype=float)), np.log(np.asarray(y, dtype=float))
    if lx.size < 2 or np.ptp(lx) == 0:
        raise ValueError("a scaling exponent needs at least two distinct sizes")
    se = log_standard_error(low, high)
    w = 1 / np.maximum(se, 1e-6) ** 2
    mx, my = np.sum(w * lx) / w.sum(), np.sum(w * ly) / w.sum()
    sxx = np.sum(w * (lx - mx) ** 2)
    slope = float(np.sum(w * (lx - mx) * (ly - my)) / sxx)
    residual = ly - my - slope * (lx - mx)
    birge = np.sqrt(np.sum(w * residual ** 2) / (lx.size - 2)) if lx.size > 2 else 1.0
    scatter = max(1.0, float(birge))
    half = Z_95 * scatter / np.sqrt(sxx)
    return {"exponent": slope, "exponent_ci_low": float(slope - half), "exponent_ci_high": float(slope + half),
            "points": int(lx.size), "scatter": scatter}


def difference_of_estimates(a: float, a_interval: tuple[float, float], b: float,
                            b_interval: tuple[float, float]) -> tuple[float, float, float]:
    """a - b with a 95% interval for independent estimates, their half-widths added in quadrature."""
    se = np.hypot(*((high - low) / (2 * Z_95) for low, high in (a_interval, b_interval)))
    diff = a - b
    return float(diff), float(diff - Z_95 * se), float(diff + Z_95 * se)


def widened_by_repeats(estimate: tuple[float, float, float], repeats: Sequence[float]) -> tuple[float, float, float]:
    """An interval widened by the t half-width of repeats that include noise it omits (profiler captures);
    one repeat: infinite."""
    from scipy.stats import t

    k, (value, low, high) = len(repeats), estimate
    spread = t.ppf(0.975, k - 1) * np.std(repeats, ddof=1) / np.sqrt(k) if k > 1 else np.inf
    return float(value), float(value - np.hypot(value - low, spread)), float(value + np.hypot(high - value, spread))


def ratio_of_estimates(a: float, a_interval: tuple[float, float], b: float,
                       b_interval: tuple[float, float]) -> tuple[float, float, float]:
    """a / b with a 95% interval for independent positive estimates: the log scale's difference."""
    logs = difference_of_estimates(np.log(a), tuple(np.log(a_interval)), np.log(b), tuple(np.log(b_interval)))
    return tuple(float(np.exp(x)) for x in logs)


def marginal_cost_ratio(x: Sequence[float], y: Sequence[float], low: Sequence[float],
                        high: Sequence[float]) -> tuple[float, float, float]:
    """How the cost of one more unit of x changes: y's slope from middle to largest x over that from
    smallest to middle, with a 95% interval (delta method). 1 for affine y; NaN where a slope is not positive."""
    order = np.argsort(np.asarray(x, dtype=float))
    if len(order) < 3:
        return float("nan"), float("nan"), float("nan")
    pick = [order[0], order[len(order) // 2], order[-1]]
    (x0, x1, x2), (y0, y1, y2) = (np.asarray(v, dtype=float)[pick] for v in (x, y))
    se0, se1, se2 = ((np.asarray(high, dtype=float) - np.asarray(low, dtype=float))[pick] / (2 * Z_95))
    upper, lower = y2 - y1, y1 - y0
    if upper <= 0 or lower <= 0 or x0 == x1 or x1 == x2:
        return float("nan"), float("nan"), float("nan")
    ratio = (upper / (x2 - x1)) / (lower / (x1 - x0))
    se = np.sqrt((se2 / upper) ** 2 + (se0 / lower) ** 2 + (se1 * (1 / upper + 1 / lower)) ** 2)  # of log(ratio)
    return float(ratio), float(ratio * np.exp(-Z_95 * se)), float(ratio * np.exp(Z_95 * se))


def geometric_mean_ratio(ratios: Sequence[float], lows: Sequence[float],
                         highs: Sequence[float]) -> tuple[float, float, float]:
    """Geometric mean of independent ratios (one per size), 95% interval on the log scale; one is returned as
    measured."""
    if len(ratios) == 1:
        ratio, low, high = (float(np.asarray(v, dtype=float)[0]) for v in (ratios, lows, highs))
        return ratio, low, high
    logs = np.log(np.asarray(ratios, dtype=float))
    se = log_standard_error(lows, highs)
    mean, mean_se = logs.mean(), np.sqrt(np.sum(se ** 2)) / logs.size
    return float(np.exp(mean)), float(np.exp(mean - Z_95 * mean_se)), float(np.exp(mean + Z_95 * mean_se))


def welch_df(se_a: float, df_a: float, se_b: float, df_b: float) -> float:
    """The degrees of freedom of a difference of two estimates with standard errors `se_a`, `se_b` on their own
    degrees of freedom (Welch-Satterthwaite)."""
    return satterthwaite(np.array([se_a ** 2, se_b ** 2]), np.array([df_a, df_b], dtype=float))


def satterthwaite(variances: np.ndarray, dfs: np.ndarray) -> float:
    """The df of a sum of variance estimates, each on its own df."""
    spread = float(np.sum(variances ** 2 / dfs))
    return float(np.sum(variances)) ** 2 / spread if spread > 0 else np.inf


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score 95% interval of k / n (sound near 0 and 1)."""
    if n == 0:
        return 0.0, 1.0
    p, z2 = k / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)
