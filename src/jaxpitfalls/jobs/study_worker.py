"""A fresh worker process of a `run_study` job (`measure.processes` > 1): measure once, write the result.

`python -m jaxpitfalls.jobs.study_worker REQUEST.json OUT.json LOG_PATH JAX_CACHE_DIR`; XLA_FLAGS come from the
job's environment, already set. Its log lines are appended to the job's log file.
"""

from __future__ import annotations

import json
import sys

from .. import results, runtime
from .study import measure_here


def main(request_path: str, out_path: str, log_path: str, jax_cache_dir: str) -> None:
    runtime.start(log_path or None, jax_cache_dir or None, append=True)
    with open(request_path) as f:
        request = json.load(f)
    results.write_text(out_path, json.dumps(measure_here(request)))


if __name__ == "__main__":
    main(*sys.argv[1:5])
