"""One configuration measured in several fresh processes (`measure.processes`), merged into one result: medians
differ between processes, which one process's interval cannot see, so each comparison is estimated over them.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from . import stats
from .machine import machine_summary
from .pooled import DIFF_FIELDS, RATIO_FIELDS, STEADY, pool_group, pooled_intervals, read_off
from .program_memory import widest
from .variants import PYTHON_KEYS, RETRACES


class ProcessesDisagree(RuntimeError):
    """Two worker processes of one configuration ran different code paths."""


PROGRAM = "program"  # a signature's fingerprint of the lowered program's text (variants.signature)
AGREED = ("executable", "returns_host")  # a benchfile variant's, kept where every process recorded the same


def _code_path(signature: Any) -> Any:
    """A signature but the programs' text, which may differ between processes on one path, and a retracing call's
    Python: recorded, not a reason to lose the job."""
    if not isinstance(signature, dict):
        return signature
    return {k: _code_path(v) for k, v in signature.items()
            if k != PROGRAM and not (k in PYTHON_KEYS and signature.get(RETRACES))}


def _programs(signature: Any, at: str = "") -> dict[str, str]:
    """Every lowered program's fingerprint in a signature, by where it sits (`infer.program`)."""
    if not isinstance(signature, dict):
        return {}
    found = {f"{at}{PROGRAM}": signature[PROGRAM]} if PROGRAM in signature else {}
    for key, value in signature.items():
        found |= _programs(value, f"{at}{key}.")
    return found


def _mean_leaves(values: list[Any]) -> Any:
    """Numbers averaged, dicts merged key by key; anything else is taken from the first process."""
    first = values[0]
    if isinstance(first, dict):
        return {k: _mean_leaves([v[k] for v in values]) for k in first}
    if isinstance(first, int | float) and not isinstance(first, bool):
        return float(np.mean(values))
    return first


def _merge_mode(entries: list[dict[str, Any]]) -> dict[str, Any]:
    merged = dict(entries[0])
    merged["samples_s"] = [x for e in entries for x in e["samples_s"]]
    merged["contended"] = [x for e in entries for x in e["contended"]]
    merged["summary"] = stats.summarize(merged["samples_s"])
    merged["compiles_in_timed_region"] = sum(e["compiles_in_timed_region"] for e in entries)
    for key in (key for key in stats.STAGE_SECONDS.values() if key in merged):
        merged[key] = [x for e in entries for x in e[key]]
    if "step_seconds" in merged:  # a mode timed step by step: every process's calls, step by step
        merged["step_seconds"] = {k: [x for e in entries for x in e["step_seconds"][k]] for k in merged["step_seconds"]}
    merged["processes"] = [{"samples_s": e["samples_s"], "summary": e["summary"],
                            "calls_per_sample": e["calls_per_sample"]}
                           | ({"step_seconds": e["step_seconds"]} if "step_seconds" in e else {}) for e in entries]
    return merged


def _merge_machine(records: list[dict[str, Any]]) -> dict[str, Any]:
    return machine_summary([w for r in records for w in r["windows"]], records[0]["policy"],
                           [x for r in records for x in r["load_average"]], [x for r in records for x in r["cpu_mhz"]],
                           [w for r in records for w in r["waits"]], [x for r in records for x in r["yardstick_s"]],
                           {name: [x for r in records for x in r["places"][name]] for name in records[0]["places"]},
                           _summed_walls(records))


def _summed_walls(records: list[dict[str, Any]]) -> tuple[dict[str, float], float] | None:
    """The processes' walls summed (none in older results)."""
    if not all("sampled_s" in r for r in records):
        return None
    return ({name: sum(r["sampled_s"][name] for r in records) for name in records[0]["sampled_s"]},
            sum(r["rounds_s"] for r in records))


def side_samples_of(doc: dict[str, Any], side: str, mode: str) -> np.ndarray:
    """One process's samples of a comparison's side: a variant, or a difference of two."""
    return stats.side_samples({name: doc["variants"][name]["modes"][mode]["samples_s"]
                               for name in stats.side_parts(side)}, side)


def _own(doc: dict[str, Any], pair: dict[str, Any]) -> dict[str, Any]:
    """One process's own comparison of the pair (ratio None where a difference's baseline may be 0)."""
    key = ("variant", "baseline", "mode")
    return next(c for c in doc["comparisons"] if all(c[k] == pair[k] for k in key))


def _medians(docs: list[dict[str, Any]], pairs: list[tuple[str, str, str]]) -> dict[tuple[str, str], float]:
    """Each variant's median per compared mode: the processes' geometric mean."""
    named = {(part, mode) for variant, baseline, mode in pairs for side in (variant, baseline)
             for part in stats.side_parts(side)}
    return {(part, mode): float(np.exp(np.mean(np.log([np.median(d["variants"][part]["modes"][mode]["samples_s"])
                                                       for d in docs])))) for part, mode in named}


def _pooled_comparisons(docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every comparison of a job from each process's own, by moderated t."""
    compared = docs[0]["comparisons"]
    pairs = [(c["variant"], c["baseline"], c["mode"]) for c in compared]
    own = [[_own(d, c) for d in docs] for c in compared]
    return pooled_intervals(pairs, [[o["ratio"] for o in row] for row in own],
                            [[o["diff"] for o in row] for row in own], _medians(docs, pairs), pool_groups(docs[0]))


def pool_groups(doc: dict[str, Any]) -> dict[tuple[str, str], str]:
    """A result's (variant, mode)s that pool apart from the steady ones, with their pool_group."""
    return {(v, mode): group for v, record in doc["variants"].items() for mode, m in record["modes"].items()
            if (group := pool_group(m)) != STEADY}


def _one_process(doc: dict[str, Any]) -> dict[str, Any]:
    """A one-process job: its ratios stand, each difference read off its ratio as a pooled job's is."""
    pairs = [(c["variant"], c["baseline"], c["mode"]) for c in doc["comparisons"]]
    ratios = [[c.get(k) for k in RATIO_FIELDS[:3]] for c in doc["comparisons"]]
    read = read_off(pairs, ratios, _medians([doc], pairs))
    return doc | {"comparisons": [c | dict(zip(DIFF_FIELDS, ends, strict=True)) if ends else c
                                  for c, ends in zip(doc["comparisons"], read, strict=True)]}


def _merge_plans(merged: dict[str, Any], name: str, plans: list[dict[str, int]]) -> None:
    """A variant's memory plan, whole bytes: the largest any process made; processes that planned apart, said."""
    if plans:
        merged["variants"][name]["program_memory"] = widest(plans)
    if len({plan["total_bytes"] for plan in plans}) > 1:
        merged["checks"].setdefault("program_plans_apart", {})[name] = [p["total_bytes"] for p in plans]


def merge(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """The workers' results of one configuration as one."""
    first = docs[0]
    if len(docs) == 1:
        return _one_process(first)
    lowered_apart = {}
    for i, doc in enumerate(docs[1:], start=1):
        for name, variant in first["variants"].items():
            theirs = doc["variants"][name]["signature"]
            if _code_path(theirs) != _code_path(variant["signature"]):
                raise ProcessesDisagree(
                    f"process {i} ran another code path for {name!r} than process 0: {theirs} vs "
                    f"{variant['signature']}")
            if _programs(theirs) != _programs(variant["signature"]):
                lowered_apart[name] = [_programs(d["variants"][name]["signature"]) for d in docs]
    merged = copy.deepcopy(first)
    for key in merged.get("structure", {}):  # a choice each process made (extraction's storage): every one said
        values = [d.get("structure", {}).get(key) for d in docs]
        chosen = sorted({str(v) for v in values})
        if len(chosen) > 1:
            if not all(isinstance(v, str) for v in values):
                raise ProcessesDisagree(f"the processes timed different workloads: structure {key!r} {chosen}")
            merged["structure"][key] = " / ".join(chosen)
    if lowered_apart:  # the same code path, its program's text lowered apart: kept, said in the checks
        merged["checks"]["programs_lowered_apart"] = lowered_apart
    for name, variant in merged["variants"].items():
        per = [doc["variants"][name] for doc in docs]
        for key in list(variant):
            if key == "modes":
                variant["modes"] = {mode: _merge_mode([p["modes"][mode] for p in per]) for mode in variant["modes"]}
            elif key in ("calls", "compiles_in_warmup"):
                variant[key] = sum(p[key] for p in per)
            elif key in AGREED and len({str(p.get(key)) for p in per}) > 1:  # a GPU's autotuning, say
                del variant[key]
            elif key not in ("signature", "program_memory", *AGREED):
                variant[key] = _mean_leaves([p[key] for p in per])
        _merge_plans(merged, name, [p["program_memory"] for p in per if "program_memory" in p])
    merged["comparisons"] = [
        c | found | {"process_ratios": [_own(d, c)["ratio"] for d in docs]}
        for c, found in zip(first["comparisons"], _pooled_comparisons(docs), strict=True)
    ]
    merged["comparisons_by_process"] = [d["comparisons"] for d in docs]
    merged["memory"] = {mode: {k: max((d["memory"][mode][k] for d in docs if d["memory"][mode][k] is not None),
                                      default=None) for k in peaks}
                        for mode, peaks in first["memory"].items()}
    merged["machine"] = {mode: _merge_machine([d["machine"][mode] for d in docs]) for mode in first["machine"]}
    for key, found in first["checks"].items():  # outputs_agree, and a study's other agreement records
        if isinstance(found, dict) and "bitwise_equal" in found:
            merged["checks"][key] = _merge_agreement([d["checks"][key] for d in docs])
    found = [d["checks"].get("findings", {}) for d in docs]
    if found[0]:
        merged["checks"]["findings"] = {name: _merge_finding([f[name] for f in found]) for name in found[0]}
    merged["processes"] = len(docs)
    return merged


def _merge_finding(records: list[dict[str, Any]]) -> dict[str, Any]:
    """One finding over every process, never narrower than any: intervals span all, numbers are medians,
    differing texts listed."""
    merged = {}
    for key, first in records[0].items():
        values = [r[key] for r in records]
        if isinstance(first, (str, bool)):
            merged[key] = first if len(set(values)) == 1 else "; ".join(map(str, values))
        elif key.endswith("_ci_low"):
            merged[key] = min(values)
        elif key.endswith("_ci_high"):
            merged[key] = max(values)
        else:
            merged[key] = float(np.median(values))
    return merged


def _merge_agreement(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Outputs checks as one: the largest difference, bitwise only if all."""
    names = records[0]["max_abs_difference"]
    return records[0] | {"max_abs_difference": {k: max(r["max_abs_difference"][k] for r in records) for k in names},
                         "bitwise_equal": {k: all(r["bitwise_equal"][k] for r in records) for k in names}}


def half_widths(docs: list[dict[str, Any]]) -> dict[str, float]:
    """How closely each ratio of two variants' times is known so far (its relative half-width), by
    `variant / baseline (mode)`."""
    return {f"{c['variant']} / {c['baseline']} ({c['mode']})": stats.relative_half_width(found)
            for c, found in zip(docs[0]["comparisons"], _pooled_comparisons(docs), strict=True)
            if found["ratio"] is not None and not stats.is_difference(c["variant"], c["baseline"])}
