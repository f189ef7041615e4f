"""What the release history runs (config `history`), from the validated config alone, JAX-free. Unpinned releases get
a JAX, jaxlib and optax their equinox imports with (DEFAULT_PINS), so that neighbours differ in the package alone.
"""

from __future__ import annotations

import random
import zlib
from typing import Any

from packaging.version import Version

from .. import plan
from .settings import History

# (package, first release of the row) -> the pins of its environments, until the next row of that package.
# Checked by building each: equinox up to 0.11.4 sets jax.core.pp_eqn_rules, removed in jax 0.4.34; 0.11.5 to
# 0.11.10 import on 0.4.34 (0.11.7 uses jax.core.Primitive, removed after it: envs/jax-0.4.34.txt); from 0.11.11
# on equinox requires jax >= 0.4.38.
DEFAULT_PINS: dict[tuple[str, str], dict[str, str]] = {
    ("equinox", "0.11.0"): {"jax": "0.4.31", "jaxlib": "0.4.31", "optax": "0.2.3"},
    ("equinox", "0.11.5"): {"jax": "0.4.34", "jaxlib": "0.4.34", "optax": "0.2.3"},
    ("equinox", "0.11.11"): {"jax": "0.4.38", "jaxlib": "0.4.38", "optax": "0.2.4"},
}


# What a timing job imports besides JAX and jaxlib (jobs/release_env.IMPORTS), unpinned unless the swept package,
# the table or the config pins it: the studies' models and training step, the arrays and the model files.
LEAN = ("equinox", "optax", "numpy", "safetensors")
# The oldest JAX a benchmark file's jobs run on: its signature reads each first call's programs through
# `jax_dump_ir_modes` (benchfile/signature.py), which older JAX lacks.
FILE_JAX = "0.7.0"


def file_jax_problems(config: dict[str, Any]) -> list[str]:
    """Releases whose environment pins a JAX a benchmark file's jobs cannot run on (the history is a file's)."""
    problems = []
    for release in (r for r in releases(config) if r not in config["history"]["pythons"]):  # yours: not built
        jax = next((line.split("==")[1] for line in requirements(config, release) if line.startswith("jax==")), None)
        if jax and Version(jax) < Version(FILE_JAX):
            problems.append(f"config history.versions: {config['history']['package']} {release} gets jax {jax}, and "
                            f"a benchmark file's jobs need jax {FILE_JAX} or newer (their check that variants differ "
                            "reads each program JAX compiles): pin one in history.with or history.pins")
    return problems


def releases(config: dict[str, Any]) -> list[str]:
    """The releases to time, oldest first (the order steps are looked for in)."""
    return list(config["history"]["versions"])


def default_pins(package: str, release: str) -> dict[str, str]:
    """The default table's row for a release (none for a package or release it does not know)."""
    rows = sorted(((Version(first), pins) for (name, first), pins in DEFAULT_PINS.items() if name == package),
                  key=lambda row: row[0])
    chosen: dict[str, str] = {}
    for first, pins in rows:
        if Version(release) >= first:
            chosen = pins
    return dict(chosen)


def requirements(config: dict[str, Any], release: str) -> list[str]:
    """pip's lines for a release's environment: the release, its pins (own over `with` over the table), the rest
    unpinned (`LEAN`)."""
    return requirements_of(History.of(config["history"]), release)


def requirements_of(history: History, release: str) -> list[str]:
    """`requirements` from the history's settings."""
    package = history.package
    pins = default_pins(package, release) | dict(history.shared_pins) | dict(history.pins.get(release, {}))
    pinned = {package: release} | {name: version for name, version in pins.items() if name != package}
    return [f"{name}=={version}" for name, version in pinned.items()] + [p for p in LEAN if p not in pinned]


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
