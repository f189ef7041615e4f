"""How a configuration is named and read."""

from __future__ import annotations

from typing import Any

# What the plan adds to a configuration beside the study's own keys (`anchor`, `beside`: timing_configuration's).
PLAN_KEYS = ("id", "axes", "model", "anchor", "beside")


def value_label(value: Any) -> str:
    """A configuration value as its id writes it (`0.1`, `64`, `fused`)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def settings_of(conf: dict[str, Any]) -> dict[str, Any]:
    """A configuration's own keys, without PLAN_KEYS."""
    return {k: v for k, v in conf.items() if k not in PLAN_KEYS}


def is_base(conf: dict[str, Any]) -> bool:
    """Whether a configuration is its study's base (the one on every axis)."""

    return set(settings_of(conf)) <= set(conf["axes"])
