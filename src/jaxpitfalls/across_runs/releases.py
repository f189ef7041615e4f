"""What the release history runs (config `history`), from the validated config alone: the releases in order,
each release's pins, the configurations timed in each. JAX-free, like the plan it sits beside.

Each release needs a JAX it imports on. Unless the config pins one (`history.with` for every release,
`history.pins` for one), a documented default table chooses it: the newest JAX, jaxlib and optax of their time
that the release's range of equinox supports, so that neighbouring releases differ in the package alone
wherever the table allows (docs/history.md).
"""

from __future__ import annotations

import random
import zlib
from typing import Any

from packaging.version import Version

from .. import plan
from ..contract import naming
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


# What a timing job imports besides JAX, jaxlib, the swept package and optax: the arrays and the model files
# (equinox brings its own requirements, jaxtyping among them).
LEAN = ("numpy", "safetensors")


def releases(config: dict[str, Any]) -> list[str]:
    """The releases to time, oldest first (the order steps are looked for in)."""
    return list(config["history"]["versions"])


def default_pins(package: str, release: str) -> dict[str, str]:
    """The default table's row for a release (none for a package or a release older than the table knows)."""
    rows = sorted(((Version(first), pins) for (name, first), pins in DEFAULT_PINS.items() if name == package),
                  key=lambda row: row[0])
    chosen: dict[str, str] = {}
    for first, pins in rows:
        if Version(release) >= first:
            chosen = pins
    return dict(chosen)


def requirements(config: dict[str, Any], release: str) -> list[str]:
    """pip's lines for one release's environment: the release, its pins (its own over `with` over the default
    table), and the rest of what a timing job imports, unpinned (`LEAN`)."""
    history = History.of(config["history"])
    package = history.package
    pins = default_pins(package, release) | dict(history.shared_pins) | dict(history.pins.get(release, {}))
    pinned = {package: release} | {name: version for name, version in pins.items() if name != package}
    return [f"{name}=={version}" for name, version in pinned.items()] + [p for p in LEAN if p not in pinned]


def configurations(config: dict[str, Any]) -> list[dict[str, Any]]:
    """The configurations of the history's study timed in every release: its base, or all of them."""
    confs = plan.configurations(config["studies"][config["history"]["study"]])
    return confs if config["history"]["configs"] == "all" else [c for c in confs if naming.is_base(c)]


RUN = "results/history/runs/{release}/job{job}/{config}.json"


def runs(config: dict[str, Any]) -> list[str]:
    """Every timing job's result (`history.repeats` jobs per release and configuration)."""
    return [RUN.format(release=r, job=job, config=c) for job in _jobs(config) for r, c in _places(config)]


def _places(config: dict[str, Any]) -> list[tuple[str, str]]:
    """Each release and configuration the history times, in the releases' order."""
    return [(release, conf["id"]) for release in releases(config) for conf in configurations(config)]


def _jobs(config: dict[str, Any]) -> range:
    return range(1, History.of(config["history"]).repeats + 1)


def run_order(config: dict[str, Any]) -> list[str]:
    """The timing jobs in the order they run, in blocks of one job a release and configuration: the first
    block shuffled, each next one the one before reversed. A drift of the machine over the run (a slower hour)
    then adds the same to every release's mean of two jobs instead of reading as a step, and the two jobs of a
    release lie a block apart, not back to back. The seed is made of what is timed: a rerun keeps the order and a
    reader can redo it. Each result's timestamp records the order it ran in."""
    places = _places(config)
    random.Random(zlib.crc32("|".join(f"{r}/{c}" for r, c in places).encode())).shuffle(places)
    return [RUN.format(release=r, job=job, config=c) for job in _jobs(config)
            for r, c in (places if job % 2 else places[::-1])]


def run_priorities(config: dict[str, Any]) -> dict[str, float]:
    """Each timing job's priority, in (0, 1]: the first in run_order the highest, all of them below model
    preparation's (2) and the environments' (release_env: 1.5), so every model and environment is ready before
    the first timing job and their priorities alone set the order."""
    order = run_order(config)
    return {run: (len(order) - i) / len(order) for i, run in enumerate(order)}
