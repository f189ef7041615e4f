"""One `lockstep` job: a configuration timed in every side's environment at once."""

from __future__ import annotations

import json
import logging
import tempfile
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .. import registry, results, revisions, sources
from ..across_runs.comparison.lockstep import side_by_side
from ..across_runs.settings import Lockstep
from ..harness.lockstep import ProcessWorker, Side, in_lockstep
from ..harness.stats import enough_within, relative_half_width

log = logging.getLogger(__name__)
WORKER = "jaxpitfalls.jobs.lockstep_worker"  # each side's warm worker, run by the side's Python


def sides_of(settings: Lockstep, study: str, commits: dict[str, str]) -> list[Side]:
    """The config's `compare.sides` in order, the first the reference; an empty `python` is this environment's; a
    revision side times the benchmark file at `commits` (resolved at parse)."""
    return [Side(name, side.python or Side.python,
                 revisions.side_env(study, name, commits[name], side.env) if side.revision else dict(side.env))
            for name, side in settings.sides.items()]


def _recorded(side: Side, revision: str) -> dict[str, Any]:
    """A side as its result records it."""

    if not revision:
        return {"python": side.python, "env": side.env}
    return {"python": side.python, "revision": revision,
            "env": {k: v for k, v in side.env.items() if k not in (sources.BENCHMARK_FILES, sources.BENCHMARK_COMMITS)}}


def precise_enough(study: str, config_id: str, target: float,
                   share: float = 1.0) -> Callable[[dict[str, Any]], bool] | None:
    """Whether `share` of the rows (later sides against the first; every one at 1) are within `target` of their
    ratio either way; None without a target; fewer than two processes never suffice."""
    if not target:
        return None

    def enough(timed: dict[str, Any]) -> bool:
        rows = side_by_side({"study": study, "config_id": config_id, "timed": timed})
        half = relative_half_width(rows).fillna(np.inf)
        log.info("lockstep %s: %d of %d rows within +-%.1f%% after %d process(es) (widest +-%.1f%%); target: "
                 "%.0f%% of them", config_id, (half <= target).sum(), len(half), 100 * target,
                 len(timed["processes"]), 100 * half.max(), 100 * share)
        return enough_within(half.tolist(), target, share)

    return enough


def run_lockstep(study: str, conf: dict[str, Any], settings: dict[str, Any], model_spec: dict[str, Any],
                 inputs: dict[str, str], compare: Lockstep, out_path: str, log_path: str = "",
                 jax_cache_dir: str = "", commits: dict[str, str] | None = None) -> dict[str, Any]:
    """Time `conf` in lockstep across `compare`'s sides; workers share the persistent compilation cache."""
    sides = sides_of(compare, study, commits or {})
    log.info("%s %s: sides %s in lockstep, %d process(es) x %d rounds x %d samples per block", study, conf["id"],
             ", ".join(s.name for s in sides), compare.processes, compare.rounds, compare.samples_per_block)
    start = time.perf_counter()
    request = {"study": study, "conf": conf, "settings": settings, "model_spec": model_spec, "inputs": inputs,
               "variants": list(compare.variants)}
    with tempfile.TemporaryDirectory(prefix="lockstep-") as tmp:
        request_path = Path(tmp) / "request.json"
        request_path.write_text(json.dumps(request))
        worker = ["-m", WORKER, str(request_path), log_path, jax_cache_dir]
        timed = in_lockstep(sides, lambda side, process: ProcessWorker(side, worker), compare.processes,
                            compare.rounds, compare.samples_per_block, seed=zlib.crc32(conf["id"].encode()),
                            max_busy_share=registry.spec(study).timing.of(settings).sampling.max_busy_share,
                            enough=precise_enough(study, conf["id"], compare.target_precision, compare.target_share),
                            most=compare.most_processes)
    doc = {"study": study, "config_id": conf["id"], "config": conf, "settings": settings, "timed": timed,
           "sides": {s.name: _recorded(s, compare.sides[s.name].revision) for s in sides},
           "lockstep": compare.recorded(), "job_seconds": time.perf_counter() - start}
    results.write_text(out_path, json.dumps(doc, indent=1))
    log.info("%s %s: done in %.1f s -> %s", study, conf["id"], doc["job_seconds"], out_path)
    return doc
