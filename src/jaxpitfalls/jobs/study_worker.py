"""A fresh worker process of a `run_study` job: measure once, answer with the result.

`python -m jaxpitfalls.jobs.study_worker REQUEST.json LOG_PATH JAX_CACHE_DIR` (harness/workers.py protocol): one
reply, its result or why it failed; its log lines go to the job's log."""

from __future__ import annotations

import json
import sys

from .. import runtime
from ..harness.workers import answer_first, reply_channel
from .study import measure_here


def main(request_path: str, log_path: str, jax_cache_dir: str) -> None:
    replies = reply_channel()
    runtime.start(log_path or None, jax_cache_dir or None, append=True)

    def measure() -> dict:
        with open(request_path) as f:
            return measure_here(json.load(f))

    answer_first(replies, measure, f"study worker: measuring {request_path}")


if __name__ == "__main__":
    main(*sys.argv[1:4])
