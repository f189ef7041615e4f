"""The floors' A/A twins in the audit: each job times its floor twice (true ratio 1), so an interval excluding 1 is
a false alarm, counted on every run. Same code, so a twin cannot show a ratio that moves between processes."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ...harness.stats import is_twin, wilson
from .markdown import table


def twin_rows(comparisons: pd.DataFrame) -> pd.DataFrame:
    """A study's twin rows of its comparisons table (read with twins: aggregate.read_tables)."""
    return comparisons[comparisons.variant.astype(str).map(is_twin)].reset_index(drop=True)


def _missed(rows: pd.DataFrame) -> int:
    """How many twin rows' intervals exclude 1."""
    return int(((rows.ratio_ci_low > 1) | (rows.ratio_ci_high < 1)).sum())


def _row(study: str, rows: pd.DataFrame) -> dict[str, object]:
    return {"study": study, "rows": len(rows), "jobs": rows.config_id.nunique(), "excluded 1": _missed(rows),
            "largest |ratio - 1|": f"{np.max(np.abs(rows.ratio - 1)):.1%}",
            "median half-width": f"{np.median((rows.ratio_ci_high - rows.ratio_ci_low) / 2 / rows.ratio):.1%}"}


def twin_sections(rows: Mapping[str, pd.DataFrame]) -> list[str]:
    """The audit's section on every study's twins (`rows`: by study); none where no job had one."""
    found = {study: r for study, r in rows.items() if len(r)}
    if not found:
        return []
    every = pd.concat(found.values())
    alarms = _missed(every)
    low, high = wilson(alarms, len(every))
    return ["\n".join(["### A/A twins", "",
            f"Every job times its floor twice in the same rounds under two names (`<floor>~twin`): the true ratio "
            f"is 1, so an interval that excludes it is a false alarm of this run's own intervals. **{alarms} of "
            f"{len(every)}** twin rows excluded 1 ({alarms / len(every):.1%}, Wilson 95% [{low:.1%}, {high:.1%}]; "
            "5% expected at the 95% level: each twin is judged on its own spread between processes, pooled with "
            "its job's other twins only). The rows of one job share its processes, so that interval is too "
            "narrow; and a twin runs the same code, so it cannot show a real pair whose ratio moves from process "
            "to process (docs/decisions.md#a-twin-judged-on-its-own-spread).", "",
            table(pd.DataFrame([_row(study, r) for study, r in found.items()])), ""])]
