"""A lockstep comparison's verdicts: every side against the first, per configuration, variant and mode.

A round times all sides within a fraction of a second, so its ratio sees one machine; a fresh process shifts all its
rounds alike, so processes are the independent units. The sides' order was counterbalanced; `order_effect` checks it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...harness import moderated
from . import familywise, memory_plans, process_t
from .compare import code_columns, environment_changes, verdict
from .compare_report import between, code_alike, could_tell, counts, hoisted_columns, moved_lines, verdict_rule

COLUMNS = ["study", "config_id", "variant", "mode", "side", "against", "ratio", "ratio_ci_low", "ratio_ci_high",
           "p_value", "df", "rounds", "processes", "contended_rounds", "order_effect", "injected", "verdict",
           "detectable_change", "samples_factor", "processes_needed", "against_median_ms", "side_median_ms",
           "environment_changes", "process_log_ratios", "same_code", "code_changed"]


TEXT = ("environment_changes", "process_log_ratios", "code_changed")


def read_table(path) -> pd.DataFrame:
    # as side_by_side made it: a text column left empty (no environment change) reads "", not NaN
    return pd.read_csv(path, dtype=dict.fromkeys(TEXT, str)).fillna(dict.fromkeys(TEXT, ""))


def _injected(timed: dict[str, Any], side: str) -> float:
    """The slowdown a calibration injected into `side` against the first: the ratio the row must find, else 1."""
    first = timed["sides"][0]
    fraction = {name: timed["descriptions"][name][0].get("injected_slowdown", 0.0) for name in (first, side)}
    return (1 + fraction[side]) / (1 + fraction[first])


def estimated(found: moderated.Estimate, own: Sequence[float], threshold: float) -> dict[str, Any]:
    """A row's estimate as the lockstep table holds it (process_t.as_row's, `log_sd` among them), its verdict and
    its processes' log-ratios, which the gate's sign flips read back."""
    c = process_t.as_row(found)
    return c | {"verdict": verdict(c["ratio_ci_low"], c["ratio_ci_high"], threshold),
                "process_log_ratios": ";".join(f"{x:.6g}" for x in own)}


def side_by_side(doc: dict[str, Any], threshold: float = 0.05) -> pd.DataFrame:
    """One lockstep result's rows: each later side's paired ratio to the first with its verdict, spreads pooled over
    the job's processes."""
    timed = doc["timed"]
    first, *others = timed["sides"]
    processes = timed["processes"]
    keys = [(mode, variant, side) for mode, variants in processes[0][first].items() for variant in variants
            for side in others]
    logs = [process_t.process_logs([p[side][mode][variant] for p in processes],
                                   [p[first][mode][variant] for p in processes]) for mode, variant, side in keys]
    recompiling = {v for described in timed["descriptions"].values() for d in described
                   for v in d.get("recompiling", ())}  # a benchmark file's RECOMPILES, on any side
    pooled = moderated.in_groups(moderated.pooled, logs, [variant in recompiling for _, variant, _ in keys])
    rows = []
    for (mode, variant, side), own, found in zip(keys, logs, pooled, strict=True):
        c = estimated(found, own, threshold)
        spread = c.pop("log_sd")
        rows.append({
            "study": doc["study"], "config_id": doc["config_id"], "variant": variant, "mode": mode,
            "side": side, "against": first, **c, "rounds": timed["rounds"], "processes": len(processes),
            "contended_rounds": contended_rounds(timed, mode),
            "order_effect": order_effect(timed, side, mode, variant), "injected": _injected(timed, side),
            "environment_changes": environment_changes(timed["descriptions"][first][0]["environment"],
                                                       timed["descriptions"][side][0]["environment"]),
            "against_median_ms": process_t.median_ms([p[first][mode][variant] for p in processes]),
            "side_median_ms": process_t.median_ms([p[side][mode][variant] for p in processes]),
            **code_columns(*(_ran(timed["descriptions"][s][0]) for s in (first, side)), variant,
                           warm=variant not in recompiling),  # a call compiling anew: its lowered code, as two runs
        } | process_t.detectability(spread, len(processes), threshold, c["df"]))
    return pd.DataFrame(rows, columns=COLUMNS)


def _ran(described: dict[str, Any]) -> dict[str, Any]:
    """A side's first worker's description as two runs compared read a result: each variant's fingerprints."""
    built = described.get("executables") or {}
    return {"variants": {v: {"signature": s} | ({"executable": built[v]} if built.get(v) else {})
                         for v, s in (described.get("signatures") or {}).items()}}


def order_effect(timed: dict[str, Any], side: str, mode: str, variant: str) -> float | None:
    """The median ratio where `side` went first over where it went second (None where the order was not recorded or
    it never went first)."""
    first = timed["sides"][0]
    ahead, behind = [], []
    for process, orders in zip(timed["processes"], timed.get("orders") or [], strict=False):
        ratios = np.asarray(process[side][mode][variant]) / np.asarray(process[first][mode][variant])
        went_first = np.array([order.index(side) < order.index(first) for order in orders[mode][variant]])
        ahead += ratios[went_first].tolist()
        behind += ratios[~went_first].tolist()
    return float(np.median(ahead) / np.median(behind)) if ahead and behind else None


def contended_rounds(timed: dict[str, Any], mode: str) -> int | None:
    """The rounds of `mode` busier than the job's limit (None where the machine was not watched)."""
    watched = timed.get("machine")
    return None if watched is None else sum(r["contended"] for process in watched for r in process[mode])


def _machine_line(timed_docs: list[dict[str, Any]]) -> list[str]:
    """The machine during the rounds: other processes' and steal's shares, and the busy rounds (kept: a neighbour
    slows both sides alike)."""
    rounds = [r for t in timed_docs for process in t.get("machine") or [] for mode in process.values() for r in mode]
    if not rounds:
        return ["_(machine not watched: results from before the lockstep watched it)_", ""]
    others = sorted(r["others_share"] for r in rounds if r["others_share"] is not None)
    steal = sorted(r["steal_share"] for r in rounds if r["steal_share"] is not None)
    if not others:
        return ["Machine: not measurable here (no kernel counters).", ""]
    limit = {t["max_busy_share"] for t in timed_docs if "max_busy_share" in t}
    contended = sum(r["contended"] for r in rounds)
    return [f"Machine, round by round (the workers' own CPU taken out): other processes median "
            f"{others[len(others) // 2]:.1%} of the cores (max {others[-1]:.1%}), steal median "
            f"{steal[len(steal) // 2]:.1%} (max {steal[-1]:.1%}); {contended} of {len(rounds)} rounds contended "
            f"beyond {', '.join(f'{x:.0%}' for x in sorted(limit))} of the cores, kept (a round pairs the sides: a "
            "neighbour slows its sides alike; `contended_rounds` per row).", ""]


def machine_parts(docs: list[dict[str, Any]]) -> dict[str, float]:
    """Lockstep jobs' machine time: the rounds, as each round's window timed them (a sample may record a step's
    share of its call), the rest, and jobs with no windows apart."""
    windowed, unwindowed = [], []  # the second: timed before windows were recorded
    for doc in docs:
        (windowed if doc["timed"].get("machine") else unwindowed).append(doc)
    rounds = sum(window["wall_s"] for doc in windowed for process in doc["timed"]["machine"]
                 for windows in process.values() for window in windows)
    parts = {"lockstep jobs' rounds (the sides' blocks in turn)": rounds,
             "the rest of the lockstep jobs (workers' starts, imports, models, compiles, warm-up, calibration)":
                 sum(doc["job_seconds"] for doc in windowed) - rounds}
    if unwindowed:
        parts[f"{len(unwindowed)} lockstep job(s) with no rounds' windows recorded"] = sum(
            doc["job_seconds"] for doc in unwindowed)
    return parts


def _order_line(table: pd.DataFrame, threshold: float) -> list[str]:
    effects = table.order_effect.dropna() if len(table) else pd.Series(dtype=float)
    if not len(effects):
        return ["_(no side order recorded: a result from before the order was counterbalanced)_", ""]
    moved = effects[(effects - 1).abs() > threshold]
    return [f"Side order: counterbalanced and recorded (every side first in equally many rounds of each "
            f"variant). A side's ratio in the rounds it went first over those it went second (`order_effect`): "
            f"median {effects.median():.3f} over {len(effects)} rows (range {effects.min():.3f}-"
            f"{effects.max():.3f}); {len(moved)} beyond ±{threshold:g}"
            + (": going first moves the ratio there, and the verdicts rest on the balance of the order."
               if len(moved) else "."), ""]


def set_up_line(docs: list[dict[str, Any]]) -> list[str]:
    """How the jobs were timed as each recorded it (an edited threshold reruns no job)."""
    recorded = sorted({(d["processes"], d["rounds"], d["samples_per_block"]) for d in
                       (doc["lockstep"] for doc in docs if "lockstep" in doc)})
    said = "; ".join(f"{p} fresh process{'es' * (p > 1)} x {r} rounds x {s} sample{'s' * (s > 1)} per block a side"
                     for p, r, s in recorded)
    more = more_processes(docs)
    named = [doc["lockstep"].get("variants", []) for doc in docs if "lockstep" in doc]
    chosen, naming = sorted({v for vs in named for v in vs}), sum(map(bool, named))
    partly = f" (in {naming} of {len(named)} jobs; the others timed all)" if naming < len(named) else ""
    only = f" Only the variants compare.variants names: {', '.join(chosen)}{partly}." if chosen else ""
    return [f"Timed: {said}, as the {len(docs)} job{'s' * (len(docs) > 1)} recorded{'; ' + more if more else ''}."
            f"{only}", ""] if recorded else []


def more_processes(docs: list[dict[str, Any]]) -> str:
    """Where jobs had a target precision, how many timed more processes to reach it and how many stopped at their
    most ('' without one): each job's own share and most, as its configuration's allocation set them."""
    growing = [d for d in docs if d.get("lockstep", {}).get("target_precision")]
    if not growing:
        return ""
    targets = sorted({d["lockstep"]["target_precision"] for d in growing})
    shares = sorted({d["lockstep"].get("target_share", 1.0) for d in growing})
    rows = "every row was" if shares == [1.0] else f"{', '.join(f'{s * 100:g}%' for s in shares)} of the rows were"
    most = sorted({d["lockstep"]["max_processes"] for d in growing})
    timed = [(len(d["timed"]["processes"]), d["lockstep"]) for d in growing]
    more = sorted(n for n, recorded in timed if n > recorded["processes"])
    at_most = sum(n >= recorded["max_processes"] > recorded["processes"] for n, recorded in timed)
    jobs = f"{len(growing)} jobs" if len(growing) == len(docs) else f"the {len(growing)} jobs with a target"
    return (f"more processes one at a time until {rows} within ±{', '.join(f'{t:.1%}' for t in targets)} of their "
            f"ratio or {most[0] if len(most) == 1 else f'{most[0]}-{most[-1]}'} had timed it: {len(more)} of "
            f"{jobs} took more ({', '.join(map(str, more)) or 'none'} processes), {at_most} stopped at their most")


def _file_state(environment: dict[str, Any]) -> str:
    """How a side's benchmark file stood in its repository: at a commit, or edited since (none: a packaged study)."""
    git = (environment.get("study_code") or {}).get("git")
    if not git:
        return ""
    if git.get("commit") and not git.get("dirty"):
        return f", the benchmark file as committed at `{git['commit'][:7]}`"
    if not git.get("commit"):  # the file, or a module beside it that it imports, untracked
        return ", the benchmark file as it is on disk (it or a module beside it that it imports in no commit)"
    return ", the benchmark file with uncommitted changes (it or a module beside it that it imports)"


def _in_brief(table: pd.DataFrame, threshold: float, timed_docs: list[dict[str, Any]]) -> list[str]:
    """The rows that moved, what differs between the sides, and the figure, before how they were timed."""
    if not len(table):
        return []
    rows, _ = moved_lines(table, threshold, "the table below")
    return ["## In brief", "", f"Time per call, each side / the first, paired round by round (95% interval), at "
            f"±{threshold:g}: {counts(table)}.", "", *rows, "", *between(table, "sides"), *code_alike(table, "sides"),
            *_declared_apart(timed_docs),
            "![Each row's ratio to the first side with its 95% interval, coloured by its verdict]"
            "(figures/compare_lockstep.png)", ""]


DECLARED = {  # what a side's worker described, by the file's name for it
    "OUTPUTS_DIFFER": lambda described: described.get("checks", {}).get("outputs_agree", {}).get("differ_on_purpose"),
    "SAME_OUTPUTS_AS": lambda described: [f"{v}: {other}" for v, other in described.get("checks", {}).get(
        "outputs_agree", {}).get("against", {}).items()],
    "RECOMPILES": lambda described: described.get("recompiling")}


def _declared_apart(timed_docs: list[dict[str, Any]]) -> list[str]:
    """Variants a side's file declares otherwise than the first's (DECLARED's names)."""
    said = set()
    for timed in timed_docs:
        first, *others = timed["sides"]
        described = timed.get("descriptions", {})  # a result from before sides were described
        for side in others:
            for name, declared in DECLARED.items():
                mine, theirs = (set(declared(described.get(s, [{}])[0]) or ()) for s in (side, first))
                said |= {f"`{side}` declares {name} `{v}` and `{first}` does not" for v in sorted(mine - theirs)}
                said |= {f"`{first}` declares {name} `{v}` and `{side}` does not" for v in sorted(theirs - mine)}
    return [f"Declared apart: {'; '.join(sorted(said))}: those rows compare a computation with another.", ""] if said \
        else []


def markdown(table: pd.DataFrame, sides: dict[str, dict[str, Any]], threshold: float,
             timed_docs: list[dict[str, Any]] = (), set_up: list[str] = (), primary: Sequence[str] = (),
             plans: pd.DataFrame | None = None) -> str:
    """reports/compare_lockstep.md: sides, rule, machine and order checks, verdicts, rows."""
    recorded = timed_docs[0].get("descriptions", {}) if timed_docs else {}
    environments = {name: recorded.get(name, [{}])[0].get("environment", {}) for name in sides}
    commits = {name: ((env.get("study_code") or {}).get("git") or {}).get("commit")
               for name, env in environments.items()}
    described = [f"- `{name}`: {side.get('python') or 'this environment'}"
                 + (f", the benchmark file at revision `{side['revision']}`"
                    + (f" (`{commits[name][:7]}`)" if commits[name] else "") if side.get("revision") else
                    _file_state(environments[name]))
                 + (f", with {', '.join(f'{k}={v}' for k, v in side['env'].items())}" if side.get("env") else "")
                 for name, side in sides.items()]
    uninjected = "injected" in table and (table.injected == 1).all()
    hidden = ["against", "process_log_ratios"] + (["injected"] if uninjected else [])
    shown, hoisted = hoisted_columns(table.drop(columns=hidden)) if len(table) else (table, [])
    return "\n".join([
        "# Lockstep comparison", "",
        *_in_brief(table, threshold, list(timed_docs)),
        "The sides, each in its own warm worker processes, timed in lockstep: every round asks each side for one "
        "short block of each variant, the sides in a counterbalanced order, so that a round's ratio side / first "
        "side compares blocks a fraction of a second apart on the same machine (drift cancels). Ratio: over the "
        "fresh processes, the mean of each one's median log-ratio, with Student's t 95% interval on the spread "
        "between processes, pooled with the job's other rows (`df`: its degrees of freedom; a process shifts all "
        "its rounds alike: the processes are the independent units; one process gives no interval); "
        "`against_median_ms` and `side_median_ms` are each side's own median, which may read otherwise than the "
        "ratio of rounds paired. " + verdict_rule(threshold), "",
        *described, "",
        *set_up,
        *_machine_line(list(timed_docs)),
        *_order_line(table, threshold),
        "Verdicts: " + counts(table), "",
        *familywise.line(table, "ratio", threshold, primary, familywise.gate_rate("lockstep")),
        *could_tell(table, threshold, "`processes_needed` per row: that many fresh processes a side "
                    "(`compare.processes`), at the spread between processes this run saw"),
        *hoisted,
        shown.to_markdown(index=False, floatfmt=".4g") if len(shown) else "_(no configuration timed)_", "",
        *memory_plans.section(plans, "on the first side (`baseline_*`) and each other (`current_*`)"),
    ])
