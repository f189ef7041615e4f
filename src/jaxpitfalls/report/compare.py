"""Compare this run's results with a baseline run's: did a library upgrade, a code change or a new machine
make an idiom cheaper or dearer?

Every (study, configuration, variant, mode) present on both sides is compared on its raw samples: ratio of
medians (current / baseline) with a bootstrap 95% interval (the sides are independent runs, so each is
resampled on its own), a two-sided Mann-Whitney U test, and a verdict at a threshold. What differs in the
environments is named per row; configurations on one side only are listed, never dropped.

The paired ratios each run measured (a variant against its baseline variant, e.g. against the floor) are
set side by side too: whether two runs agree on them within the threshold is how reproducible a study's
conclusions are, whatever the machine's speed did between the runs. A shared machine's speed drifts between
runs, which the medians' verdicts see and the paired ratios (timed interleaved within each run) do not: the
gate can judge either (`GATES`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import results
from ..harness.stats import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from . import bundle
from .aggregate import COMPARABLE

Key = tuple[str, str]


class Regressions(RuntimeError):
    """The current run is slower than the baseline beyond the threshold, significantly."""


def load_runs(root: str | Path) -> dict[Key, dict[str, Any]]:
    """Every result JSON of a run: a results bundle (.tar.gz, checked against its manifest first), or a
    directory (a workflow directory, its results/, or results/runs/); each result validated."""
    root = Path(root)
    if root.is_file():
        with tempfile.TemporaryDirectory() as tmp:
            bundle.extract(root, tmp)
            return load_runs(tmp)
    paths = sorted(root.glob("**/runs/*/*.json")) or sorted(root.glob("*/*.json"))
    if not paths:
        raise FileNotFoundError(f"{root}: no result JSONs (runs/<study>/<configuration>.json) found")
    docs = {}
    for path in paths:
        doc = results.read_result(path)
        docs[(doc["study"], doc["config_id"])] = doc
    return docs


def ratio_interval(current: np.ndarray, baseline: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Bootstrap interval of median(current) / median(baseline), each side resampled independently."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    c = np.median(current[rng.integers(0, current.size, (BOOTSTRAP_RESAMPLES, current.size))], axis=1)
    b = np.median(baseline[rng.integers(0, baseline.size, (BOOTSTRAP_RESAMPLES, baseline.size))], axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(c / b, [tail, 100 - tail])
    return float(low), float(high)


def verdict(ratio: float, significant: bool, threshold: float) -> str:
    """regressed / improved when the change passes the threshold and is significant; unchanged otherwise."""
    if significant and ratio > 1 + threshold:
        return "regressed"
    if significant and ratio < 1 - threshold:
        return "improved"
    return "unchanged"


def environment_changes(baseline: dict[str, Any], current: dict[str, Any]) -> str:
    """What differs between two results' environments, e.g. `equinox 0.11.7 -> 0.13.8; code c711829+dirty ->
    f09a14f`: library versions, machine, flags, and the workflow's own commit."""
    changes = []
    for key in COMPARABLE:
        before, after = baseline.get(key), current.get(key)
        if key == "packages":
            changes += [f"{name} {before.get(name)} -> {after.get(name)}" for name in sorted(set(before) | set(after))
                        if before.get(name) != after.get(name)]
        elif before != after:
            changes.append(f"{key} {before} -> {after}")
    code_before, code_after = _code_version(baseline), _code_version(current)
    if code_before != code_after:
        changes.append(f"code {code_before} -> {code_after}")
    return "; ".join(changes)


def _code_version(environment: dict[str, Any]) -> str:
    """The workflow's own code a result was measured with: short commit, `+dirty` for uncommitted edits."""
    git = environment.get("git") or {}
    if not git.get("commit"):
        return "unknown"
    return git["commit"][:7] + ("+dirty" if git.get("dirty") else "")


def compare(baseline: dict[Key, dict], current: dict[Key, dict], threshold: float = 0.05,
            alpha: float = 0.01) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows per (study, configuration, variant, mode) on both sides, and the configurations on one side."""
    from scipy.stats import mannwhitneyu

    rows = []
    for key in sorted(set(baseline) & set(current)):
        before, after = baseline[key], current[key]
        changed = environment_changes(before["environment"], after["environment"])
        for variant in sorted(set(before["variants"]) | set(after["variants"])):
            modes_before = before["variants"].get(variant, {}).get("modes", {})
            modes_after = after["variants"].get(variant, {}).get("modes", {})
            for mode in sorted(set(modes_before) | set(modes_after)):
                row = {"study": key[0], "config_id": key[1], "variant": variant, "mode": mode,
                       "metric": "seconds per sample", "environment_changes": changed}
                if mode not in modes_before or mode not in modes_after:
                    rows.append(row | {"verdict": "only in " + ("current" if mode in modes_after else "baseline")})
                    continue
                b = np.asarray(modes_before[mode]["samples_s"], dtype=float)
                c = np.asarray(modes_after[mode]["samples_s"], dtype=float)
                ratio = float(np.median(c) / np.median(b))
                low, high = ratio_interval(c, b)
                p_value = float(mannwhitneyu(c, b, alternative="two-sided").pvalue)
                rows.append(row | {
                    "baseline_median_ms": float(np.median(b)) * 1e3, "current_median_ms": float(np.median(c)) * 1e3,
                    "ratio": ratio, "ratio_ci_low": low, "ratio_ci_high": high, "p_value": p_value,
                    "n_baseline": b.size, "n_current": c.size,
                    "verdict": verdict(ratio, p_value < alpha, threshold),
                })
    one_sided = [{"study": s, "config_id": c, "only_in": "baseline"} for s, c in sorted(set(baseline) - set(current))]
    one_sided += [{"study": s, "config_id": c, "only_in": "current"} for s, c in sorted(set(current) - set(baseline))]
    return pd.DataFrame(rows), pd.DataFrame(one_sided, columns=["study", "config_id", "only_in"])


def _ratios_by_key(doc: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    return {(c["variant"], c["baseline"], c["mode"]): c for c in doc["comparisons"]}


def paired_ratios(baseline: dict[Key, dict], current: dict[Key, dict], threshold: float = 0.05) -> pd.DataFrame:
    """Each paired ratio measured on both sides: the two ratios, current / baseline, whether they agree within
    the threshold and whether their 95% intervals overlap; the verdict needs both a change beyond the
    threshold and intervals apart."""
    rows = []
    for key in sorted(set(baseline) & set(current)):
        before, after = _ratios_by_key(baseline[key]), _ratios_by_key(current[key])
        for variant, against, mode in sorted(set(before) & set(after)):
            b, c = before[(variant, against, mode)], after[(variant, against, mode)]
            change = c["ratio"] / b["ratio"]
            overlap = max(b["ratio_ci_low"], c["ratio_ci_low"]) <= min(b["ratio_ci_high"], c["ratio_ci_high"])
            rows.append({"study": key[0], "config_id": key[1], "variant": variant, "against": against, "mode": mode,
                         "baseline_ratio": b["ratio"], "current_ratio": c["ratio"], "change": change,
                         "agree": abs(change - 1) <= threshold, "intervals_overlap": overlap,
                         "verdict": verdict(change, not overlap, threshold)})
    return pd.DataFrame(rows, columns=["study", "config_id", "variant", "against", "mode", "baseline_ratio",
                                       "current_ratio", "change", "agree", "intervals_overlap", "verdict"])


def _median_row(r) -> str:
    return (f"{r.study} {r.config_id} {r.variant} ({r.mode}): {r.ratio:.3f}x [{r.ratio_ci_low:.3f}, "
            f"{r.ratio_ci_high:.3f}], p={r.p_value:.2g}")


def _ratio_row(r) -> str:
    return (f"{r.study} {r.config_id} {r.variant} / {r.against} ({r.mode}): {r.baseline_ratio:.3f}x -> "
            f"{r.current_ratio:.3f}x ({r.change:.3f}x, intervals apart)")


# How the gate ranks and names the regressed rows of the table `compare.gate_on` picks (COMPARE_TABLES in the rules).
GATES = {"medians": ("ratio", _median_row), "ratios": ("change", _ratio_row)}


def require_no_regressions(table: pd.DataFrame, gate_on: str = "medians", worst: int = 5) -> None:
    """Raise naming the worst regressions (largest change first) of the table the gate judges."""
    rank, describe = GATES[gate_on]
    regressed = table[table.verdict == "regressed"].sort_values(rank, ascending=False)
    if len(regressed):
        lines = [describe(r) for r in regressed.head(worst).itertuples()]
        raise Regressions(f"{len(regressed)} regression(s) against the baseline ({gate_on}); the worst:\n  "
                          + "\n  ".join(lines))


def _counts(table: pd.DataFrame) -> str:
    counts = table.verdict.value_counts().to_dict() if len(table) else {}
    return ", ".join(f"{v} {n}" for v, n in sorted(counts.items())) or "none"


def _ratios_section(ratios: pd.DataFrame, threshold: float) -> list[str]:
    if not len(ratios):
        return ["_(no paired ratio measured on both sides)_", ""]
    per_study = "; ".join(f"{study} {part.agree.sum()} of {len(part)}" for study, part in ratios.groupby("study"))
    return [
        f"Each variant's paired ratio against its baseline variant, as each run measured it. The runs agree on "
        f"{ratios.agree.sum()} of {len(ratios)} within ±{threshold:g} ({per_study}); their 95% intervals "
        f"overlap for {ratios.intervals_overlap.sum()} of {len(ratios)}. Verdict: regressed (improved) when the "
        f"change is above 1 + {threshold:g} (below 1 - {threshold:g}) and the intervals are apart.", "",
        "Verdicts: " + _counts(ratios), "",
        ratios.to_markdown(index=False, floatfmt=".4g"), "",
    ]


def markdown(table: pd.DataFrame, one_sided: pd.DataFrame, ratios: pd.DataFrame, baseline: str, threshold: float,
             alpha: float) -> str:
    shown = table.drop(columns=["metric"]) if len(table) else table
    lines = [
        "# Comparison with a baseline run", "",
        f"Baseline: `{baseline}`. Each row compares the raw samples of one study, configuration, variant and "
        f"mode: ratio of medians current / baseline with a bootstrap 95% interval, two-sided Mann-Whitney U. "
        f"Verdict: regressed (improved) when the ratio is above 1 + {threshold:g} (below 1 - {threshold:g}) and "
        f"p < {alpha:g}; unchanged otherwise.", "",
        "Verdicts: " + _counts(table), "",
        shown.to_markdown(index=False, floatfmt=".4g") if len(shown) else "_(no configuration on both sides)_", "",
        "## Paired ratios: do the runs reach the same conclusions?", "",
        *_ratios_section(ratios, threshold),
        "## Configurations on one side only", "",
        one_sided.to_markdown(index=False) if len(one_sided) else "_(none: both runs have the same configurations)_",
        "",
    ]
    return "\n".join(lines)
