"""The write-up's "std above 10% means interference" against the contention watch: an alarm on a quiet job is false,
a busy job without one a miss. The watch sees only the host."""

from __future__ import annotations

import pandas as pd

from ...contract.decisions import verdict
from ...contract.tables import demonstrated
from ...contract.verdicts import NOT_TESTABLE, Estimate, Judged

INTERFERENCE_SPREAD = 0.10  # the write-up's "std above 10%"


def spread_against_watch(steps: pd.DataFrame, checks: pd.DataFrame, backend: str = "cpu") -> Judged:
    """The rule on proper rows, not the demonstration's (docs/decisions.md#warmup-demonstration): no false alarm and no
    miss reproduces."""
    checks = checks.set_index("config_id")
    busy = (checks.rounds_retried.fillna(0) + checks.rounds_contended_kept.fillna(0)) > 0
    each = steps[steps.n_samples >= 2].assign(spread=lambda d: d.std_ms / d.mean_ms,
                                              busy=lambda d: d.config_id.map(busy).astype("boolean").fillna(False))
    proper, demo = each[~demonstrated(each)], each[demonstrated(each)]
    alarms = proper[proper.spread > INTERFERENCE_SPREAD]
    false_alarms = alarms[~alarms.busy]
    missed = sorted(set(proper.config_id[proper.busy]) - set(alarms.config_id))
    named = ", ".join(f"{r.variant} {r.spread:.0%} at {r.config_id}" for r in false_alarms.itertuples())
    beside = (f"; beside it, the warmup demonstration (compiling in its timed region): {demo.spread.min():.1%}-"
              f"{demo.spread.max():.1%}" if len(demo) else "")
    return Judged(
        measured=(f"std / mean of the proper measurements {proper.spread.min():.1%}-{proper.spread.max():.1%} "
                  f"(the write-up's 3.4%), the watch catching {int(busy.sum())} of {len(busy)} jobs busy (other "
                  f"processes at most {checks.others_share_max.max():.0%} of the cores, steal "
                  f"{checks.steal_share_max.max():.0%}): {len(false_alarms)} false alarms of the 10% rule"
                  + (f" ({named})" if named else "") + f", {len(missed)} busy jobs it missed"
                  + (f" ({', '.join(missed)})" if missed else "") + beside),
        verdict=NOT_TESTABLE if (false_alarms.empty and not busy.any()) or (backend != "cpu" and not missed)
        else verdict(false_alarms.empty and not missed),
        headline=Estimate(*(float(len(false_alarms)),) * 3,
                          " false alarms" if backend == "cpu" else " rows above 10% in quiet jobs (device unwatched)",
                          f"the 10% rule ({int(busy.sum())} jobs busy, {len(missed)} missed):"),
    )
