"""Names a config declares before the run (compare.primary, compare.pyperf.callable, history.primary), checked
against what the run can measure: a typo would otherwise declare nothing, found after every job. Of history.primary
only the configuration and mode (its series hold pairs no spec lists); its report names a pattern matching none."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import plan, registry
from ..benchfile.expectations import FIRST_RUN_MODE
from ..contract.naming import naming_nothing


def _unmatched(key: str, patterns: list[str], names: list[str], form: str) -> Iterator[str]:
    missing = naming_nothing(patterns, names)
    for i, pattern in enumerate(patterns):
        if pattern in missing:
            yield (f"config {key}[{i}] = {pattern!r}: matches nothing this run measures ({form}, e.g. "
                   f"{', '.join(names[:3])})")


def _two_runs(config: dict[str, Any]) -> Iterator[str]:
    """compare.primary's rows against a baseline run: every enabled study's configurations, variants and modes."""
    compare = config["compare"]
    if compare["sides"] or not compare["baseline"]:
        return
    rows = [f"{study}/{conf['id']}/{variant}/{mode}" for study in plan.enabled_studies(config)
            for conf in plan.configurations(config["studies"][study])
            for variant in registry.spec(study).variants for mode in registry.spec(study).modes]
    yield from _unmatched("compare.primary", compare["primary"], rows, "study/config_id/variant/mode")


def _lockstep(config: dict[str, Any]) -> Iterator[str]:
    """compare.primary's rows and pyperf's callable, where sides are timed in lockstep on an enabled study."""
    compare = config["compare"]
    study = compare["study"]
    if not compare["sides"] or study not in plan.enabled_studies(config):
        return
    spec = registry.spec(study)
    confs = [conf["id"] for conf in plan.configurations(config["studies"][study])]
    modes = [m for m in spec.modes if not (registry.is_file(study) and m == FIRST_RUN_MODE)]  # lockstep times warm ones
    for i, name in enumerate(compare["variants"]):
        if name not in spec.variants:
            yield f"config compare.variants[{i}] = {name!r}: not a variant of {study} ({', '.join(spec.variants)})"
    variants = [v for v in spec.variants if v in compare["variants"]] or list(spec.variants)
    rows = [f"{study}/{c}/{v}/{m}" for c in confs for v in variants for m in modes]
    yield from _unmatched("compare.primary", compare["primary"], rows, "study/config_id/variant/mode")
    callable_ = compare["pyperf"]["callable"]
    if callable_ and callable_ not in [f"{m}/{v}" for m in modes for v in variants]:
        yield (f"config compare.pyperf.callable = {callable_!r}: not a mode/variant the sides time of {study} "
               f"(modes: {', '.join(modes)}; variants: {', '.join(variants)})")


def _history(config: dict[str, Any]) -> Iterator[str]:
    """history.primary's configuration and mode parts, where a pattern spells out all four."""
    history = config["history"]
    if not history["versions"] or history["study"] not in plan.enabled_studies(config):
        return
    confs = [conf["id"] for conf in plan.history_configurations(config)]
    modes = list(registry.spec(history["study"]).modes)
    for i, pattern in enumerate(history["primary"]):
        parts = pattern.split("/")
        if len(parts) != 4:
            continue
        for part, names, what in ((parts[0], confs, "configuration the history times"), (parts[3], modes, "mode")):
            if naming_nothing([part], names):
                yield (f"config history.primary[{i}] = {pattern!r}: {part!r} matches no {what} (config_id/variant/"
                       f"baseline/mode; {', '.join(names[:3])})")


def declared_problems(config: dict[str, Any]) -> list[str]:
    return [*_two_runs(config), *_lockstep(config), *_history(config)]
