"""The report of a comparison with a baseline run (reports/compare.md), and the wording a lockstep comparison shares
with it."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ...contract.decisions import interval
from ...formatting import short
from . import familywise, gate, machine_speed, memory_plans

VERDICTS = ("regressed", "improved", "unchanged", "inconclusive")
MOVED = VERDICTS[:2]  # beyond the threshold, either way


def single_process_line(table: pd.DataFrame) -> list[str]:
    """Where either run timed a configuration in one process: no interval; `measure.processes` of 2 or more gives
    one."""
    if not len(table) or "processes" not in table:
        return []
    alone = table[table.processes.fillna("").astype(str).str.split(" / ").map(lambda p: "1" in p)]
    if alone.empty:
        return []
    configs = sorted(set(alone.config_id))
    return [f"**{len(configs)} configuration(s) timed in one process on one side** ({', '.join(configs[:5])}"
            f"{', ...' if len(configs) > 5 else ''}): nothing says how far a fresh process moves their times, so their "
            "rows have no interval and read inconclusive; time both runs with `measure.processes` of 2 or more.", ""]


def counts(table: pd.DataFrame) -> str:
    counts = table.verdict.value_counts().to_dict() if len(table) else {}
    known = [v for v in VERDICTS if v in counts] + sorted(set(counts) - set(VERDICTS))
    return ", ".join(f"{v} {counts[v]}" for v in known) or "none"


def could_tell(table: pd.DataFrame, threshold: float,
               per_row: str = "`processes_needed` per row: that many fresh processes a run, at the spread "
                              "between processes these runs saw") -> list[str]:
    """What the inconclusive rows could have detected, and what would tell (`per_row`: the table's own column)."""
    undecided = table[table.verdict == "inconclusive"] if len(table) else table
    if not len(undecided):
        return []
    detectable, value = undecided.detectable_change, undecided.get("ratio", undecided.get("change"))
    leans = "" if value is None else f" ({int((value > 1).sum())} reading slower, {int((value < 1).sum())} faster)"
    low, high = f"{detectable.min():.0%}", f"{detectable.max():.0%}"
    sizes = f"a change of {low}" if low == high else f"changes of {low}-{high} (median {detectable.median():.0%})"
    short = undecided[undecided.samples_factor > 1]
    said = [f"{len(short)} {'needs' if len(short) == 1 else 'need'} more: about {short.samples_factor.median():.1f}x "
            f"the samples would tell (median; {per_row}), or a quieter machine"] if len(short) else []
    if len(short) < len(undecided):
        said.append(f"{len(undecided) - len(short)} had that power already, an interval across the threshold's edge: "
                    "the estimate lies near it (a change near the threshold, or chance), and more processes pooled "
                    "narrow the interval toward a verdict (`samples_factor` cannot say how many)")
    return [f"The {len(undecided)} inconclusive row{'s' * (len(undecided) > 1)}{leans} could detect {sizes} at 80% "
            f"power, against ±{threshold:.0%}: {'; '.join(said)}.", ""]


def verdict_rule(threshold: float) -> str:
    return (f"Verdict: regressed (improved) only when the change's whole 95% interval lies above 1 + {threshold:g} "
            f"(below 1 - {threshold:g}); unchanged only when it lies within 1 ± {threshold:g} (equivalence); "
            "inconclusive otherwise — this pair of runs could not tell whether the change passes the threshold, and "
            "`detectable_change` is the smallest change it could tell from none (80% power, 95% level); to be "
            "called regressed a change must pass the threshold by about as much again.")


def _ratios_section(ratios: pd.DataFrame, threshold: float, primary: Sequence[str] = ()) -> list[str]:
    if not len(ratios):
        return ["_(no paired ratio measured on both sides)_", ""]
    per_study = "; ".join(f"{study} {part.agree.sum()} of {len(part)}" for study, part in ratios.groupby("study"))
    shown, hoisted = hoisted_columns(_leading(ratios, "change"))
    return [
        f"Each variant's paired ratio against its baseline variant, as each run measured it, and their change "
        "(current / baseline over fresh processes, Student's t on their pooled spread, 95%). The runs agree on "
        f"{ratios.agree.sum()} of {len(ratios)} "
        f"within ±{threshold:g} ({per_study}); their 95% intervals overlap for {ratios.intervals_overlap.sum()} "
        f"of {len(ratios)}. " + verdict_rule(threshold), "",
        "Verdicts: " + counts(ratios), "",
        *familywise.line(ratios, "change", threshold, primary),
        *could_tell(ratios, threshold),
        *hoisted,
        shown.to_markdown(index=False, floatfmt=".4g"), "",
    ]


NAMES = ("study", "config_id", "variant", "against", "mode", "verdict")  # a row's own: kept in it


def _leading(table: pd.DataFrame, value: str) -> pd.DataFrame:
    """The row's names, its verdict and its number with its interval first; what they rest on after."""
    first = [c for c in (*NAMES, value, f"{value}_ci_low", f"{value}_ci_high") if c in table]
    return table[first + [c for c in table.columns if c not in first]]


BRIEF_ROWS = 20  # rows that moved named in brief; the rest are in the table


def hoisted_columns(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Text columns the same in every row, said once above the table, not down it."""
    same = [c for c in table.columns if pd.api.types.is_string_dtype(table[c]) and len(table) > 1
            and table[c].nunique(dropna=False) == 1 and c not in NAMES]
    said = "; ".join(f"`{c}` {value}" for c in same if pd.notna(value := table[c].iloc[0]) and str(value).strip())
    return table.drop(columns=same), ([f"In every row: {said}.", ""] if said else [])


SAME_CODE = " (the same compiled programs and call on both sides of it, by their fingerprints)"


def _same_code_mark(row) -> str:
    return SAME_CODE if getattr(row, "same_code", False) is True else ""


def _same_code_moved(table: pd.DataFrame, moved: pd.DataFrame) -> list[str]:
    """Rows whose code did not change that moved all the same: the runs differ, or the libraries' compiled code."""
    same = moved[moved.same_code.eq(True)] if "same_code" in moved else moved.iloc[:0]
    if not len(same):
        return []
    alike = int(table.same_code.eq(True).sum())
    return [f"- {len(same)} of the {len(moved)} rows that moved compiled the same programs and made the same call in "
            f"both runs (their fingerprints, {alike} of {len(table)} rows alike): the machine, the run or a library "
            "(`environment_changes`) moved them, or Python the signature does not fingerprint (the bodies of "
            "functions the call goes through outside jit)"]


TIMES = (("baseline_median_ms", "current_median_ms"), ("against_median_ms", "side_median_ms"))  # two runs, lockstep


def _times(row) -> str:
    """A row's time per call on each side, where its table has them: ` (37.1 -> 57.4 µs)`."""
    pair = next(((getattr(row, a), getattr(row, b)) for a, b in TIMES if hasattr(row, a)), None)
    if getattr(row, "judged_on", "") == "yardstick units":  # the ratio is not of these times
        return ""
    if pair is None or not all(isinstance(x, float) and math.isfinite(x) for x in pair):
        return ""
    scale, unit = (1e3, "µs") if max(pair) < 1 else (1.0, "ms")
    return f" ({short(pair[0] * scale)} -> {short(pair[1] * scale)} {unit})"


def moved_row(r, named: str, value: str = "ratio") -> str:
    """One row that moved, as in brief says it: verdict, names, the number with its interval, times, same code."""
    number = interval(getattr(r, value), getattr(r, f"{value}_ci_low"), getattr(r, f"{value}_ci_high"), "x")
    return f"- **{r.verdict}** `{r.study}` {r.config_id} {named}: {number}{_times(r)}{_same_code_mark(r)}"


def moved_lines(table: pd.DataFrame, threshold: float, where: str) -> tuple[list[str], pd.DataFrame]:
    """Each row that moved (at most BRIEF_ROWS), its ratio, interval and times, or the range where none did."""
    moved = table[table.verdict.isin(MOVED)]
    side = (lambda r: f", {r.side} / {r.against}") if "side" in table and table.side.nunique() > 1 else (lambda r: "")
    rows = [moved_row(r, f"`{r.variant}` ({r.mode}{side(r)})") for r in moved.head(BRIEF_ROWS).itertuples()]
    rows += [f"- and {len(moved) - BRIEF_ROWS} more under \"{where}\""] if len(moved) > BRIEF_ROWS else []
    if not len(moved):
        half = (table.ratio_ci_high / table.ratio_ci_low) ** 0.5 - 1
        half = half[np.isfinite(half)]  # one process: no interval
        told = "moved" if (table.verdict == "unchanged").all() else "was shown to move"
        widths = f"their intervals ±{half.min():.1%} to ±{half.max():.1%}" if len(half) else "no interval (one process)"
        rows = [f"- no row {told} beyond ±{threshold:g}: ratios {table.ratio.min():.3f}x to {table.ratio.max():.3f}x, "
                f"{widths}{_one_way(table)}"] if len(table) else []
    return rows, moved


def _one_way(table: pd.DataFrame) -> str:
    """Where every row reads the same way, said with how many intervals leave 1 out: a change under the threshold
    that several rows agree on (a release 3-5% slower everywhere) is what such a run found."""
    for way, side, out in (("slower", table.ratio > 1, table.ratio_ci_low > 1),
                           ("faster", table.ratio < 1, table.ratio_ci_high < 1)):
        if len(table) > 1 and side.all():
            return f"; every row reads {way}, {int(out.sum())} of {len(table)} with intervals that leave 1 out"
    return ""


def in_brief(table: pd.DataFrame, threshold: float) -> list[str]:
    """The number first: every row that moved beyond the threshold, its ratio and interval, then the counts."""
    if not len(table) or "ratio" not in table:
        return []
    rows, moved = moved_lines(table, threshold, "Medians")
    more = _same_code_moved(table, moved)
    more += ["- one job each run: a shift of a whole job is not in these intervals (identical code run twice has "
             "moved rows): confirm a moved row in lockstep (`compare.sides`: benchmark files and dispatch)"
             ] if len(moved) else []
    return ["## In brief", "", f"Median time per call, current / baseline (95% interval), at ±{threshold:g}: "
            f"{counts(table)}.", "", *rows, *more, *([""] if rows else []), *between(table, "runs"),
            *code_alike(table, "runs")]


def code_alike(table: pd.DataFrame, what: str) -> list[str]:
    """Which variants compiled the same programs and made the same call in both runs or on both sides, moved or
    not: a rewrite XLA compiles into the program it replaced changed no code."""
    known = table[table.same_code.isin([True, False])] if "same_code" in table else ()
    if not len(known):  # a packaged study's signatures: counts, no fingerprint
        return []
    keys = [k for k in ("study", "variant", "side") if k in known and (k == "variant" or known[k].nunique() > 1)]
    by_row = known.groupby(keys, sort=False).same_code.all()  # a study's, and a side's where several are
    changed = known.get("code_changed", pd.Series("", index=known.index)).fillna("").astype(str)  # older: none
    parts = changed.groupby([known[k] for k in keys], sort=False).agg(
        lambda x: ", ".join(sorted({part for text in x for part in text.split(", ") if part})))
    names = [", ".join("`" + " ".join(map(str, k if isinstance(k, tuple) else (k,))) + "`"
                       + (f" ({parts[k]})" if not alike and parts.get(k) else "")
                       for k in by_row.index[by_row == alike]) or "none" for alike in (True, False)]
    xla = " jaxlib differs between them: XLA may compile the same lowered programs otherwise." if table.get(
        "environment_changes", pd.Series(dtype=str)).astype(str).str.contains("jaxlib ").any() else ""
    return [f"What each variant ran, between the {what} (fingerprints of the programs it compiled, lowered or as XLA "
            f"optimized them; `python`: the functions a warm call goes through, a library's own among them; the call "
            f"as written): the same for {names[0]}; changed for {names[1]}.{xla}", ""]


def between(table: pd.DataFrame, what: str) -> list[str]:
    """What changed between the runs or sides (the code, the workflow, libraries, the machine), said before the
    rows."""
    rows = table.get("environment_changes", pd.Series(dtype=str)).fillna("").astype(str).str.strip()
    counted = rows.value_counts()
    if not (counted.index != "").any():
        return []
    if len(counted) == 1:
        return [f"Between the {what}: {counted.index[0]} (`environment_changes` per row).", ""]
    said = "; ".join(f"{change or 'nothing'} in {n} of {len(rows)} rows" for change, n in counted.head(3).items())
    more = f"; {len(counted) - 3} more" if len(counted) > 3 else ""
    return [f"Between the {what}, not alike for every row: {said}{more} (`environment_changes` per row).", ""]


def _ratios_in_brief(table: pd.DataFrame, ratios: pd.DataFrame) -> list[str]:
    """What the default gate judges: each paired ratio that moved, and a floor that slowed under gains."""
    if not len(ratios):
        return []
    moved = ratios[ratios.verdict.isin(MOVED)]
    rows = [moved_row(r, f"`{r.variant}` / `{r.against}` ({r.mode})", "change")
            for r in moved.head(BRIEF_ROWS).itertuples()]
    floors = [f"- **a floor slowed**: {line}" for line in gate.floors_regressed(ratios, table)] if len(table) else []
    return [f"Paired ratios against each floor, current / baseline (the default gate's table): {counts(ratios)}.",
            "", *rows, *floors, *([""] if rows or floors else [])]


def markdown(table: pd.DataFrame, one_sided: pd.DataFrame, ratios: pd.DataFrame, baseline: str, threshold: float,
             primary: Sequence[str] = (), plans: pd.DataFrame | None = None) -> str:
    shown, hoisted = hoisted_columns(_leading(table.drop(columns=["metric"]), "ratio")) if len(table) else (table, [])
    lines = [
        "# Comparison with a baseline run", "",
        *in_brief(table, threshold),
        *_ratios_in_brief(table, ratios),
        "![Each row's change, current / baseline, with its 95% interval, coloured by its verdict]"
        "(figures/compare.png)", "",
        *memory_plans.brief(plans),
        *single_process_line(table),
        "Each run is one job a configuration: what a whole job shares (its moment on the machine, its file cache, "
        "its first pass) moves all of its processes alike and is not in these intervals, as one job a release is "
        "not in a release history's (docs/comparing.md: identical code run twice flagged a few rows of one "
        "study, none named by the gate). For a decision at a few percent, time both environments in lockstep.", "",
        f"Baseline: `{baseline}`. Each row compares the samples of one study, configuration, variant and "
        f"mode: current / baseline over fresh processes (each process's median; the mean of their logs on each "
        "side, Student's t on the two runs' spread between processes, pooled across a configuration's rows; "
        "`processes` baseline / current, `df` its degrees of freedom), on what `judged_on` says: raw samples with "
        "the machine's "
        "speed beside them, unless compare.machine_units divides each sample by its round's yardstick. "
        + verdict_rule(threshold), "",
        *familywise.line(table, "ratio", threshold, primary),
        "## The machine between the runs", "",
        *machine_speed.section(table),
        "## Medians", "",
        "Verdicts: " + counts(table), "",
        *could_tell(table, threshold),
        *hoisted,
        shown.to_markdown(index=False, floatfmt=".4g") if len(shown) else "_(no configuration on both sides)_", "",
        "## Paired ratios: do the runs reach the same conclusions?", "",
        *_ratios_section(ratios, threshold, primary),
        *memory_plans.section(plans),
        "## Configurations on one side only", "",
        one_sided.to_markdown(index=False) if len(one_sided) else "_(none: both runs have the same configurations)_",
        "",
    ]
    return "\n".join(lines)
