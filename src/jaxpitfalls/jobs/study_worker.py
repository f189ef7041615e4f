"""A fresh worker process of a `run_study` job: measure once, answer with the result.

`python -m jaxpitfalls.jobs.study_worker REQUEST.json LOG_PATH JAX_CACHE_DIR` (harness/workers.py protocol): one
reply, its result or why it failed. It imports only what measuring needs: each worker pays its imports."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from .. import registry, runtime
from ..harness import environment
from ..harness.workers import answer_first, leave, reply_channel


def measure_here(request: dict[str, Any]) -> dict[str, Any]:
    """Measure here: the study's result, its environment and the seconds it took after the imports."""
    study = registry.measure(request["study"])  # its code imported: JAX, the models' libraries
    settings = registry.spec(request["study"]).timing.of(request["settings"])
    start = time.perf_counter()
    doc = study.run(request["conf"], request["inputs"], settings)
    return {"doc": doc, "environment": environment.of_request(request), "measure_s": time.perf_counter() - start}


def main(request_path: str, log_path: str, jax_cache_dir: str) -> None:
    replies = reply_channel()
    runtime.start(log_path or None, jax_cache_dir or None, append=True)

    def measure() -> dict:
        with open(request_path) as f:
            return measure_here(json.load(f))

    answer_first(replies, measure, f"study worker: measuring {request_path}")
    leave()


if __name__ == "__main__":
    main(*sys.argv[1:4])
