"""A job's comparisons by moderated t over its processes' own ratios: one estimate per quantity, read as ratio
and difference, a reversed pair its first listing mirrored, so the two never disagree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import moderated, stats

Pair = tuple[str, str, str]  # variant, baseline, mode
Medians = Mapping[tuple[str, str], float]  # each variant's median (s) in each mode, as the job reports it
RATIO_FIELDS = ("ratio", "ratio_ci_low", "ratio_ci_high", "ratio_p_value", "ratio_df")
DIFF_FIELDS = ("diff", "diff_ci_low", "diff_ci_high")


def _as_ratio(log: moderated.Estimate) -> dict[str, float]:
    return dict(zip(RATIO_FIELDS, (*log.as_ratio(), log.p_value, log.df), strict=True))


def _value(medians: Medians, side: str, mode: str) -> float:
    """A comparison side's value at the job's medians (a difference's: a's less b's)."""
    first, *rest = (medians[(part, mode)] for part in stats.side_parts(side))
    return first - sum(rest)


def read_off(pairs: list[Pair], ratios: list[Sequence[float | None]], medians: Medians) -> list[list[float] | None]:
    """The difference (seconds, with interval) each pair's ratio stands for at the job's medians: for
    overheads r - 1 times the baseline's (so rows add up); None where it stands for none."""
    found: list[list[float] | None] = [None] * len(pairs)
    known = {}
    for i, ((variant, baseline, mode), ratio) in enumerate(zip(pairs, ratios, strict=True)):
        if not stats.is_difference(variant, baseline) and None not in ratio:
            sides = [_value(medians, side, mode) for side in (variant, baseline)]
            found[i] = [float(x) for x in stats.difference_at(list(ratio), *sides)]
            known[(stats.difference_side(variant, baseline), mode)] = found[i][0]
    for i, ((variant, baseline, mode), ratio) in enumerate(zip(pairs, ratios, strict=True)):
        if not stats.is_difference(variant, baseline) or None in ratio:
            continue
        overhead = known[(baseline, mode)] if (baseline, mode) in known else _value(medians, baseline, mode)
        if overhead > 0:
            found[i] = [(r - 1) * overhead for r in ratio]
    return found


def _mirrored(found: dict[str, Any]) -> dict[str, Any]:
    """A plain pair's estimate reversed: the ratio inverted, the difference negated."""
    ratio, low, high = (found[k] for k in RATIO_FIELDS[:3])
    diff, below, above = (found[k] for k in DIFF_FIELDS)
    return found | dict(zip(RATIO_FIELDS[:3], (1 / ratio, 1 / high, 1 / low), strict=True)) | dict(
        zip(DIFF_FIELDS, (-diff, -above, -below), strict=True))


def _reversed(pairs: list[Pair]) -> dict[int, int]:
    """Each plain pair listed after its reverse: its index, and the reverse's."""
    first: dict[Pair, int] = {}
    for i, pair in enumerate(pairs):
        first.setdefault(pair, i)
    return {i: first[(b, v, m)] for i, (v, b, m) in enumerate(pairs)
            if first.get((b, v, m), i) < i and not stats.is_difference(v, b)}


STEADY = "steady"  # a warm call's row: no compile in its samples


def pool_group(entry: Mapping[str, Any]) -> str:
    """The rows a (variant, mode)'s result entry or steps row pools its spread with: compiling in every call
    (RECOMPILES), in each sample (a first run), or steady. Compiles pooled with warm calls widen their intervals."""
    def said(key: str) -> bool:  # a table's blank (NaN) is no
        return isinstance(entry.get(key), bool | np.bool_) and bool(entry.get(key))

    return "recompiles" if said("recompiles") else "compiling" if said("measures_compilation") else STEADY


def group_of(pair: Pair, groups: Mapping[tuple[str, str], str]) -> tuple[str, ...]:
    """A pair's pool: its sides' groups (steady where `groups` has none)."""
    variant, baseline, mode = pair
    return tuple(sorted({groups.get((part, mode), STEADY) for side in (variant, baseline)
                         for part in stats.side_parts(side)}))


def pooled_intervals(pairs: list[Pair], ratios: list[list[float | None]], diffs: list[list[float]],
                     medians: Medians, groups: Mapping[tuple[str, str], str] | None = None) -> list[dict[str, Any]]:
    """A job's comparisons (`pairs`) from their processes' ratios and differences at the job's `medians`:
    log-ratios pooled across rows, differences read off them, reversed pairs mirrored. Ratios of overheads
    (near 0 or below) are averaged unlogged (none where a process lacks one); A/A twins pool only with each
    other, or their audit could not fail; rows pool within their `groups` (pool_group)."""
    mirrors = _reversed(pairs)
    rows = [i for i in range(len(pairs)) if i not in mirrors]
    real = {i: not stats.is_twin(pairs[i][0]) for i in rows}
    group = {i: group_of(pairs[i], groups or {}) for i in rows}
    plain = [i for i in rows if not stats.is_difference(*pairs[i][:2]) and real[i]]
    twins = [i for i in rows if not real[i]]
    found = {i: _as_ratio(e) for i, e in zip(plain, moderated.in_groups(
        moderated.pooled, [np.log(ratios[i]) for i in plain], [group[i] for i in plain]), strict=True)}
    found |= {i: _as_ratio(e) for i, e in zip(twins, moderated.pooled_apart([np.log(ratios[i]) for i in twins]),
                                               strict=True)}
    for i in set(rows) - set(plain) - set(twins):
        e = moderated.estimate(ratios[i]) if None not in ratios[i] else None
        found[i] = dict(zip(RATIO_FIELDS, (e.mean, e.low, e.high, None, e.df) if e else [None] * 5, strict=True))
    scales = {i: medians[(stats.side_parts(pairs[i][1])[0], pairs[i][2])] for i in rows}
    relative = moderated.in_groups(lambda kept: moderated.pooled(*zip(*kept, strict=True)), [
        (np.asarray(diffs[i], dtype=float) / scales[i], real[i]) for i in rows], [group[i] for i in rows])
    read = read_off([pairs[i] for i in rows], [[found[i][k] for k in RATIO_FIELDS[:3]] for i in rows], medians)
    for i, rel, ends in zip(rows, relative, read, strict=True):
        found[i] |= (dict(zip(DIFF_FIELDS, ends, strict=True)) | {"diff_df": found[i]["ratio_df"]} if ends else
                     dict(zip(DIFF_FIELDS, (x * scales[i] for x in (rel.mean, rel.low, rel.high)), strict=True))
                     | {"diff_df": rel.df})
    return [found[i] if i in found else _mirrored(found[mirrors[i]]) for i in range(len(pairs))]
