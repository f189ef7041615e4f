"""One `run_study` job: run a configuration's variants, attach provenance, validate, write atomically."""

from __future__ import annotations

import json
import logging
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .. import registry, results
from ..contract.settings import Timing
from ..harness.processes import half_widths, merge
from ..harness.stats import enough_within
from ..harness.workers import PipeWorker, WorkerFailed
from .study_worker import measure_here

log = logging.getLogger(__name__)
WORKER = "jaxpitfalls.jobs.study_worker"


def _enough(measured: list[dict[str, Any]], timing: Timing) -> bool:
    """Whether the processes so far suffice: `processes`, then `target_precision` reached by `target_share` of the
    ratios (the widest logged: what a further process is for), or `max_processes` timed."""
    if len(measured) < timing.processes or not timing.target_precision:
        return len(measured) >= timing.processes
    if measured[0]["doc"].get("demonstration"):
        log.info("a demonstration keeps its %d processes: its ratios are wide by design", len(measured))
        return True
    half = half_widths([m["doc"] for m in measured])
    wide = sorted(((h, name) for name, h in half.items() if not h <= timing.target_precision), reverse=True)
    log.info("%d of %d ratios within +-%.1f%% after %d process(es)%s", len(half) - len(wide), len(half),
             100 * timing.target_precision, len(measured),
             "; the widest: " + ", ".join(f"{name} +-{100 * h:.1f}%" for h, name in wide[:3]) if wide else "")
    return len(measured) >= timing.most_processes or enough_within(list(half.values()), timing.target_precision,
                                                                   timing.target_share)


def measure_in_workers(request: dict[str, Any], timing: Timing, log_path: str | None, jax_cache_dir: str,
                       python: str = sys.executable) -> list[dict[str, Any]]:
    """Fresh worker processes, one after another (each takes the machine), their replies timed from their start;
    `python`: their interpreter."""

    measured: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="study-workers-") as tmp:
        request_path = Path(tmp) / "request.json"
        request_path.write_text(json.dumps(request))
        while not _enough(measured, timing):
            i, most = len(measured), timing.most_processes
            of = f"{i + 1} of {timing.processes}" if most == timing.processes else (  # "3 of 2-3" read as a typo,
                f"{i + 1} ({timing.processes} planned, up to {most} for measure.target_precision)")  # "4 of 3" too
            log.info("%s %s: process %s", request["study"], request["conf"]["id"], of)
            began = time.perf_counter()
            worker = PipeWorker(f"worker process {of}", python, {},
                                ["-m", WORKER, str(request_path), log_path or "", jax_cache_dir])
            try:
                measured.append(worker.first | {"reply_s": time.perf_counter() - began})
            finally:
                code = worker.close()
            if code != 0:
                raise WorkerFailed(f"{worker.name}: exited with code {code} after answering; its error is in the log")
    return measured


def run_configuration(
    study: str,
    conf: dict[str, Any],
    settings: dict[str, Any],
    model_spec: dict[str, Any],
    inputs: dict[str, str],
    out_path: str,
    log_path: str | None = None,
    jax_cache_dir: str = "",
    python: str | None = None,
    record: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Measure one configuration; the JSON is written only if every check passed. Its hash covers only what
    determines the result, so a new sweep point changes no result. `record`: extra package versions to record."""
    log.info("%s %s: model %s, settings %s", study, conf["id"], conf.get("model", "(built by setup)"), settings)
    start = time.perf_counter()
    request = {"study": study, "conf": conf, "settings": settings, "model_spec": model_spec, "inputs": inputs,
               "record": list(record)}
    timing = registry.spec(study).timing.of(settings)  # refuses a key the study does not read
    measured = ([measure_here(request)] if timing.processes == 1 and python is None
                else measure_in_workers(request, timing, log_path, jax_cache_dir, python or sys.executable))
    doc = merge([m["doc"] for m in measured])
    doc |= {
        "study": study,
        "config_id": conf["id"],
        "config": conf,
        "settings": settings,
        "job_seconds": time.perf_counter() - start,
        "worker_starts_s": sum(m["reply_s"] - m["measure_s"] for m in measured if "reply_s" in m),
        "worker_measure_s": sum(m["measure_s"] for m in measured),
        "model_spec": model_spec,
        "environment": measured[0]["environment"],
    }
    doc = results.write_result(out_path, doc)
    log.info("%s %s: done in %.1f s -> %s", study, conf["id"], doc["job_seconds"], out_path)
    return doc
