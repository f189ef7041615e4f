"""Compare this run's results with a baseline run's: did a library upgrade, a code change or a new machine
make an idiom cheaper or dearer?

Every (study, configuration, variant, mode) present on both sides is compared over its fresh processes: each
process's median, current / baseline as the difference of the two runs' mean log medians, with Student's t on
their spread between processes pooled across the configuration's rows (harness.moderated.two_sample: the sides
are independent runs, no process paired with another), and a three-way verdict at a threshold on that interval
alone (a test on the pooled samples would ignore the processes: a process-wide offset would read as
significant while the interval over processes includes 1). A run timed in one process says nothing of how far
a fresh process moves it: its rows get no interval and read inconclusive. On the same
kind of machine the samples are judged in units of the yardstick timed in their own rounds
(`machine_speed`), so that the machine's drift between the runs is not called a change of the code. A change
(regressed / improved) only where the whole interval lies beyond 1 +- threshold, `unchanged` only when the whole
interval lies within it (equivalence), and `inconclusive` otherwise, with the smallest change the two runs could
tell from none and how many fresh processes a run would tell the threshold from none. A run that cannot tell never reads
"unchanged". What differs in the environments is named per row; configurations on one side only are
listed, never dropped.

The paired ratios each run measured (a variant against its baseline variant, e.g. against the floor) are
set side by side too: whether two runs agree on them within the threshold is how reproducible a study's
conclusions are, whatever the machine's speed did between the runs. The gate can judge either (gate.py).
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ... import results
from ...harness import moderated
from ...harness.stats import is_difference, is_twin
from ...report.tables import bundle
from ...report.tables.environments import COMPARABLE, code_version
from . import machine_speed, process_t
from .process_t import log_medians

Key = tuple[str, str]


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


def verdict(low: float, high: float, threshold: float) -> str:
    """regressed / improved only when the whole 95% interval of the change lies beyond 1 +- threshold (a
    minimum-effect test at 2.5%: the word and the gate's test agree, familywise.py); unchanged only when it lies
    within (equivalence: two one-sided tests at 2.5% each); inconclusive otherwise: this pair of runs could not
    tell whether the change passes the threshold."""
    if low > 1 + threshold:
        return "regressed"
    if high < 1 - threshold:
        return "improved"
    if 1 - threshold <= low and high <= 1 + threshold:
        return "unchanged"
    return "inconclusive"


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
    code_before, code_after = code_version(baseline), code_version(current)
    if code_before != code_after:
        changes.append(f"code {code_before} -> {code_after}")
    return "; ".join(changes)


def compare(baseline: dict[Key, dict], current: dict[Key, dict], threshold: float = 0.05,
            machine_units: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows per (study, configuration, variant, mode) on both sides (not a floor's A/A twin: its floor's row says
    it), and the configurations on one side; `machine_units`: judge the medians in yardstick units
    (`compare.machine_units`, machine_speed.judged_as). A configuration's rows are estimated together
    (`_estimated`: their spread between processes pooled)."""
    rows = []
    for key in sorted(set(baseline) & set(current)):
        before, after = baseline[key], current[key]
        changed = environment_changes(before["environment"], after["environment"])
        measured = []
        for variant in sorted(v for v in set(before["variants"]) | set(after["variants"]) if not is_twin(v)):
            modes_before = before["variants"].get(variant, {}).get("modes", {})
            modes_after = after["variants"].get(variant, {}).get("modes", {})
            for mode in sorted(set(modes_before) | set(modes_after)):
                row = {"study": key[0], "config_id": key[1], "variant": variant, "mode": mode,
                       "metric": "seconds per sample", "environment_changes": changed}
                if mode not in modes_before or mode not in modes_after:
                    rows.append(row | {"verdict": "only in " + ("current" if mode in modes_after else "baseline")})
                    continue
                measured.append((len(rows), row | _medians(before, after, variant, mode, machine_units)))
                rows.append({})  # its place, filled once the configuration's rows are estimated together
        for (place, _), estimated in zip(measured, _estimated([r for _, r in measured], threshold), strict=True):
            rows[place] = estimated
    one_sided = [{"study": s, "config_id": c, "only_in": "baseline"} for s, c in sorted(set(baseline) - set(current))]
    one_sided += [{"study": s, "config_id": c, "only_in": "current"} for s, c in sorted(set(current) - set(baseline))]
    return pd.DataFrame(rows), pd.DataFrame(one_sided, columns=["study", "config_id", "only_in"])


def _medians(before: dict[str, Any], after: dict[str, Any], variant: str, mode: str,
             machine_units: bool) -> dict[str, Any]:
    """One mode of one variant on both sides: the medians, the machine's speed change (the yardstick), what the
    row is judged on (raw, or in yardstick units where asked and both runs ran on the same kind of machine and
    timed a yardstick: `machine_speed.judged_as`) and each process's log median, raw and as judged (`_raw`,
    `_judged`: current's, baseline's), for `_estimated`."""
    groups_b = _groups(before["variants"][variant]["modes"][mode])
    groups_a = _groups(after["variants"][variant]["modes"][mode])
    b, c = np.concatenate(groups_b), np.concatenate(groups_a)
    same = machine_speed.same_machine(before["environment"], after["environment"])
    units_b = machine_speed.in_machine_units(before, mode, groups_b)
    units_a = machine_speed.in_machine_units(after, mode, groups_a)
    judged_on = machine_speed.judged_as(same, units_b, units_a, machine_units)
    raw = (log_medians(groups_a), log_medians(groups_b))
    speed = machine_speed.speed_change(before, after, mode, groups_b, groups_a) or {}
    return {
        "baseline_median_ms": float(np.median(b)) * 1e3, "current_median_ms": float(np.median(c)) * 1e3,
        "machine_ratio": speed.get("machine_ratio"), "machine_ratio_ci_low": speed.get("machine_ratio_ci_low"),
        "machine_ratio_ci_high": speed.get("machine_ratio_ci_high"), "judged_on": judged_on,
        "n_baseline": b.size, "n_current": c.size, "processes": f"{len(groups_b)} / {len(groups_a)}",
        "_raw": raw,
        "_judged": (log_medians(units_a), log_medians(units_b)) if judged_on == "yardstick units" else raw,
    }


def _estimated(rows: list[dict[str, Any]], threshold: float) -> list[dict[str, Any]]:
    """One configuration's rows judged: current / baseline over fresh processes (moderated.two_sample, the
    rows' spreads pooled), raw and as judged, with the verdict and what the runs could detect."""
    if not rows:
        return []
    raw = moderated.two_sample(*zip(*(r.pop("_raw") for r in rows), strict=True))
    judged = moderated.two_sample(*zip(*(r.pop("_judged") for r in rows), strict=True))
    out = []
    for row, r, j in zip(rows, raw, judged, strict=True):
        (raw_ratio, raw_low, raw_high), (ratio, low, high) = r.as_ratio(), j.as_ratio()
        out.append(row | {"raw_ratio": raw_ratio, "raw_ratio_ci_low": raw_low, "raw_ratio_ci_high": raw_high,
                          "ratio": ratio, "ratio_ci_low": low, "ratio_ci_high": high, "df": j.df,
                          "verdict": verdict(low, high, threshold)} | _could_detect(j, row["processes"], threshold))
    return out


def _could_detect(found: moderated.Estimate, processes: str, threshold: float) -> dict[str, Any]:
    """What a comparison of two runs of m and n processes could detect (process_t.detectability): a difference
    of two means over m and n has the spread of one mean over M / 2, M their harmonic mean, at sqrt(2) times
    the spread between processes; `processes_needed`: per run."""
    m, n = (int(x) for x in processes.split(" / "))
    per_run = 2 / (1 / m + 1 / n)
    sd = found.pooled_sd * math.sqrt(2) if math.isfinite(found.high) else math.nan
    return process_t.detectability(sd, per_run, threshold, found.df)


def _groups(entry: dict[str, Any]) -> list[list[float]]:
    """A mode's samples per process (one group where the configuration ran in one process)."""
    return [p["samples_s"] for p in entry["processes"]] if "processes" in entry else [entry["samples_s"]]


def _ratio_groups(doc: dict[str, Any], variant: str, against: str, mode: str) -> list[np.ndarray]:
    """The paired ratios variant / against that one run measured, per process (pairs never cross processes)."""
    modes = doc["variants"]
    return [np.asarray(a) / np.asarray(b) for a, b in zip(_groups(modes[variant]["modes"][mode]),
                                                        _groups(modes[against]["modes"][mode]), strict=True)]


def _ratios_by_key(doc: dict[str, Any]) -> dict[tuple[str, str, str], dict[str, Any]]:
    """A run's paired ratios of two variants; not those of two differences (stats.DIFFERENCE: an overhead over an
    overhead, whose per-round ratio a claim reads only as a difference), nor a floor's A/A twin (the job's own
    audit: stats.twin_side)."""
    return {(c["variant"], c["baseline"], c["mode"]): c for c in doc["comparisons"]
            if not is_difference(c["variant"], c["baseline"]) and not is_twin(c["variant"])}


RATIO_COLUMNS = ["study", "config_id", "variant", "against", "mode", "baseline_ratio", "current_ratio", "change",
                 "change_ci_low", "change_ci_high", "df", "agree", "intervals_overlap", "verdict",
                 "detectable_change", "samples_factor", "processes_needed"]


def paired_ratios(baseline: dict[Key, dict], current: dict[Key, dict], threshold: float = 0.05) -> pd.DataFrame:
    """Each paired ratio measured on both sides: the two ratios, and current / baseline over fresh processes
    (each process's median paired ratio; moderated.two_sample, a configuration's rows pooled), whether they
    agree within the threshold and whether their 95% intervals overlap; the verdict on the change's interval
    (`verdict`: beyond 1 +- threshold, or within it)."""
    rows = []
    for key in sorted(set(baseline) & set(current)):
        before, after = _ratios_by_key(baseline[key]), _ratios_by_key(current[key])
        both = sorted(set(before) & set(after))
        logs = [(log_medians(_ratio_groups(current[key], *row)), log_medians(_ratio_groups(baseline[key], *row)))
                for row in both]
        found = moderated.two_sample([a for a, _ in logs], [b for _, b in logs]) if logs else []
        for (variant, against, mode), (a, b), f in zip(both, logs, found, strict=True):
            old, new = before[(variant, against, mode)], after[(variant, against, mode)]
            change, low, high = f.as_ratio()
            overlap = max(old["ratio_ci_low"], new["ratio_ci_low"]) <= min(old["ratio_ci_high"], new["ratio_ci_high"])
            rows.append({"study": key[0], "config_id": key[1], "variant": variant, "against": against, "mode": mode,
                         "baseline_ratio": old["ratio"], "current_ratio": new["ratio"], "change": change,
                         "change_ci_low": low, "change_ci_high": high, "df": f.df,
                         "agree": abs(change - 1) <= threshold, "intervals_overlap": overlap,
                         "verdict": verdict(low, high, threshold)}
                        | _could_detect(f, f"{len(b)} / {len(a)}", threshold))
    return pd.DataFrame(rows, columns=RATIO_COLUMNS)
