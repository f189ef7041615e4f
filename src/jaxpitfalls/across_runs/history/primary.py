"""Series declared primary (config `history.primary`): a family chosen before the run, corrected over itself
alone, as `compare.primary` for the gate (docs/decisions.md#series-declared-primary-in-a-history)."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from ...contract.naming import named_by, naming_nothing
from .release_levels import SERIES


def series_name(key: tuple) -> str:
    """A series as `history.primary` names it: config_id/variant/baseline/mode."""
    return "/".join(map(str, key))


def matches(key: tuple, primary: Sequence[str]) -> bool:
    """Whether a pattern of `primary` names the series `key`."""
    return named_by(series_name(key), primary)


def family_text(steps: pd.DataFrame, primary: Sequence[str]) -> str:
    """Which series a step's correction runs over, the patterns that declared them, those that named none."""
    keys = list(steps.drop_duplicates(SERIES)[SERIES].itertuples(index=False, name=None))
    declared = sum(matches(key, primary) for key in keys)
    missed = naming_nothing(primary, [series_name(key) for key in keys])
    none = (f"; `history.primary` {', '.join(map(repr, missed))} named no series of this history (a typo, or a "
            "series that lost every job), so declared nothing") if missed else ""
    if not declared:
        return f"in every series of this report{none}"
    return (f"in every series of this report, except in the {declared} of {len(keys)} `history.primary` declares "
            f"({', '.join(map(repr, primary))}): those are corrected over the declared series alone, a family "
            "declared before the run, the others over every series: a false step among the declared at most 5%, among "
            f"the rest at most {0.05 * (1 - declared / len(keys)):.1%}, in the whole report at most "
            f"{0.05 * (2 - declared / len(keys)):.1%} (docs/history.md){none}")
