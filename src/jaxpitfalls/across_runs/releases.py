"""What the release history runs (config `history`), from the validated config alone, JAX-free: its releases'
environments (pins.py), its timing jobs and their order."""

from __future__ import annotations

import random
import zlib
from typing import Any

from .. import pins, plan
from .settings import History


def releases(config: dict[str, Any]) -> list[str]:
    """The releases to time, oldest first (the order steps are looked for in)."""
    return list(config["history"]["versions"])


def requirements(config: dict[str, Any], release: str) -> list[str]:
    """pip's lines for a release's environment (pins.requirement_lines)."""
    return requirements_of(History.of(config["history"]), release)


def requirements_of(history: History, release: str) -> list[str]:
    """`requirements` from the history's settings."""
    return pins.requirement_lines(history.package, release, history.shared_pins, history.pins.get(release, {}))


RUN = "results/history/runs/{release}/job{job}/{config}.json"


def runs(config: dict[str, Any]) -> list[str]:
    """Every timing job's result (`history.repeats` jobs per release and configuration)."""
    return [RUN.format(release=r, job=job, config=c) for job in _jobs(config) for r, c in _places(config)]


def _places(config: dict[str, Any]) -> list[tuple[str, str]]:
    return [(release, conf["id"]) for release in releases(config) for conf in plan.history_configurations(config)]


def _jobs(config: dict[str, Any]) -> range:
    return range(1, History.of(config["history"]).repeats + 1)


def run_order(config: dict[str, Any]) -> list[str]:
    """The timing jobs in run order, in blocks (one job per release and configuration), the first shuffled, each next
    one reversed: a machine drift adds alike to every release's mean instead of reading as a step. Seeded by what is
    timed, so a rerun keeps the order."""
    places = _places(config)
    random.Random(zlib.crc32("|".join(f"{r}/{c}" for r, c in places).encode())).shuffle(places)
    return [RUN.format(release=r, job=job, config=c) for job in _jobs(config)
            for r, c in (places if job % 2 else places[::-1])]


def run_priorities(config: dict[str, Any]) -> dict[str, float]:
    """Each timing job's priority in (0, 1] by run_order, below models (2) and environments (1.5), so those are ready
    first and the order holds."""
    order = run_order(config)
    return {run: (len(order) - i) / len(order) for i, run in enumerate(order)}
