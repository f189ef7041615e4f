"""A study's paired ratios across a library's releases, and the steps in them: which release changed a cost.

Each release is timed in its own environment; within a job variants interleave, so a ratio to the floor cancels the
machine's drift. A result that ran another release is refused; a release that failed to install is listed, never
read as a change.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ...harness.stats import is_difference, is_twin
from ...report.scorecard.audit import twin_rows, twin_sections
from ..comparison.compare import environment_changes
from ..settings import History
from . import release_plans
from .changepoints import Fit, Parts, fit_steps, resting_alone
from .figure import figure
from .primary import family_text, matches
from .release_levels import FIT_PARTS, SERIES, detectable_change, df_words, release_levels, series_rows
from .runs import cause_line, read_runs

COLUMNS = ["release", "job", *SERIES, "ratio", "ratio_ci_low", "ratio_ci_high", "ratio_df", "detectable_change",
           "versions", "ran_at"]
STEP_COLUMNS = [*SERIES, "step", "before", "after", "ratio", "ratio_ci_low", "ratio_ci_high", "or_between",
                "also_changed", "one_release", "set_apart", "releases", "ruled_out", "detectable_change",
                "between_jobs", "blocks_taken", "declared"]


class WrongRelease(RuntimeError):
    """A result measured another release of the package than asked for."""


def _versions(environment: dict[str, Any]) -> str:
    packages = environment["packages"]
    return ", ".join(f"{p} {packages[p]}" for p in ("jax", "jaxlib", "equinox", "optax") if packages.get(p))


def release_rows(release: str, package: str, doc: dict[str, Any]) -> list[dict[str, Any]]:
    """One result's paired ratios of two variants (no differences or A/A twins), with its release and `job`, after
    checking the release."""
    measured = doc["environment"]["packages"].get(package)
    if measured != release:
        raise WrongRelease(f"{doc['study']} {doc['config_id']}: asked for {package} {release}, the job's "
                           f"environment had {package} {measured}")
    return [{"release": release, "job": doc.get("job", 1), **{k: c[k] for k in SERIES[1:]},
             "config_id": doc["config_id"],
             "ratio": c["ratio"], "ratio_ci_low": c["ratio_ci_low"], "ratio_ci_high": c["ratio_ci_high"],
             "ratio_df": c.get("ratio_df", np.nan),  # a result from before it: the table read as before
             "detectable_change": detectable_change(c["ratio_ci_low"], c["ratio_ci_high"], c.get("ratio_df", np.inf)),
             "versions": _versions(doc["environment"]), "ran_at": doc["environment"].get("timestamp", "")}
            for c in doc["comparisons"]
            if not is_difference(c["variant"], c["baseline"]) and not is_twin(c["variant"])]


def job_comparisons(measured: dict[str, list[dict[str, Any]]]) -> pd.DataFrame:
    """Every job's comparisons in one table (`config_id`: release, job, configuration), for the audit's A/A twins."""
    compared = ["variant", "mode", "ratio", "ratio_ci_low", "ratio_ci_high"]
    return pd.DataFrame([{"release": release, "config_id": f"{release}/job{doc.get('job', 1)}/{doc['config_id']}",
                          **{k: c[k] for k in compared}}
                         for release, docs in measured.items() for doc in docs for c in doc["comparisons"]],
                        columns=["release", "config_id", *compared])


def order_line(ratios: pd.DataFrame, releases: list[str]) -> list[str]:
    """Each release's mean place in the run order: equal, a drift adds alike; trending, it reads as a step."""
    jobs = ratios.drop_duplicates(["release", "job", "config_id"]).sort_values(["ran_at", "release", "job"])
    if jobs.release.nunique() < 2 or not jobs.ran_at.astype(bool).all():
        return []
    place = jobs.assign(place=range(len(jobs))).groupby("release").place.mean()
    mean = [place[r] for r in releases if r in place.index]
    said = ("every release at the same mean place: a drift over the run adds the same to each" if len(set(mean)) == 1
            else "lined up with the releases: a drift of the machine over the run would read as a step"
            if mean in (sorted(mean), sorted(mean, reverse=True)) else "shuffled, not in the releases' order")
    return [f"Jobs ran {said} (their results' timestamps): "
            + ", ".join(f"{r.release} job {r.job}" for r in jobs.itertuples()) + ".", ""]


def ratios_table(measured: dict[str, list[dict[str, Any]]], package: str) -> pd.DataFrame:
    """Every job's paired ratios (`measured`: release -> its results, releases in order)."""
    rows = [r for release, docs in measured.items() for doc in docs for r in release_rows(release, package, doc)]
    return pd.DataFrame(rows, columns=COLUMNS)


def also_changed(before: dict[str, Any], after: dict[str, Any], package: str) -> str:
    """What else differs between two releases' environments: a step there may be theirs."""
    changes = environment_changes(before, after).split("; ")
    return "; ".join(c for c in changes if c and not c.startswith(f"{package} "))


def environments(measured: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Each release's environment, as its first result recorded it."""
    return {release: docs[0]["environment"] for release, docs in measured.items() if docs}


def steps_table(levels: pd.DataFrame, releases: list[str], package: str,
                envs: dict[str, dict[str, Any]], primary: Sequence[str] = ()) -> pd.DataFrame:
    """Per series: each step (with what else changed) or a `step` 0 row with what it rules out; `one_release`,
    `set_apart`: single-job releases a step rests on (not named), or kept with their neighbours."""
    rows = []
    for key, series, fit in fitted(levels, releases, primary):
        common = dict(zip(SERIES, key, strict=True)) | {
            "releases": len(series), "ruled_out": fit.ruled_out, "set_apart": " / ".join(fit.set_apart),
            "detectable_change": float(series.detectable_change.median()),
            "between_jobs": series.between_jobs.iloc[0], "blocks_taken": int(series.blocks_taken.iloc[0]),
            "declared": matches(key, primary)}
        rows += [common | {"step": i + 1, "before": s.before, "after": s.after, "ratio": s.ratio,
                           "ratio_ci_low": s.low, "ratio_ci_high": s.high,
                           "or_between": "; ".join(f"{a} -> {b}" for a, b in s.also_between),
                           "also_changed": also_changed(envs[s.before], envs[s.after], package),
                           "one_release": " / ".join(resting_alone(fit, s))}
                 for i, s in enumerate(fit.steps)]
        rows += [] if fit.steps else [common | {"step": 0}]
    return pd.DataFrame(rows, columns=STEP_COLUMNS)


def fitted(levels: pd.DataFrame, releases: list[str],
           primary: Sequence[str] = ()) -> Iterator[tuple[tuple, pd.DataFrame, Fit]]:
    """Per series: its key, levels in release order, and fit (false alarms controlled over all series, or over
    the declared ones)."""
    for key, at, fit in fits(levels, releases, primary):
        yield key, levels.iloc[at].set_index("release"), fit


def fits(levels: pd.DataFrame, releases: list[str],
         primary: Sequence[str] = ()) -> Iterator[tuple[tuple, np.ndarray, Fit]]:
    """Per series: its key, its rows' positions in release order (releases not listed left out), and fit; in numpy,
    as simulated histories fit thousands of series; a series `primary` declares corrected over those alone
    (docs/decisions.md#the-jobs-own-degrees-of-freedom)."""
    every = list(series_rows(levels))
    declared = {key for key, _ in every if matches(key, primary)}
    place = levels.release.map({r: i for i, r in enumerate(releases)}).to_numpy(dtype=float)
    label, ratio, low, high, jobs, df, known = (levels[c].to_numpy() for c in (
        "release", "ratio", "ratio_ci_low", "ratio_ci_high", "jobs", "df", "jobs_df_known"))
    parts = Parts(*(levels[c].to_numpy(dtype=float) for c in Parts._fields))
    for key, mine in every:
        at = mine[~np.isnan(place[mine])]
        at = at[np.argsort(place[at], kind="stable")]
        family = len(declared) if key in declared else len(every)
        yield key, at, fit_steps(list(label[at]), ratio[at], low[at], high[at], series=family,
                                 single=list(jobs[at] == 1), df=list(df[at]),
                                 parts=Parts(*(p[at] for p in parts)) if known[at].all() else None)


def summary_lines(steps: pd.DataFrame, package: str) -> list[str]:
    """One line per series: its steps with their size, or no step within what it rules out; `declared` series
    marked."""
    lines = [] if len(steps) else [f"No {package} release was measured: each one's reason is below."]
    for key, rows in steps.groupby(SERIES, sort=False):
        config_id, variant, baseline, mode = key
        name = f"`{variant}` / `{baseline}` ({mode}, {config_id})" + (" (declared primary)" if rows.declared.iloc[0]
                                                                      else "")
        if rows.releases.iloc[0] < 2:
            lines.append(f"- {name}: measured in {rows.releases.iloc[0]} release: nothing to compare")
            continue
        if (rows.step == 0).all():
            bound = 1 + rows.ruled_out.iloc[0]
            lines.append(f"- {name}: no step over {rows.releases.iloc[0]} releases; a change beyond "
                         f"{1 / bound:.3f}x-{bound:.3f}x is ruled out")
            continue
        apart = rows.set_apart.iloc[0]
        lines.append(f"- {name}: " + "; ".join(_step_text(r, package) for r in rows.itertuples())
                     + (f" ({package} {apart}, timed in one job, also fits in a segment of its own: one job's offset "
                        "or a step of its own, not told apart until it is timed again)"
                        if isinstance(apart, str) and apart else ""))
    return lines


def _step_text(r, package: str) -> str:
    size = f"{package} {r.before} -> {r.after}: {r.ratio:.3f}x [{r.ratio_ci_low:.3f}, {r.ratio_ci_high:.3f}]"
    alone = isinstance(r.one_release, str) and r.one_release
    text = (f"{size} rests on release {r.one_release} alone (one job's offset looks the same): not a step until "
            "that release is timed again in another job (history.repeats: 2)" if alone else f"**{size}**")
    return (text + (f" (or {r.or_between}: the measurements cannot tell which)" if r.or_between else "")
            + (f" ({r.also_changed} changed too)" if r.also_changed else ""))


def jobs_line(steps: pd.DataFrame, repeats: int) -> str:
    """How many jobs each release had, and the spread between jobs of one release where that could be told."""
    if steps.between_jobs.isna().all():
        return (f"**Each release timed in {repeats} job(s): read a step named here as a lead, not a finding.** "
                "The spread between jobs of one release is not estimated, so each release's interval is its one "
                "job's and misses what a fresh job would move; the calibration's simulated null histories name a "
                "step where nothing changed more often at one job a release than at two (docs/results/"
                "calibration.md). A step resting on one release's job is not named; "
                "`history.repeats: 2` times every release twice and puts that spread into every release's "
                "interval.")
    series = steps.drop_duplicates(SERIES)
    spread = series.between_jobs
    taken = int((series.blocks_taken > 0).sum()) if "blocks_taken" in series else 0  # older tables lack it
    blocks = (f" In {taken} of {len(series)} series the blocks (the k-th job of every release, timed in one pass) "
              "differed beyond the jobs' scatter (a slower hour, a run stopped and resumed): each block's offset "
              "was taken out first." if taken else "")
    return (f"Each release timed in {repeats} jobs: between jobs of one release, beyond their own intervals, a "
            f"spread of {spread.median():.1%} in median over the series (largest {spread.max():.1%}), added to "
            f"every release's interval before the fit.{blocks}")


def environments_line(history: History) -> list[str]:
    """Each release's environment as asked for, alike ones grouped; a file's expectations are not judged here."""
    from ... import registry
    from ..releases import requirements_of

    asked: dict[str, list[str]] = {}
    for release in history.versions:
        pinned = [line for line in requirements_of(history, release) if "==" in line
                  and not line.startswith(f"{history.package}==")]
        mine = history.pythons.get(release)
        asked.setdefault(f"your environment {mine}" if mine else ", ".join(pinned) or "nothing", []).append(release)
    file = (f" `{history.study}` is your benchmark file ({registry.where(history.study)}): its `EXPECT` sentences "
            "are judged by a study run (reports/report.md), not across releases." if registry.is_file(history.study)
            else "")
    return ["Environments asked for, besides the release (a release's `pins` over `with` over the default table "
            "in docs/history.md; the rest unpinned): " + "; ".join(f"{', '.join(rs)}: {what}" for what, rs in
                                                                   asked.items()) + "." + file, ""]


def markdown(ratios: pd.DataFrame, levels: pd.DataFrame, steps: pd.DataFrame, unavailable: dict[str, str],
             history: History, lost: dict[tuple[str, int, str], str] | None = None) -> str:
    """reports/history.md: the steps, how they were decided, failed releases, lost jobs, the rows."""
    package = history.package
    failed = [f"- `{package} {release}`: {cause_line(reason)}" for release, reason in unavailable.items()]
    gone = [f"- `{package} {release} job {job} ({config_id})`: {cause_line(reason)}"
            for (release, job, config_id), reason in (lost or {}).items()]
    return "\n".join([
        f"# {history.study} across {package} releases", "",
        "## What changed", "", *summary_lines(steps, package), "",
        "A series without a step rules out only what its releases' intervals allow: more jobs a release "
        "(`history.repeats`) or more processes a job (the study's `measure.processes`) narrow it.", "",
        "![Each release's paired ratio](figures/history.png)", "",
        "## How it was judged", "",
        f"Each release timed in an environment of its own ({len(history.versions)} releases asked for; the "
        "versions each result recorded are in the table). A release's ratio is each variant's paired ratio to "
        "its floor inside that release's jobs, so the machine's drift between jobs cancels. Steps: the exact "
        "best piecewise-constant fit over the releases in order, each weighted by its own interval, keeping the "
        "most steps whose every step is told apart at 95% after a Bonferroni correction over the places a step "
        f"could be {family_text(steps, history.primary)}; each step's size with its 95% interval; a step beside a "
        "segment of one release timed in one job rests on that job alone and is not named one. Where there is "
        f"none, the change ruled out. {df_words(levels)}", "", *environments_line(history),
        jobs_line(steps, history.repeats), "",
        *order_line(ratios, list(history.versions)),
        *(["## Jobs lost", "", "Their measurement failed (the reason below; the job's log has the rest): their "
            "release's other jobs stand and the steps are fit without them. To time one again, delete its result "
            "(results/history/runs/<release>/job<k>/) or name it to `snakemake --forcerun`; a release that "
            "loses every job is listed without a result.", "",
            *gone, ""] if gone else []),
        *(["## Releases without a result", "", "Their environment did not install or import, or every job of theirs "
            "was lost: not a change.", "",
            *failed, ""] if failed else []),
        "## Steps", "", "`ruled_out`, where a series has no step: the change its releases rule out either way, as a "
        "share (0.505: beyond 1/1.505x-1.505x, as \"What changed\" says).", "",
        steps.to_markdown(index=False, floatfmt=".3f"), "",
        "## Each release's ratios", "",
        levels.drop(columns=FIT_PARTS).to_markdown(index=False, floatfmt=".3f"), "",
        *(["## Each job's ratios", "", ratios.to_markdown(index=False, floatfmt=".3f"), ""]
          if history.repeats > 1 else []),
    ])


def run_summary(benchmark_paths: list[str], run_target_s: float) -> list[str]:
    """The history's jobs' seconds against the target (0: not judged, as in a calibration)."""
    seconds = {path: float(pd.read_csv(path, sep="\t")["s"].iloc[0]) for path in benchmark_paths}
    installs = sum(s for p, s in seconds.items() if "/release_env/" in p)
    total = sum(seconds.values())
    judged = (f" against the target's {run_target_s:.0f} s: {'met' if total <= run_target_s else '**missed**'}"
              if run_target_s else "")
    return [f"{len(seconds)} jobs, {total:.0f} s ({total / 60:.1f} min){judged}; building the environments "
            f"{installs:.0f} s of it (one job after another: no timing job ran beside an install)."]


def write_history(run_paths: list[str], benchmark_paths: list[str], params, out) -> None:
    """The history's tables, figure and reports/history.md from every release's results and its jobs' benchmarks."""
    from ... import results
    from ...contract.figures import save

    history = History.of(params.history)
    releases = list(history.versions)
    measured, unavailable, lost = read_runs(run_paths, releases)
    ratios = ratios_table(measured, history.package)
    levels = release_levels(ratios)
    steps = steps_table(levels, releases, history.package, environments(measured), history.primary)
    plans = release_plans.plans_table(measured)
    results.write_csv(out.ratios, ratios)
    results.write_csv(out.steps, steps)
    results.write_csv(out.memory_plans, plans)
    save(figure(levels, steps, releases, history.package), out.figure)
    twins = twin_sections({history.study: twin_rows(job_comparisons(measured))})
    results.write_text(out.report, markdown(ratios, levels, steps, unavailable, history, lost)
                       + "\n".join([*release_plans.section(plans, history.package),
                                    *(["## Audit", "", *twins] if twins else []),
                                    "## Run summary", "", *run_summary(benchmark_paths, params.run_target_s), ""]))
