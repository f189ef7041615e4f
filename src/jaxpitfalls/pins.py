"""A release history's environments' pins, below the config check: the default table (a JAX each equinox imports
with, so that neighbours differ in the package alone), the rest they hold, the JAX a benchmark file needs."""

from __future__ import annotations

from collections.abc import Mapping

from packaging.version import Version

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


def default_pins(package: str, release: str) -> dict[str, str]:
    """The default table's row for a release (none for a package or release it does not know)."""
    rows = sorted(((Version(first), pins) for (name, first), pins in DEFAULT_PINS.items() if name == package),
                  key=lambda row: row[0])
    chosen: dict[str, str] = {}
    for first, pins in rows:
        if Version(release) >= first:
            chosen = pins
    return dict(chosen)


def requirement_lines(package: str, release: str, shared: Mapping[str, str], own: Mapping[str, str]) -> list[str]:
    """pip's lines for a release's environment: the release, its pins (`own` over `shared`, the config's `with`,
    over the table), the rest unpinned (`LEAN`)."""
    pins = default_pins(package, release) | dict(shared) | dict(own)
    pinned = {package: release} | {name: version for name, version in pins.items() if name != package}
    return [f"{name}=={version}" for name, version in pinned.items()] + [p for p in LEAN if p not in pinned]
