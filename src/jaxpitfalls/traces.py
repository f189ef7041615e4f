"""Turn a profiler trace into a per-variant breakdown of the step by the study's `trace_components`.

Python events match on file and function, never on the line, which changes between versions. Each instant goes to
the innermost matching component, else `rest` (the remainder): the parts partition the step.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from .breakdown import STEP_EVENT, Component

# jaxlib's C++ jit dispatch marks each call's argument parsing: counted per traced step, the calls into jitted
# functions one step made (a Python loop of jitted steps shows each, a scan inside jit one; eager operations and
# calls made while tracing, outside jit, count too)
DISPATCH_EVENT = "ParseArguments"
# JAX's Python path for a call the C++ one hands back (effects, callbacks, a cache miss) parses the arguments
# again: one call, not two
FALLBACK_FRAME = re.compile(r"^\$pjit\.py:\d+ _infer_params$")
# A sharded program's collectives run on the devices' threads (a CPU's XLA pool, a GPU's streams), outside the step's
COLLECTIVE = re.compile(r"all[-_]?(reduce|gather|to[-_]?all)|reduce[-_]?scatter|collective[-_]?permute|nccl", re.I)


REST = "rest"

_COMPREHENSIONS = ("<listcomp>", "<dictcomp>", "<setcomp>", "<genexpr>")
_PY_EVENT = re.compile(r"^\$(?P<file>[^:]+):\d+ (?P<function>.+)$")


def classify(name: str, components: Sequence[Component]) -> str | None:
    """The component an event belongs to (the first that matches), or None: a comprehension's frame is its
    enclosing function's (pmap's argument copies run in a list comprehension of the file that compiles)."""
    m = _PY_EVENT.match(name)
    file, function = (m["file"], m["function"]) if m else (None, name)
    if m and function in _COMPREHENSIONS:
        return None
    for component in components:
        if component.matches(file, function, name):
            return component.name
    return None


@dataclass
class _Event:
    name: str
    start: float
    end: float
    stats: dict


def _profile_data():
    """jaxlib's reader of a trace file (jax.profiler.ProfileData) without importing JAX, which would cost a parse
    job more than the parse; JAX's own where a jaxlib keeps it elsewhere."""
    try:
        from jaxlib._profile_data import ProfileData
    except ImportError:
        from jax.profiler import ProfileData
    return ProfileData


def _trace_events(xplane: str | os.PathLike) -> tuple[list[_Event], list[_Event] | None]:
    """Events of the thread that ran the annotated steps, found by its annotations (its name differs
    between `python`, `python3` and embedding processes), and the collectives of the devices' lines (a device
    plane's where the trace has one, else the host's other threads; None where no other line holds an event)."""
    data = _profile_data().from_file(str(xplane))
    lines = [(plane.name, line) for plane in data.planes for line in plane.lines]
    found = next((line for _, line in lines if any(e.name == STEP_EVENT for e in line.events)), None)
    if found is None:
        raise ValueError(f"{xplane}: no '{STEP_EVENT}' annotations: not a trace of this workflow")
    steps = [_Event(e.name, e.start_ns, e.start_ns + e.duration_ns, dict(e.stats)) for e in found.events]
    if all(next(iter(line.events), None) is None for _, line in lines if line is not found):  # jaxlib: iterators
        return steps, None
    named = [(plane, _union([(e.start_ns, e.start_ns + e.duration_ns) for e in line.events
                             if COLLECTIVE.search(e.name) and not e.name.startswith("end: ")]))
             for plane, line in lines if line is not found]
    on_device = any(plane.startswith("/device:") and spans for plane, spans in named)  # else a CPU's threads
    return steps, [_Event("collective", *span, {}) for plane, spans in named
                   if plane.startswith("/device:") == on_device for span in spans]


def _union(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """One line's time spans merged where they overlap: a collective nested in another counts once."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def _breakdown(step: _Event, events: list[_Event], components: Sequence[Component]) -> dict[str, object]:
    """Exclusive and inclusive nanoseconds per component in one step, each event's time taken from its nearest
    matching ancestor's, so none counts twice."""
    inside = sorted(
        (e for e in events if e.start >= step.start and e.end <= step.end and e is not step),
        key=lambda e: (e.start, -e.end),
    )
    exclusive: dict[str, float] = defaultdict(float)
    inclusive: dict[str, float] = defaultdict(float)
    covered = 0.0
    stack: list[tuple[_Event, str | None]] = []
    for event in inside:
        while stack and stack[-1][0].end <= event.start:
            stack.pop()
        if stack and event.end > stack[-1][0].end:
            continue  # overlaps its parent without nesting: not a call of this thread's stack
        comp = classify(event.name, components)
        if comp is not None:
            duration = event.end - event.start
            ancestors = [c for _, c in stack if c is not None]
            exclusive[comp] += duration
            if ancestors:
                exclusive[ancestors[-1]] -= duration
            else:
                covered += duration
            if comp not in ancestors:
                inclusive[comp] += duration
        stack.append((event, comp))
    duration = step.end - step.start
    exclusive[REST] = duration - covered
    return {"exclusive": dict(exclusive), "inclusive": dict(inclusive), "step": duration}


def _dispatches(events: list[_Event]) -> list[_Event]:
    """Each call into a jitted function once: its C++ dispatch's argument parsing, not the Python fallback's."""
    fallbacks = [e for e in events if FALLBACK_FRAME.match(e.name)]
    return [e for e in events if e.name == DISPATCH_EVENT
            and not any(f.start <= e.start and e.end <= f.end for f in fallbacks)]


def parse(xplane: str | os.PathLike, components: Sequence[Component]) -> list[dict[str, object]]:
    """Rows (variant, component, inclusive_ms, exclusive_ms, share, jit_calls, collectives_ms) averaged over each
    variant's traced steps."""
    events, collectives = _trace_events(xplane)
    steps = [e for e in events if e.name == STEP_EVENT]
    if not any(e.name.startswith("$") for e in events):
        raise ValueError(f"{xplane}: no Python events on the step thread (was the Python tracer off?)")
    totals: dict[str, dict[str, dict[str, float]]] = {}
    step_ns: dict[str, float] = defaultdict(float)
    n_steps: dict[str, int] = defaultdict(int)
    dispatched: dict[str, int] = defaultdict(int)
    collective_ns: dict[str, float] = defaultdict(float)
    dispatches = _dispatches(events)
    for step in steps:
        variant = str(step.stats["variant"])
        parts = _breakdown(step, events, components)
        acc = totals.setdefault(variant, {"exclusive": defaultdict(float), "inclusive": defaultdict(float)})
        for kind in ("exclusive", "inclusive"):
            for comp, ns in parts[kind].items():
                acc[kind][comp] += ns
        step_ns[variant] += parts["step"]
        n_steps[variant] += 1
        dispatched[variant] += sum(step.start <= e.start and e.end <= step.end for e in dispatches)
        collective_ns[variant] += sum(max(0, min(e.end, step.end) - max(e.start, step.start))
                                      for e in collectives or [])
    rows = []
    for variant, acc in totals.items():
        for comp in [c.name for c in components] + [REST]:
            n = n_steps[variant]
            inclusive = acc["inclusive"].get(comp, 0.0) if comp != REST else acc["exclusive"].get(REST, 0.0)
            rows.append({
                "variant": variant,
                "component": comp,
                "traced_steps": n,
                "traced_step_ms": step_ns[variant] / n / 1e6,
                "inclusive_ms": inclusive / n / 1e6,
                "exclusive_ms": acc["exclusive"].get(comp, 0.0) / n / 1e6,
                "share": acc["exclusive"].get(comp, 0.0) / step_ns[variant],
                # none where this jaxlib marks no dispatch at all: unknown, not zero
                "jit_calls": dispatched[variant] / n if dispatches else None,
                # summed over the devices; none where the trace shows no device's or other thread's work
                "collectives_ms": collective_ns[variant] / n / 1e6 if collectives is not None else None,
            })
    return rows
