"""Names a config declares before the run (compare.primary, compare.pyperf.callable, history.primary), checked
against what the run will measure: a typo would otherwise declare nothing, found only after every timing job."""

from __future__ import annotations

from collections.abc import Iterator
from fnmatch import fnmatchcase
from typing import Any

from .. import plan, registry


def _unmatched(key: str, patterns: list[str], names: list[str], form: str) -> Iterator[str]:
    for i, pattern in enumerate(patterns):
        if not any(fnmatchcase(name, pattern) for name in names):
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


def _history(config: dict[str, Any]) -> Iterator[str]:
    """history.primary's series (config_id/variant/baseline/mode) of the history's enabled study."""
    history = config["history"]
    if not history["versions"] or history["study"] not in plan.enabled_studies(config):
        return
    spec = registry.spec(history["study"])
    series = [f"{c['id']}/{v}/{b}/{m}" for c in plan.history_configurations(config) for v in spec.variants
              for b in spec.variants if b != v for m in spec.modes]
    yield from _unmatched("history.primary", history["primary"], series, "config_id/variant/baseline/mode")


def declared_problems(config: dict[str, Any]) -> list[str]:
    return [*_lockstep(config), *_history(config)]
