"""Series declared primary (config `history.primary`): a family chosen before the run, corrected over itself
alone, as `compare.primary` for the gate (docs/decisions.md#series-declared-primary-in-a-history)."""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase

import pandas as pd

from .release_levels import SERIES


def series_name(key: tuple) -> str:
    """A series as `history.primary` names it: config_id/variant/baseline/mode."""
    return "/".join(map(str, key))


def matches(key: tuple, primary: Sequence[str]) -> bool:
    """Whether a pattern of `primary` names the series `key`."""
    return any(fnmatchcase(series_name(key), p) for p in primary)


def declared_series(keys: Sequence[tuple], primary: Sequence[str]) -> set[tuple]:
    """The series a pattern of `primary` matches (shell wildcards); a pattern matching none is refused, as a typo
    would declare nothing."""
    missing = [p for p in primary if not any(matches(key, [p]) for key in keys)]
    if missing:
        raise ValueError(f"history.primary: {', '.join(map(repr, missing))} match(es) no series of the history "
                         f"(config_id/variant/baseline/mode), e.g. {', '.join(map(series_name, keys[:3]))}")
    return {key for key in keys if matches(key, primary)}


def family_text(steps: pd.DataFrame, primary: Sequence[str]) -> str:
    """Which series a step's correction runs over."""
    keys = list(steps.drop_duplicates(SERIES)[SERIES].itertuples(index=False, name=None))
    declared = sum(matches(key, primary) for key in keys)
    if not declared:
        return "in every series of this report"
    return (f"in every series of this report, except in the {declared} of {len(keys)} `history.primary` declares: "
            "those are corrected over the declared series alone, a family chosen before the run, so a step in one "
            "of them is named at a lower bar (docs/history.md)")
