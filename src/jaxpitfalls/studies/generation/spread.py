"""The generation write-up's reading of a spread ("std above 10% means interference") judged against what every job
watches: the machine while timing (contention.py), recorded per job in the checks table."""

from __future__ import annotations

import pandas as pd

from ...contract.verdicts import Judged
from ...report.aggregate import demonstrated
from ...report.claims import verdict

INTERFERENCE_SPREAD = 0.10  # the write-up's "std above 10%"


def spread_against_watch(steps: pd.DataFrame, checks: pd.DataFrame) -> Judged:
    """The write-up's reading of a spread, "std above 10% means interference", against what every job watches
    (the checks table: rounds the watch caught busy, re-timed or kept): a row whose std / mean exceeds 10% in a
    job the watch saw quiet refutes it; where every such row's job saw interference it holds; where none reached
    10% nothing here tests it. Judged on each worker process's rows and on the pooled ones (which also carry the
    processes' offsets)."""
    checks = checks.set_index("config_id")
    busy = (checks.rounds_retried.fillna(0) + checks.rounds_contended_kept.fillna(0)) > 0
    each = steps[steps.n >= 2].assign(spread=lambda d: d.std_ms / d.mean_ms)
    wide = each[each.spread > INTERFERENCE_SPREAD]
    quiet = wide[~wide.config_id.map(busy).astype("boolean").fillna(False)]
    demo = " (the warmup demonstration: compiling in its timed region)"
    named = ", ".join(f"{r.variant} {r.spread:.0%} at {r.config_id}{demo if r.shown else ''}" for r in quiet.assign(
        shown=demonstrated(quiet)).sort_values("spread", ascending=False).head(3).itertuples())
    proper = each.spread[~demonstrated(each)]
    return Judged(
        measured=(f"std / mean above {INTERFERENCE_SPREAD:.0%} in {len(wide)} of {len(each)} rows, {len(quiet)} of "
                  f"them in jobs the machine watch saw quiet (other processes at most "
                  f"{checks.others_share_max.max():.0%} of the cores, steal {checks.steal_share_max.max():.0%})"
                  + (f": {named}" if named else "")
                  + f"; the proper measurements' spread {proper.min():.1%}-{proper.max():.1%} (the write-up's "
                    "3.4%)"),
        verdict=verdict(None if wide.empty else quiet.empty),
        reason="" if len(wide) else f"undecided: no row's spread reached {INTERFERENCE_SPREAD:.0%}, so nothing here "
                                    "tests what a wide one means",
    )
