"""One `pyperf_pair` calibration job: pyperf at its defaults run twice on a lockstep worker's callable, an A/A pair
beside the lockstep's, wall time including process starts."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import results
from ..across_runs.settings import PYPERF_OPTIONS
from ..harness.workers import tied_to_job
from ..runtime import checkout_env

log = logging.getLogger(__name__)
WORKER = "jaxpitfalls.jobs.pyperf_worker"
RUNS = ("a", "a2")  # the same environment twice: any change pyperf finds is a false alarm
PREPARE_KEY = "jaxpitfalls_prepare_s"  # each worker's preparation of the study, in its run's metadata


def values_of(path: Path) -> dict[str, Any]:
    """A pyperf result's values (s per sample) per worker, with loops, summary, `timed_s` and `prepare_s`."""
    import pyperf

    bench = pyperf.Benchmark.load(str(path))
    groups = [list(run.values) for run in bench.get_runs() if run.values]
    prepare = sum(run.get_metadata().get(PREPARE_KEY, 0.0) for run in bench.get_runs())
    return {"values_s": groups, "loops": bench.get_loops(), "mean_s": bench.mean(), "stdev_s": bench.stdev(),
            "timed_s": bench.get_total_duration(), "prepare_s": prepare, "pyperf": pyperf.__version__}


def run_pyperf(study: str, conf: dict[str, Any], settings: dict[str, Any], model_spec: dict[str, Any],
               inputs: dict[str, str], mode: str, variant: str, out_path: str, log_path: str = "",
               jax_cache_dir: str = "", options: Sequence[str] = ()) -> dict[str, Any]:
    """Both pyperf runs of `variant` in `mode` at `conf` as one JSON; `options`: beyond pyperf's defaults."""
    request = {"study": study, "conf": conf, "settings": settings, "model_spec": model_spec, "inputs": inputs,
               "variants": [variant]}  # samplers prepare no variant they need not (dispatch: it and the floor)
    runs = {}
    with tempfile.TemporaryDirectory(prefix="pyperf-") as tmp:
        request_path = Path(tmp) / "request.json"
        request_path.write_text(json.dumps(request))
        for name in RUNS:
            out = Path(tmp) / f"{name}.json"
            log.info("%s %s: pyperf run %s of %s/%s", study, conf["id"], name, mode, variant)
            start = time.perf_counter()
            env, fds = tied_to_job(checkout_env())
            subprocess.run([sys.executable, "-m", WORKER, str(request_path), mode, variant, log_path, jax_cache_dir,
                            *PYPERF_OPTIONS, *options, "-o", str(out)], check=True, env=env, pass_fds=fds)
            runs[name] = values_of(out) | {"wall_s": time.perf_counter() - start}
    doc = {"study": study, "config_id": conf["id"], "mode": mode, "variant": variant,
           "options": [*PYPERF_OPTIONS, *options], "runs": runs}
    results.write_text(out_path, json.dumps(doc, indent=1))
    log.info("%s %s: pyperf pair in %.0f s -> %s", study, conf["id"], sum(r["wall_s"] for r in runs.values()),
             out_path)
    return doc


def gather(paths: Sequence[str], out_path: str) -> list[dict[str, Any]]:
    """The pairs at `paths`, in order, as one JSON list: what a calibration keeps and `make calibrate-pyperf`
    publishes."""
    pairs = [json.loads(Path(p).read_text()) for p in paths]
    results.write_text(out_path, json.dumps(pairs, indent=1))
    return pairs
