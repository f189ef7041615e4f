"""The compare gate: fail the workflow, naming what regressed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .familywise import WHOLE, declared, gate_rate, surviving, unmatched
from .sign_flip import global_p


class Regressions(RuntimeError):
    """The current run is significantly slower than the baseline beyond the threshold (or undecided, where asked)."""


def _median_row(r) -> str:
    return (f"{r.study} {r.config_id} {r.variant} ({r.mode}): {r.ratio:.3f}x [{r.ratio_ci_low:.3f}, "
            f"{r.ratio_ci_high:.3f}]")


def _ratio_row(r) -> str:
    return (f"{r.study} {r.config_id} {r.variant} / {r.against} ({r.mode}): {r.baseline_ratio:.3f}x -> "
            f"{r.current_ratio:.3f}x ({r.change:.3f}x [{r.change_ci_low:.3f}, {r.change_ci_high:.3f}])")


def _side_row(r) -> str:
    return (f"{r.study} {r.config_id} {r.variant} ({r.mode}): {r.side} / {r.against} {r.ratio:.3f}x "
            f"[{r.ratio_ci_low:.3f}, {r.ratio_ci_high:.3f}], timed in lockstep")


# How the gate ranks and names the regressed rows of the table it judges (COMPARE_TABLES in the rules:
# `compare.gate_on` against a baseline run, `lockstep` for sides timed in lockstep): by the change (with its
# `<column>_ci_low/high` interval).
GATES = {"medians": ("ratio", _median_row), "ratios": ("change", _ratio_row), "lockstep": ("ratio", _side_row)}


def _inconclusive_row(r, value: str) -> str:
    low, high = getattr(r, f"{value}_ci_low"), getattr(r, f"{value}_ci_high")
    return (f"{r.study} {r.config_id} {r.variant} ({r.mode}): {value} {getattr(r, value):.3f}x [{low:.3f}, "
            f"{high:.3f}], detectable change {r.detectable_change:.0%}, {_would_tell(r)}")


def _would_tell(r) -> str:
    if pd.isna(r.processes_needed):
        return "no number of processes known to tell (one process: their spread not measured)"
    if r.samples_factor <= 1:
        return ("the power to tell was there: the estimate lies near the threshold (a change near it, or chance), "
                "more processes pooled narrow its interval")
    return f"about {r.processes_needed:.0f} processes a side would tell"


def floors_regressed(ratios: pd.DataFrame, medians: pd.DataFrame, primary: Sequence[str] = ()) -> list[str]:
    """The floors the ratios cannot judge that slowed: every variant against one improved while the floor's own
    median regressed (its slowdown read as the others' gain; either alone is a machine's drift or a real gain)."""
    found = []
    medians = medians[declared(medians, primary)]
    for (study, config_id, against, mode), rows in ratios.groupby(["study", "config_id", "against", "mode"]):
        own = medians[(medians.study == study) & (medians.config_id == config_id) & (medians.variant == against)
                      & (medians["mode"] == mode)]
        if (rows.verdict == "improved").all() and len(own) and (own.verdict == "regressed").all():
            found.append(f"{_median_row(next(own.itertuples()))} (medians), while every variant against it improved "
                         f"{rows.change.min():.3f}x-{rows.change.max():.3f}x (ratios)")
    return found


def require_no_regressions(table: pd.DataFrame, gate_on: str = "medians", fail_on_inconclusive: bool = False,
                           threshold: float = 0.05, worst: int = 5, primary: Sequence[str] = (),
                           medians: pd.DataFrame | None = None) -> str:
    """Raise naming the worst regressions: rows surviving Benjamini-Hochberg; for lockstep, rows slower as a whole;
    for ratios given `medians`, floors that slowed; optionally undecided rows. Only the rows `primary` declares are
    judged (every row without it). Passed: says so."""
    rank, describe = GATES[gate_on]
    missing, keys = unmatched(table, primary, rank)
    if missing:
        raise ValueError(f"compare.primary: {', '.join(missing)} match(es) no row of the judged table ({gate_on}) "
                         "with a change measured on both sides; its rows are study/config_id/variant/mode, "
                         + (f"e.g. {', '.join(keys)}" if keys else "and none has a measured change"))
    others = table[~declared(table, primary)]
    table = table[declared(table, primary)]
    over = f"{len(table)} rows" + (" compare.primary declares" if primary else "")
    flagged = table.verdict == "regressed"
    named = surviving(table, rank, threshold, rate=gate_rate(gate_on))
    regressed = table[flagged & named].sort_values(rank, ascending=False)
    undecided = table[table.verdict == "inconclusive"].sort_values("detectable_change", ascending=False)
    whole = global_p(table, threshold) if gate_on == "lockstep" else None
    problems = []
    if len(regressed):
        problems.append(f"{len(regressed)} regression(s) beyond {threshold:g} against the baseline ({gate_on}), "
                        f"surviving Benjamini-Hochberg over {over} ({int(flagged.sum())} regressed one by "
                        "one); the worst:\n  " + "\n  ".join(describe(r) for r in regressed.head(worst).itertuples()))
    elif whole is not None and whole <= WHOLE:
        problems.append(f"the {over} as a whole are slower than {threshold:g} (sign flips of whole "
                        f"processes: p = {whole:.3f}), though no single row is named")
    if floors := floors_regressed(table, medians, primary) if gate_on == "ratios" and medians is not None else []:
        problems.append(f"{len(floors)} floor(s) slowed beyond {threshold:g}, which a ratio against it reads as the "
                        "others' gain:\n  " + "\n  ".join(floors[:worst]))
    if fail_on_inconclusive and len(undecided):
        rows = [_inconclusive_row(r, rank) for r in undecided.head(worst).itertuples()]
        problems.append(f"{len(undecided)} row(s) inconclusive ({gate_on}: compare.fail_on_inconclusive); the least "
                        "decided:\n  " + "\n  ".join(rows))
    if problems:
        raise Regressions("\n".join(problems))
    unjudged = f" ({len(others)} other rows not judged, {int((others.verdict == 'regressed').sum())} of them " \
        "regressed)" if len(others) else ""
    return (f"no regressions over {over}{', none inconclusive' if fail_on_inconclusive else ''} against the "
            f"baseline ({gate_on}){unjudged}{_blind(undecided, len(table))}")


def _blind(undecided: pd.DataFrame, judged: int) -> str:
    """What a pass cannot see: its inconclusive rows and the changes they could have told (a pass at +-20% is no
    evidence of no 5% change); a row of one process or no spread tells none."""
    sizes = undecided.detectable_change[np.isfinite(undecided.detectable_change.astype(float))]
    told = f", able to tell changes of {sizes.min():.0%}-{sizes.max():.0%} only" if len(sizes) else ""
    unknown = f", {len(undecided) - len(sizes)} of them no size (one process)" if len(sizes) < len(undecided) else ""
    return f"; {len(undecided)} of the {judged} judged rows inconclusive{told}{unknown} (time them again, or set " \
        "compare.fail_on_inconclusive)" if len(undecided) else ""
