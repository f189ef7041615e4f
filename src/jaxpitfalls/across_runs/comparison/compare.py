"""Compare this run's results with a baseline run's: did a library upgrade, a code change or a new machine make an
idiom cheaper or dearer? Rows are compared over fresh processes (pooled samples would read a process-wide offset as
significant); the paired ratios each run measured are set side by side too (how reproducible a study is)."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ... import results
from ...harness import moderated
from ...harness.pooled import STEADY, group_of
from ...harness.processes import pool_groups
from ...harness.stats import is_difference, is_twin
from ...harness.variants import PYTHON_KEYS, RETRACES
from ...report.tables import bundle
from ...report.tables.environments import COMPARABLE, code_parts
from . import machine_speed, process_t
from .process_t import log_medians

Key = tuple[str, str]


def load_runs(root: str | Path) -> dict[Key, dict[str, Any]]:
    """Every result JSON of a run (a results bundle, checked against its manifest, or a workflow or results
    directory), validated."""
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
    """`regressed`/`improved` only where the whole 95% interval lies beyond 1 +- threshold, `unchanged` only where it
    lies within (two one-sided tests), else `inconclusive`."""
    if low > 1 + threshold:
        return "regressed"
    if high < 1 - threshold:
        return "improved"
    if 1 - threshold <= low and high <= 1 + threshold:
        return "unchanged"
    return "inconclusive"


def _version(packages: dict[str, str | None], name: str) -> str:
    """A package's recorded version, said where there is none: not installed, or not recorded (an older run)."""
    return (packages[name] or "not installed") if name in packages else "not recorded"


def environment_changes(baseline: dict[str, Any], current: dict[str, Any]) -> str:
    """What differs between two environments: versions, machine, flags, commit."""
    changes = []
    for key in COMPARABLE:
        before, after = baseline.get(key), current.get(key)
        if key == "packages":
            changes += [f"{name} {_version(before, name)} -> {_version(after, name)}"
                        for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)]
        elif before != after:
            changes.append(f"{key} {before} -> {after}")
    for name, before, after in zip(("code", "your study's file (digest)"), code_parts(baseline), code_parts(current),
                                   strict=True):  # the workflow's and a user's file's apart: what differs, said
        if before != after:
            changes.append(f"{name} {before or 'none'} -> {after or 'none'}")
    return "; ".join(changes)


def compare(baseline: dict[Key, dict], current: dict[Key, dict], threshold: float = 0.05,
            machine_units: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Rows per (study, configuration, variant, mode) on both sides, and the configurations on one side (listed,
    never dropped)."""
    rows = []
    for key in sorted(set(baseline) & set(current)):
        before, after = baseline[key], current[key]
        changed = environment_changes(before["environment"], after["environment"])
        groups = pool_groups(before) | pool_groups(after)
        measured = []
        for variant in sorted(v for v in set(before["variants"]) | set(after["variants"]) if not is_twin(v)):
            modes_before = before["variants"].get(variant, {}).get("modes", {})
            modes_after = after["variants"].get(variant, {}).get("modes", {})
            for mode in sorted(set(modes_before) | set(modes_after)):
                row = {"study": key[0], "config_id": key[1], "variant": variant, "mode": mode,
                       "metric": "time per call", "environment_changes": changed}
                if mode not in modes_before or mode not in modes_after:
                    rows.append(row | {"verdict": "only in " + ("current" if mode in modes_after else "baseline")})
                    continue
                group = groups.get((variant, mode), STEADY)
                measured.append((len(rows), row | _medians(before, after, variant, mode, machine_units)
                                 | code_columns(before, after, variant, warm=group == STEADY) | {"_group": group}))
                rows.append({})  # its place, filled once the configuration's rows are estimated together
        for (place, _), estimated in zip(measured, _estimated([r for _, r in measured], threshold), strict=True):
            rows[place] = estimated
    one_sided = [{"study": s, "config_id": c, "only_in": "baseline"} for s, c in sorted(set(baseline) - set(current))]
    one_sided += [{"study": s, "config_id": c, "only_in": "current"} for s, c in sorted(set(current) - set(baseline))]
    return pd.DataFrame(rows), pd.DataFrame(one_sided, columns=["study", "config_id", "only_in"])


FINGERPRINTS = ("program", "call")  # a signature's hashes of what ran; a study's counts of calls alone say less
PARTS = {"program": "programs", "programs_compiled": "programs", RETRACES: "programs"} | dict.fromkeys(
    PYTHON_KEYS, "python")


def code_changes(before: dict[str, Any], after: dict[str, Any], *variants: str, warm: bool = True) -> str | None:
    """What of each variant's code differs between two runs (benchfile.signature): `programs` (lowered, or for
    `warm` rows as XLA optimized them: a first run traces and lowers the new code), `python` (the functions a warm
    call goes through, a library's own among them), `call` (as written); "" where none, None where a signature
    holds no fingerprint."""
    pairs = [tuple(doc["variants"].get(v, {}) for doc in (before, after)) for v in variants]
    if not all(k in (e.get("signature") or {}) for pair in pairs for e in pair for k in FINGERPRINTS):
        return None
    changed = set()
    for a, b in pairs:
        rebuilt = warm and a.get("executable") is not None and a.get("executable") == b.get("executable")
        traced = a["signature"].get(RETRACES) or b["signature"].get(RETRACES)  # its Python varies with each trace
        changed |= {PARTS.get(k, k) for k in set(a["signature"]) | set(b["signature"])
                    if a["signature"].get(k) != b["signature"].get(k) and not (rebuilt and k == "program")
                    and not (traced and k in PYTHON_KEYS)}
    return ", ".join(sorted(changed))


def code_columns(before: dict[str, Any], after: dict[str, Any], *variants: str, warm: bool = True) -> dict[str, Any]:
    """A row's `same_code` (None: unknown) and `code_changed` (what differs, blank where nothing or unknown)."""
    changes = code_changes(before, after, *variants, warm=warm)
    return {"same_code": None if changes is None else not changes, "code_changed": changes or ""}


def _medians(before: dict[str, Any], after: dict[str, Any], variant: str, mode: str,
             machine_units: bool) -> dict[str, Any]:
    """One mode of one variant on both sides: medians, machine speed change, what it is judged on, log medians."""
    groups_b = _groups(before["variants"][variant]["modes"][mode])
    groups_a = _groups(after["variants"][variant]["modes"][mode])
    same = machine_speed.same_machine(before["environment"], after["environment"])
    units_b = machine_speed.in_machine_units(before, mode, groups_b)
    units_a = machine_speed.in_machine_units(after, mode, groups_a)
    judged_on = machine_speed.judged_as(same, units_b, units_a, machine_units)
    raw = (log_medians(groups_a), log_medians(groups_b))
    speed = machine_speed.speed_change(before, after, mode, groups_b, groups_a) or {}
    return {
        "baseline_median_ms": process_t.median_ms(groups_b), "current_median_ms": process_t.median_ms(groups_a),
        "machine_ratio": speed.get("machine_ratio"), "machine_ratio_ci_low": speed.get("machine_ratio_ci_low"),
        "machine_ratio_ci_high": speed.get("machine_ratio_ci_high"), "judged_on": judged_on,
        "n_baseline": sum(map(len, groups_b)), "n_current": sum(map(len, groups_a)),
        "processes": f"{len(groups_b)} / {len(groups_a)}",
        "_raw": raw,
        "_judged": (log_medians(units_a), log_medians(units_b)) if judged_on == "yardstick units" else raw,
    }


def _two_sample(pairs: list[tuple[Any, Any]]) -> list[moderated.Estimate]:
    """moderated.two_sample over (current, baseline) pairs of rows."""
    return moderated.two_sample(*zip(*pairs, strict=True))


def _estimated(rows: list[dict[str, Any]], threshold: float) -> list[dict[str, Any]]:
    """One configuration's rows judged over fresh processes, spreads pooled, with verdict and detectable change."""
    if not rows:
        return []
    groups = [r.pop("_group") for r in rows]
    raw = moderated.in_groups(_two_sample, [r.pop("_raw") for r in rows], groups)
    judged = moderated.in_groups(_two_sample, [r.pop("_judged") for r in rows], groups)
    out = []
    for row, r, j in zip(rows, raw, judged, strict=True):
        (raw_ratio, raw_low, raw_high), (ratio, low, high) = r.as_ratio(), j.as_ratio()
        out.append(row | {"raw_ratio": raw_ratio, "raw_ratio_ci_low": raw_low, "raw_ratio_ci_high": raw_high,
                          "ratio": ratio, "ratio_ci_low": low, "ratio_ci_high": high, "df": j.df,
                          "verdict": verdict(low, high, threshold)} | _could_detect(j, row["processes"], threshold))
    return out


def _could_detect(found: moderated.Estimate, processes: str, threshold: float) -> dict[str, Any]:
    """What two runs of m and n processes could detect (detectability at M / 2 processes and sqrt(2) times the
    spread, M their harmonic mean)."""
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
    return {(c["variant"], c["baseline"], c["mode"]): c for c in doc["comparisons"]
            if not is_difference(c["variant"], c["baseline"]) and not is_twin(c["variant"])}


RATIO_COLUMNS = ["study", "config_id", "variant", "against", "mode", "baseline_ratio", "current_ratio", "change",
                 "change_ci_low", "change_ci_high", "df", "agree", "intervals_overlap", "same_code", "code_changed",
                 "verdict",
                 "detectable_change", "samples_factor", "processes_needed"]


def paired_ratios(baseline: dict[Key, dict], current: dict[Key, dict], threshold: float = 0.05) -> pd.DataFrame:
    """Each paired ratio measured on both sides: both values, current / baseline over fresh processes, agreement
    within the threshold, and the `verdict`."""
    rows = []
    for key in sorted(set(baseline) & set(current)):
        before, after = _ratios_by_key(baseline[key]), _ratios_by_key(current[key])
        both = sorted(set(before) & set(after))
        logs = [(log_medians(_ratio_groups(current[key], *row)), log_medians(_ratio_groups(baseline[key], *row)))
                for row in both]
        groups = pool_groups(baseline[key]) | pool_groups(current[key])
        found = moderated.in_groups(_two_sample, logs, [group_of(row, groups) for row in both])
        for (variant, against, mode), (a, b), f in zip(both, logs, found, strict=True):
            old, new = before[(variant, against, mode)], after[(variant, against, mode)]
            change, low, high = f.as_ratio()
            overlap = max(old["ratio_ci_low"], new["ratio_ci_low"]) <= min(old["ratio_ci_high"], new["ratio_ci_high"])
            rows.append({"study": key[0], "config_id": key[1], "variant": variant, "against": against, "mode": mode,
                         "baseline_ratio": old["ratio"], "current_ratio": new["ratio"], "change": change,
                         "change_ci_low": low, "change_ci_high": high, "df": f.df,
                         "agree": abs(change - 1) <= threshold, "intervals_overlap": overlap,
                         **code_columns(baseline[key], current[key], variant, against,
                                        warm=group_of((variant, against, mode), groups) == (STEADY,)),
                         "verdict": verdict(low, high, threshold)}
                        | _could_detect(f, f"{len(b)} / {len(a)}", threshold))
    return pd.DataFrame(rows, columns=RATIO_COLUMNS)
