"""A study's timing results as a pyperf suite (`<configuration>/<mode>/<variant>`, a run per worker process), so
pyperf's tools read them. The A/A twin is left out."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ...harness.stats import is_twin
from ...results import read_result, write_atomically


def _processes(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """A mode's entry per worker process (a job timed in one process is its own)."""
    return entry.get("processes") or [entry]


def _code(git: dict[str, Any] | None) -> str | None:
    """A commit as `git describe` shortens it, `+dirty` where the tree had changes."""
    return f"{git['commit'][:12]}{'+dirty' if git.get('dirty') else ''}" if git and git.get("commit") else None


def _metadata(doc: dict[str, Any], name: str, calls: int) -> dict[str, Any]:
    """A pyperf run's metadata: the environment, the code timed and the warm-up calls (their times not kept) as
    the result records them; unknown values left out, as pyperf refuses empty ones."""
    env, settings = doc["environment"], doc.get("settings") or {}
    study_code = env.get("study_code") or {}
    found = {"name": name, "loops": calls, "unit": "second", "date": env["timestamp"],
             "python_version": env["python"], "cpu_model_name": env["cpu_model"], "cpu_count": env.get("cpu_count"),
             "hostname": (env.get("placement") or {}).get("host"), "jax_backend": env["backend"],
             "jax_device": env["device_kind"], "device_count": env.get("device_count"),
             "xla_flags": env.get("xla_flags"), "commit": _code(env.get("git")),
             "study_code": (study_code.get("sha256") or "")[:12] or _code(study_code.get("git")),
             "warmup_calls": settings.get("warmup_steps")}
    found |= {f"{package}_version": version for package, version in env["packages"].items()}
    found = {key: " ".join(value.split()) if isinstance(value, str) else value for key, value in found.items()}
    return {key: value for key, value in found.items() if value not in (None, "")}  # one line, never blank


def benchmarks(doc: dict[str, Any]):
    """Every (mode, variant) of one result document as a pyperf Benchmark."""
    import pyperf

    for variant, record in doc["variants"].items():
        if is_twin(variant):
            continue
        for mode, entry in record["modes"].items():
            name = f"{doc['config_id']}/{mode}/{variant}"
            compiled = {"job_compiles_in_timed_region": entry.get("compiles_in_timed_region", 0)}  # every process
            if entry.get("measures_compilation") or entry.get("demonstration"):  # a first run, RECOMPILES
                compiled["compiles_on_purpose"] = "yes"
            compiled |= {f"xla_planned_{part}": record["program_memory"][part]  # a benchmark file's variant
                         for part in ("total_bytes", "temporary_bytes", "devices") if "program_memory" in record}
            runs = [pyperf.Run(p["samples_s"], metadata=_metadata(doc, name, p["calls_per_sample"]) | compiled,
                               collect_metadata=False) for p in _processes(entry)]
            yield pyperf.Benchmark(runs)


def write_suite(docs: Iterable[dict[str, Any]], path: str) -> int:
    """Every result's benchmarks as one pyperf suite at `path`, atomically; returns how many benchmarks."""
    import pyperf

    found = [b for doc in docs for b in benchmarks(doc)]
    suite = pyperf.BenchmarkSuite(found)
    write_atomically(path, lambda tmp: suite.dump(tmp, compact=False, replace=True))
    return len(found)


def main(argv: list[str]) -> int:
    """`jaxpitfalls export pyperf RESULTS OUT.json`: a run's timing results as one pyperf suite."""
    parser = argparse.ArgumentParser(prog="jaxpitfalls export pyperf",
                                     description="a run's timing results as one pyperf suite")
    parser.add_argument("results", help="a run's folder (or its results/), holding runs/<study>/<configuration>.json")
    parser.add_argument("out", help="the suite to write, e.g. run.pyperf.json")
    args = parser.parse_args(argv)
    root = Path(args.results)
    paths = sorted(root.glob("runs/*/*.json")) or sorted(root.glob("results/runs/*/*.json"))
    if not paths:
        sys.exit(f"{root}: no timing results (runs/<study>/<configuration>.json) under it")
    print(f"{write_suite((read_result(p) for p in paths), args.out)} benchmarks of {len(paths)} jobs -> {args.out}")
    return 0
