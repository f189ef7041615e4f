"""One `history_run` job: a configuration timed with one release's interpreter (release_env.py), as `run_study` does."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from ..harness.processes import ProcessesDisagree
from ..harness.workers import WorkerFailed
from .release_env import write_json
from .study import run_configuration

log = logging.getLogger(__name__)


def measure_release(release: str, package: str, status_path: str, study: str, conf: dict[str, Any],
                    settings: dict[str, Any], model_spec: dict[str, Any], inputs: dict[str, str], out_path: str,
                    log_path: str, jax_cache_dir: str) -> None:
    """Time one configuration with the release's interpreter; a missing environment or failed measurement
    gives a result saying why, so the history names this job instead of losing the run."""
    status = json.loads(Path(status_path).read_text())
    if not status["ok"]:
        write_json(out_path, {"release": release, "study": study, "config_id": conf["id"],
                                "unavailable": status["reason"]})
        return
    try:
        run_configuration(study, conf, settings, model_spec, inputs, out_path, log_path, jax_cache_dir,
                          python=status["python"], record=(package,))
    except (WorkerFailed, ProcessesDisagree) as e:  # one job's measurement, not the release: the others stand
        log.error("%s %s job lost: %s", release, conf["id"], e)
        write_json(out_path, {"release": release, "study": study, "config_id": conf["id"],
                              "lost": f"{type(e).__name__}: {e}"})
