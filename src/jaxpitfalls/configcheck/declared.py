"""Names a config declares before the run for a lockstep comparison (compare.primary, compare.pyperf.callable),
checked against every row the lockstep can time: a typo would otherwise declare nothing, found after every job.
(history.primary is checked by the history's report: its series include pairs no spec lists, such as anchors.)"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import plan, registry
from ..contract.naming import naming_nothing


def _unmatched(key: str, patterns: list[str], names: list[str], form: str) -> Iterator[str]:
    missing = naming_nothing(patterns, names)
    for i, pattern in enumerate(patterns):
        if pattern in missing:
            yield (f"config {key}[{i}] = {pattern!r}: matches nothing this run measures ({form}, e.g. "
                   f"{', '.join(names[:3])})")


def _lockstep(config: dict[str, Any]) -> Iterator[str]:
    """compare.primary's rows and pyperf's callable, where sides are timed in lockstep on an enabled study."""
    compare = config["compare"]
    study = compare["study"]
    if not compare["sides"] or study not in plan.enabled_studies(config):
        return
    spec = registry.spec(study)
    confs = [conf["id"] for conf in plan.configurations(config["studies"][study])]
    rows = [f"{study}/{c}/{v}/{m}" for c in confs for v in spec.variants for m in spec.modes]
    yield from _unmatched("compare.primary", compare["primary"], rows, "study/config_id/variant/mode")
    callable_ = compare["pyperf"]["callable"]
    if callable_ and callable_ not in [f"{m}/{v}" for m in spec.modes for v in spec.variants]:
        yield (f"config compare.pyperf.callable = {callable_!r}: not a mode/variant of {study} (modes: "
               f"{', '.join(spec.modes)}; variants: {', '.join(spec.variants)})")


def declared_problems(config: dict[str, Any]) -> list[str]:
    return list(_lockstep(config))
