"""Flatten a study's result JSONs and trace tables into CSV tables the figures and the report read."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from ... import results
from ...contract.naming import settings_of
from ...contract.tables import TABLES
from ...harness.processes import pool_groups
from ...harness.stats import (
    STAGE_SECONDS,
    bootstrap_median_ci,
    is_difference,
    is_twin,
    paired_comparison,
    relative_iqr_ci,
)
from ...harness.variants import VariantsIndistinguishable, require_distinct
from . import job_checks as job
from .environments import TEXT_COLUMNS, code_version, flat_environment, require_comparable
from .over_processes import POOLED, compile_ratios_over_processes, steps_over_processes
from .study_allocation import variance_columns


def _config_columns(doc: dict[str, Any]) -> dict[str, Any]:
    conf = settings_of(doc["config"])
    return {"config_id": doc["config_id"], "model": doc["config"].get("model", ""),
            "axes": ",".join(doc["config"]["axes"]), "demonstration": doc.get("demonstration", "")} | conf | {
        f"structure_{k}": v for k, v in doc.get("structure", {}).items()
    }


def _row(doc: dict[str, Any], columns: dict[str, Any]) -> dict[str, Any]:
    """A table's row: the configuration's columns, then `columns`, none named as an axis (it would overwrite it)."""
    clash = sorted(set(doc["config"]["axes"]) & set(columns))
    if clash:
        raise ValueError(f"{doc['study']} {doc['config_id']}: axis {', '.join(clash)} is also a column of the "
                         "results' tables: rename it (in setup, for a benchmark file)")
    return _config_columns(doc) | columns


ESTIMATE_COLUMNS = ("ratio_p_value", "ratio_df", "diff_df")  # what harness.processes.pooled_intervals adds


def _per_process(pooled: dict[str, Any], processes: list[dict[str, Any]] | None) -> list[tuple[str, dict[str, Any]]]:
    """(process, entry) pairs: the pooled entry as process `all`, then each worker process's."""
    return [(POOLED, pooled), *((str(i), p) for i, p in enumerate(processes or []))]


def _step_row(doc: dict[str, Any], variant: str, mode: str, pooled: dict[str, Any], process: str,
              m: dict[str, Any]) -> dict[str, Any]:
    v = doc["variants"][variant]
    return _row(doc, {
        "variant": variant, "mode": mode, "process": process,
        **{f"{k}_ms": m["summary"][k] * 1e3 for k in ("median", "mean", "std", "iqr", "min", "max")},
        **dict(zip(("median_ci_low_ms", "median_ci_high_ms"),
                   _within(m, lambda s: tuple(x * 1e3 for x in bootstrap_median_ci(s, times=True)), 2), strict=True)),
        **dict(zip(("relative_iqr", "relative_iqr_ci_low", "relative_iqr_ci_high"), _within(m, relative_iqr_ci, 3),
                   strict=True)),
        "n_samples": m["summary"]["n"], "calls_per_sample": m["calls_per_sample"],
        "contended_samples": sum(pooled["contended"]) if process == POOLED else None,
        **{f"signature_{k}": x for k, x in v["signature"].items() if isinstance(x, int | float)},
        "compiles_in_warmup": v["compiles_in_warmup"],
        **{f"program_{k}": x for k, x in v.get("program_memory", {}).items()},  # a benchmark file's: XLA's plan
        **{k: v[k] for k in ("executable", "returns_host") if k in v},  # its optimized programs', its outputs' place
        "compiles_in_timed_region": pooled["compiles_in_timed_region"],
        "measures_compilation": pooled.get("measures_compilation", False),
        **({"recompiles": True} if pooled.get("recompiles") else {}),  # a benchmark file's RECOMPILES: pooled apart
        # a process's own where its entry keeps them (a merged job's keeps them pooled only: blank, not the job's)
        "compile_median_ms": (float(np.median(m["compile_seconds"])) * 1e3 if "compile_seconds" in m else None),
        **{f"{stage}_median_ms": float(np.median(m[key])) * 1e3  # JAX's, where a result kept them
           for stage, key in STAGE_SECONDS.items() if stage != "compile" and key in m},
        # a variant's first run: its mode's own where the mode kept one (tree_at's un-jitted start-up), else the
        # variant's (generation's, extraction's first pass)
        **{f"first_run_{k}": x for k, x in (pooled.get("first_run") or v.get("first_run", {})).items()},
        **{f"phase_{k}_ms": x * 1e3 for k, x in v.get("phase_seconds_per_pass", {}).items()},
        **_step_split([p["step_seconds"] for p in pooled.get("processes") or [pooled] if "step_seconds" in p]
                      if process == POOLED else [m["step_seconds"]] if "step_seconds" in m else []),
    })


def _step_split(processes: list[dict[str, list[float]]]) -> dict[str, float]:
    """A stepped mode's per-step median (ms) and median share of the call with its 95% interval."""
    if not processes:
        return {}
    out = {}
    for step in processes[0]:
        out[f"step_{step}_ms"] = float(np.median(np.concatenate([p[step] for p in processes]))) * 1e3
        share = (np.asarray(processes[0][step]) / np.sum(list(processes[0].values()), axis=0)
                 if len(processes) == 1 else None)
        found = (math.nan,) * 3 if share is None else (float(np.median(share)), *bootstrap_median_ci(share, times=True))
        out |= dict(zip((f"step_{step}_share", f"step_{step}_share_ci_low", f"step_{step}_share_ci_high"), found,
                        strict=True))
    return out


def _within(m: dict[str, Any], summary: Callable[[list[float]], tuple[float, ...]], size: int) -> tuple[float, ...]:
    """A mode's summary over one process's samples; `size` blanks for several."""
    return (math.nan,) * size if m.get("processes") else summary(m["samples_s"])


def steps_table(docs: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """One row per configuration, variant, mode and process: ms statistics with intervals."""
    return steps_over_processes(pd.DataFrame([
        _step_row(doc, variant, mode, pooled, process, m)
        for doc in docs for variant, v in doc["variants"].items() for mode, pooled in v["modes"].items()
        for process, m in _per_process(pooled, pooled.get("processes"))
    ]))


def _compile_seconds(mode: dict[str, Any], process: str) -> list[float] | None:
    """A mode's compile time per sample in one process; None for the pooled row of several."""
    seconds, counts = mode["compile_seconds"], [len(p["samples_s"]) for p in mode.get("processes", [])]
    if not counts or process == POOLED:
        return None if counts else seconds
    return seconds[sum(counts[:int(process)]):sum(counts[:int(process) + 1])]


def _compile_ratio(doc: dict[str, Any], c: dict[str, Any], process: str) -> dict[str, float]:
    """Compile time variant / baseline, paired per round, so a compilation claim has an interval."""
    sides = (c["variant"], c["baseline"])
    if is_difference(*sides):  # a difference of two variants' samples compiles nothing
        return {}
    modes = [doc["variants"][name]["modes"][c["mode"]] for name in sides]
    if not all("compile_seconds" in m for m in modes):
        return {}
    seconds = [_compile_seconds(m, process) for m in modes]
    compared = paired_comparison(*seconds) if seconds[0] is not None else {}
    return {f"compile_{k}": compared.get(k, math.nan) for k in ("ratio", "ratio_ci_low", "ratio_ci_high")}


def comparisons_table(docs: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """One row per configuration, pair and process: median ratio and difference (ms)."""
    rows, marks = [], {}
    for doc in docs:
        marks[doc["config_id"]] = pool_groups(doc)
        by_process = [(POOLED, doc["comparisons"])] + [
            (str(i), cs) for i, cs in enumerate(doc.get("comparisons_by_process", []))]
        for process, comparisons in by_process:
            for c in comparisons:
                spread = [r for r in c.get("process_ratios", []) if r is not None]  # a difference's may be None
                rows.append(_row(doc, {
                    "variant": c["variant"], "baseline": c["baseline"], "mode": c["mode"], "process": process,
                    "ratio": c["ratio"], "ratio_ci_low": c["ratio_ci_low"], "ratio_ci_high": c["ratio_ci_high"],
                    "diff_ms": c["diff"] * 1e3, "diff_ci_low_ms": c["diff_ci_low"] * 1e3,
                    "diff_ci_high_ms": c["diff_ci_high"] * 1e3,
                    "process_ratio_min": min(spread) if spread else None,
                    "process_ratio_max": max(spread) if spread else None,
                    # a job's row over several processes: its p-value and degrees of freedom (harness.moderated)
                    **{k: c.get(k) for k in ESTIMATE_COLUMNS},
                } | _compile_ratio(doc, c, process)))
    return compile_ratios_over_processes(pd.DataFrame(rows), marks)


def checks_table(docs: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """One row per configuration: the guards' findings, the job's own (`<name>_<key>`), environment."""
    rows = []
    for doc in docs:
        checks, env = doc["checks"], doc["environment"]
        rows.append(_row(doc, job.agreement(checks) | {
            "signatures_distinct": job.distinct(checks),
            # variants whose fresh processes ran one code path lowered to different program texts (processes.merge)
            "programs_lowered_apart": ", ".join(checks.get("programs_lowered_apart", {})),
            "program_plans_apart": ", ".join(checks.get("program_plans_apart", {})),  # a benchmark file's
            "distinct_signatures": len({str(v["signature"]) for v in _told_apart(doc).values()}),
            "not_timed": "; ".join(f"{name} ({why})" for name, why in doc.get("not_timed", {}).items()),
            "compiles_in_timed_region": job.timed_compiles(doc, None),
            "compiles_measured_on_purpose": job.timed_compiles(doc, "measures_compilation"),
            "compiles_demonstrated": job.timed_compiles(doc, "demonstration"),
            "compiles_in_warmup": sum(v["compiles_in_warmup"] for v in _told_apart(doc).values()),
            "job_seconds": doc.get("job_seconds"),
            "starts_s": doc.get("worker_starts_s"),  # its workers' starts: interpreter, imports, set-up
            **job.sample_seconds(doc),
            **variance_columns(doc),
            "ran_on": job.ran_on(env),
            "code": code_version(env),
            "processes": doc.get("processes", 1),
            "settings": json.dumps(doc["settings"], sort_keys=True),  # what the timing job read, as it recorded it
            **job.quietness(doc["machine"]),
            "first_place": job.first_place(doc),
            **job.peak_memory_mb(doc["memory"]),
            "backend": env["backend"], "device_kind": env["device_kind"],
        } | {f"{name}_{key}": value for name, found in checks.get("findings", {}).items()
             for key, value in found.items()}))
    return pd.DataFrame(rows)


def overhead_table(overheads: Iterable[pd.DataFrame], steps: pd.DataFrame) -> pd.DataFrame:
    """Trace breakdowns with an untraced estimate (share x untraced median: tracing inflates Python time)."""
    table = pd.concat(list(overheads), ignore_index=True)
    untraced = steps[["config_id", "variant", "mode", "median_ms"]].rename(columns={"median_ms": "untraced_step_ms"})
    table = table.merge(untraced, on=["config_id", "variant", "mode"], how="left")
    table["untraced_estimate_ms"] = table["share"] * table["untraced_step_ms"]
    return table


def _told_apart(doc: dict[str, Any]) -> dict[str, Any]:
    """All variants but the floor's A/A twin."""
    return {name: v for name, v in doc["variants"].items() if "twin_of" not in v}


def aggregate(run_paths: list[str], overhead_paths: list[str]) -> dict[str, pd.DataFrame]:
    """The study's tables, re-checking signatures so an edited result cannot slip in an indistinguishable pair."""
    docs = [results.read_result(p) for p in run_paths]
    require_comparable(docs, run_paths)
    for doc, path in zip(docs, run_paths, strict=True):
        try:
            require_distinct({name: v["signature"] for name, v in _told_apart(doc).items()})
        except VariantsIndistinguishable as e:
            raise VariantsIndistinguishable(f"{path}: {e}") from None
    steps = steps_table(docs)
    return {
        "steps": steps,
        "comparisons": comparisons_table(docs),
        "checks": checks_table(docs),
        "overhead": overhead_table((pd.read_csv(p) for p in overhead_paths), steps[steps.process == POOLED]),
        "environment": pd.DataFrame([flat_environment(docs[0]["environment"])]),
    }


PER_PROCESS = ("steps", "comparisons")


def read_tables(paths: Mapping[str, str], process: str = POOLED, twins: bool = False) -> dict[str, pd.DataFrame]:
    """A study's tables by name as one process saw them (`all`: the job's); twin rows only with `twins`."""
    tables = {name: pd.read_csv(paths[name], keep_default_na=name != "environment", dtype=TEXT_COLUMNS)
              for name in TABLES}
    for name in PER_PROCESS:
        table = tables[name]
        tables[name] = table[table.process.astype(str) == process].reset_index(drop=True)
    if "capture" not in tables["overhead"]:  # written before several captures: one each
        tables["overhead"] = tables["overhead"].assign(capture=0)
    if "n_samples" not in tables["steps"]:  # written when the sample count was `n` (a file's axis overwrote it)
        tables["steps"] = tables["steps"].rename(columns={"n": "n_samples"})
    return tables if twins else without_twins(tables)


def without_twins(tables: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """A study's tables without the floor's A/A twin's rows."""
    return {name: table[~table.variant.astype(str).map(is_twin)].reset_index(drop=True)
            if name in PER_PROCESS and "variant" in table else table for name, table in tables.items()}


def processes_of(tables: Mapping[str, pd.DataFrame]) -> list[str]:
    """The worker processes every job ran (none where one ran in one)."""
    n = int(tables["checks"]["processes"].min())
    return [str(i) for i in range(n)] if n > 1 else []
