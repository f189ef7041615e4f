"""The history's results as its jobs wrote them, for its report and for the run's end."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def cause_line(reason: str) -> str:
    """A failure's line that says why: the step that failed with its last error line (pip warns before it errs)."""
    lines = reason.strip().splitlines()
    step, _, first = lines[0].partition(": ")
    errors = [line for line in [first, *lines[1:]] if "error" in line.lower()]
    return f"{step}: {errors[-1].strip()}" if errors and first and errors[-1] != first else lines[0]


def read_runs(run_paths: Sequence[str], releases: list[str]) -> tuple[dict[str, list[dict[str, Any]]],
                                                                      dict[str, str], dict[tuple[str, int, str], str]]:
    """Measured (release -> its jobs' results, in order), unavailable (release -> why: not installed or
    imported, or every job lost) and lost jobs ((release, job, config_id) -> why)."""
    from ... import results

    measured: dict[str, list[dict[str, Any]]] = {}
    unavailable, lost = {}, {}
    for path in sorted(run_paths):
        release, job = Path(path).parents[1].name, int(Path(path).parent.name.removeprefix("job"))
        doc = results.require_format(json.loads(Path(path).read_text()), path)  # validated when it was written
        if "unavailable" in doc:
            unavailable[release] = doc["unavailable"]
        elif "lost" in doc:
            lost[release, job, doc["config_id"]] = doc["lost"]
        else:
            measured.setdefault(release, []).append(doc | {"job": job})
    for release in releases:  # a release that lost every job has no result, as one that did not install
        reasons = [why for (lost_release, *_), why in lost.items() if lost_release == release]
        if reasons and release not in measured and release not in unavailable:
            unavailable[release] = f"every job lost ({reasons[0]})"
    return {r: measured[r] for r in releases if r in measured}, unavailable, lost


def unmeasured_note(config: dict[str, Any]) -> str:
    """For the run's end: the releases without a result and the jobs lost, each with why ("" if none)."""
    from .. import releases

    package, runs = config["history"]["package"], [p for p in releases.runs(config) if Path(p).is_file()]
    _, unavailable, lost = read_runs(runs, releases.releases(config))
    lines = [f"  {package} {release}: {cause_line(why)}" for release, why in unavailable.items()]
    lines += [f"  {package} {release} job {job} ({config_id}): {cause_line(why)}"
              for (release, job, config_id), why in lost.items() if release not in unavailable]
    return "\n".join(["The release history has releases without a result or jobs lost (reports/history.md):",
                      *lines]) if lines else ""
