"""A finished run judged again from its own samples as if it had measured less. A process's first k rounds stay
paired (rounds interleave every variant), so each cut result is merged again and judged beside the published ones.

    jaxpitfalls reference thin <run directory> <out directory> <study>:<cut> [<study>:<cut> ...]

A cut is any of `processes=0+1` (worker indices kept), `rounds=16` (per process and mode) and `budget=15` (seconds
per process and mode), joined by `,`: `dispatch:budget=15`. It only removes rounds, and keeps whole what a job
records once.
"""

from __future__ import annotations

import copy
import json
import math
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from ... import results
from ...harness import stats
from ...harness.machine import machine_summary
from ...harness.processes import merge, side_samples_of
from ...harness.sampling import MIN_ROUNDS
from ...report.tables.aggregate import aggregate
from .reference import table_paths
from .rejudge import rejudged


@dataclass(frozen=True)
class Cut:
    """What one study's results keep: processes by index (None: all), and per process and mode at most `rounds`
    rounds started within `budget` seconds."""

    processes: tuple[int, ...] | None = None
    rounds: int | None = None
    budget: float | None = None

    @classmethod
    def parse(cls, text: str) -> Cut:
        fields: dict[str, Any] = {}
        for item in filter(None, text.split(",")):
            key, _, value = item.partition("=")
            if key == "processes":
                fields[key] = tuple(int(i) for i in value.split("+"))
            elif key == "rounds":
                fields[key] = int(value)
            elif key == "budget":
                fields[key] = float(value)
            else:
                raise ValueError(f"{item!r}: a cut is processes=0+1, rounds=N or budget=SECONDS")
        return cls(**fields)


def _split(values: list, counts: Sequence[int]) -> list[list]:
    """A list of every process's values in turn (merge's order) as one list per process."""
    starts = [sum(counts[:i]) for i in range(len(counts) + 1)]
    return [values[a:b] for a, b in zip(starts, starts[1:], strict=False)]


def _process_windows(windows: list[dict[str, Any]], counts: Sequence[int]) -> list[list[dict[str, Any]]]:
    """A mode's merged windows split by process (a window re-timed between two goes with the later)."""
    split: list[list[dict[str, Any]]] = [[] for _ in counts]
    process, kept = 0, 0
    for window in windows:
        while process < len(counts) - 1 and kept >= counts[process]:
            process, kept = process + 1, 0
        split[process].append(window)
        kept += window["rounds"] if window["kept"] else 0
    return split


def _round_walls(windows: list[dict[str, Any]]) -> list[float]:
    """Each kept round's wall seconds, its window's shared evenly (re-timed windows and waits count nothing)."""
    return [w["wall_s"] / w["rounds"] for w in windows if w["kept"] for _ in range(w["rounds"])]


def rounds_kept(walls: Sequence[float], cut: Cut) -> int:
    """How many rounds the cut keeps: at most `cut.rounds`, none started past `cut.budget` (but MIN_ROUNDS), as the
    harness stops."""
    k = len(walls) if cut.rounds is None else min(len(walls), cut.rounds)
    if cut.budget is not None:
        elapsed = 0.0
        for i, wall in enumerate(walls[:k]):
            if i >= MIN_ROUNDS and elapsed >= cut.budget:
                return i
            elapsed += wall
    return k


def _trimmed_windows(windows: list[dict[str, Any]], k: int) -> list[dict[str, Any]]:
    """A process's windows up to its first k kept rounds (the last one cut short where it held more)."""
    trimmed, left = [], k
    for w in windows:
        if left <= 0:
            break
        if w["kept"] and w["rounds"] > left:
            share = left / w["rounds"]
            w = w | {"rounds": left, "wall_s": w["wall_s"] * share, "own_cpu_s": w["own_cpu_s"] * share}
        trimmed.append(w)
        left -= w["rounds"] if w["kept"] else 0
    return trimmed


def _walls(record: dict[str, Any], processes: int, kept: float) -> tuple[dict[str, float], float] | None:
    """A process's share of the merged walls for the `kept` share of its rounds."""
    if "sampled_s" not in record:
        return None
    share = kept / processes
    return {name: s * share for name, s in record["sampled_s"].items()}, record["rounds_s"] * share


def _process_results(doc: dict[str, Any], cut: Cut) -> list[dict[str, Any]]:
    """The merged result split into each process's own, cut to its kept rounds; what merge summed without keeping per
    process is shared out evenly or kept whole."""
    n = doc["processes"]
    per = [copy.deepcopy(doc) | {"processes": 1} for _ in range(n)]
    for mode, record in doc["machine"].items():
        entries = {name: v["modes"][mode] for name, v in doc["variants"].items() if mode in v["modes"]}
        counts = [len(p["samples_s"]) for p in next(iter(entries.values()))["processes"]]
        windows = _process_windows(record["windows"], counts)
        keep = [rounds_kept(_round_walls(w), cut) for w in windows]
        yardsticks = _split(record["yardstick_s"], counts)
        places = {name: _split(where, counts) for name, where in record["places"].items()}
        contended = {name: _split(entry["contended"], counts) for name, entry in entries.items()}
        staged = {name: {key: _split(entry[key], counts) for key in stats.STAGE_SECONDS.values() if key in entry}
                  for name, entry in entries.items()}
        for i, result in enumerate(per):
            k = keep[i]
            result["machine"][mode] = machine_summary(
                _trimmed_windows(windows[i], k), record["policy"], record["load_average"] if i == 0 else [],
                record["cpu_mhz"] if i == 0 else [], record["waits"] if i == 0 else [], yardsticks[i][:k],
                {name: where[i][:k] for name, where in places.items()}, _walls(record, n, k / max(1, counts[i])))
            for name, entry in entries.items():
                own = entry["processes"][i]
                result["variants"][name]["modes"][mode] = entry | own | {
                    "samples_s": own["samples_s"][:k], "summary": stats.summarize(own["samples_s"][:k]),
                    "contended": contended[name][i][:k],
                    "compiles_in_timed_region": round(entry["compiles_in_timed_region"] * k / sum(counts)),
                } | {key: split[i][:k] for key, split in staged[name].items()} | (
                    {"step_seconds": {s: xs[:math.ceil(len(xs) * k / max(1, counts[i]))]
                                      for s, xs in own["step_seconds"].items()}} if "step_seconds" in own else {})
                result["variants"][name]["modes"][mode].pop("processes", None)
    for result in per:
        for variant in result["variants"].values():
            for key in ("calls", "compiles_in_warmup"):  # merge sums them: each process's share
                variant[key] = round(variant[key] / n)
        result["comparisons"] = [
            {k: c[k] for k in ("variant", "baseline", "mode")}
            | stats.paired_comparison(side_samples_of(result, c["variant"], c["mode"]),
                                      side_samples_of(result, c["baseline"], c["mode"]),
                                      of_medians=stats.is_difference(c["variant"], c["baseline"]))
            for c in doc["comparisons"]]
    return per


def thin(doc: dict[str, Any], cut: Cut) -> dict[str, Any]:
    """A merged result as it would have been with the cut."""
    n = doc.get("processes", 1)
    if n < 2:
        raise ValueError(f"{doc['config_id']}: a result of one process keeps no per-process samples to cut")
    processes = cut.processes if cut.processes is not None else tuple(range(n))
    if not processes or min(processes) < 0 or max(processes) >= n or len(set(processes)) != len(processes):
        raise ValueError(f"{doc['config_id']}: processes {processes} of {n}")
    per = _process_results(doc, cut)
    return merge([per[i] for i in processes]) | {"worker_measure_s": None}  # the uncut workers': no split of it


def judged_thinned(run: Path, out: Path, cuts: dict[str, Cut]) -> pd.DataFrame:
    """Every study of a finished run aggregated into `out` with its cut, judged beside its published verdicts."""
    studies = sorted(p.name for p in (run / "results" / "runs").iterdir() if p.is_dir())
    unknown = sorted(set(cuts) - set(studies))
    if unknown:
        raise ValueError(f"cuts for {unknown}: the run measured {studies}")
    shutil.rmtree(out, ignore_errors=True)
    for study_dir in sorted((run / "results" / "runs").iterdir()):
        study = study_dir.name
        kept = out / "results" / study
        kept.mkdir(parents=True)
        for path in sorted(study_dir.glob("*.json")):
            doc = json.loads(path.read_text())
            (kept / path.name).write_text(json.dumps(thin(doc, cuts[study]) if study in cuts else doc))
        overheads = sorted(map(str, (run / "results" / "tables" / "overhead" / study).glob("*.csv")))
        tables = aggregate(sorted(map(str, kept.glob("*.json"))), overheads)
        for name, table in tables.items():
            path = Path(table_paths(out, study)[name])
            path.parent.mkdir(parents=True, exist_ok=True)
            results.write_csv(str(path), table)
    shutil.copy(run / "reports" / "report.md", out / "report.md")
    return rejudged(out)


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cuts = {}
    for arg in argv[2:]:
        study, _, cut = arg.partition(":")
        cuts[study] = Cut.parse(cut)
    table = judged_thinned(Path(argv[0]), Path(argv[1]), cuts)
    print(f"{int(table.changed.sum())} of {len(table)} verdicts changed (published -> with the cut); "
          f"with the cut: {table.now.value_counts().to_dict()}\n")
    print(table.to_markdown(index=False))
    return 0
