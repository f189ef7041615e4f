"""One `run_study` job: run a configuration's variants, attach provenance, validate, write atomically."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from . import results, studies
from .harness import environment

log = logging.getLogger(__name__)


def run_configuration(
    study: str,
    conf: dict[str, Any],
    settings: dict[str, Any],
    model_spec: dict[str, Any],
    inputs: dict[str, str],
    out_path: str,
) -> dict[str, Any]:
    """Measure one configuration; the JSON is written only if every check passed.

    Its config hash covers what determines this result (configuration, measurement settings, model spec),
    not the whole config file: adding a sweep point changes no existing result. `inputs` are the job's
    input directories by name (`model`, and `data` for studies that read the corpus).
    """
    log.info("%s %s: model %s, settings %s", study, conf["id"], conf["model"], settings)
    start = time.perf_counter()
    doc = studies.load(study).run(conf, inputs, settings)
    doc |= {
        "study": study,
        "config_id": conf["id"],
        "config": conf,
        "settings": settings,
        "job_seconds": time.perf_counter() - start,
        "model_spec": model_spec,
        "environment": environment.describe(
            {"config": conf, "settings": settings, "model": model_spec}, Path(__file__).resolve().parents[2]
        ),
    }
    results.write_result(out_path, doc)
    log.info("%s %s: done in %.1f s -> %s", study, conf["id"], doc["job_seconds"], out_path)
    return doc
