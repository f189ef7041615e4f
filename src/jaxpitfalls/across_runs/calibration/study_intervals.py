"""How often the studies' own intervals cover what they should, from a run's or a snapshot's tables: the floors' A/A
twins (truth 1) over subsets of each job's processes, and rows and medians simulated from each job's spreads.

    jaxpitfalls calibration intervals RUN_OR_SNAPSHOT [...]
    jaxpitfalls calibration intervals --rule STUDY:PRECISION:SHARE:MOST RUN_OR_SNAPSHOT [...]

`--rule`: a study's rows simulated under measure.target_precision's third process.

Twin subsets and a job's rows share processes, so their Wilson intervals are too narrow.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import digamma, polygamma

from ...harness import clustered, moderated
from ...harness.pooled import STEADY, group_of
from ...harness.stats import enough_within, is_difference, is_twin, relative_half_width, wilson
from ...report.tables.aggregate import POOLED
from ..reference.reestimate import estimated_job, step_groups
from . import between_processes
from .between_processes import THIRD_TARGET, THIRDS, shown, thirds_of

SIMULATED = 400  # simulated jobs per job measured and number of processes
SHARE_FORMAT = ("g", "g", "g", ".3f", ".3f", ".3f", ".3f", ".3f", ".3f")  # processes, rows, covered; the shares
SHOWN = ["processes", "rows", "covered", "share", "share_low", "share_high", *THIRDS]  # the thirds' bounds in words
COVERAGE_TARGET = (0.93, 0.97)  # the rows' coverage of their true ratio, about 95%
Job = tuple[pd.DataFrame, pd.DataFrame]  # one configuration's comparisons rows (its own and its processes'), steps


def _share(covered: int, rows: int) -> dict[str, Any]:
    low, high = wilson(covered, rows)
    return {"rows": rows, "covered": covered, "share": covered / rows if rows else float("nan"),
            "share_low": low, "share_high": high}


def table_jobs(root: Path, study: str = "*") -> Iterator[Job]:
    """Every job of a finished run (results/tables/<study>/) or a published snapshot (tables/<study>/)."""
    tables = root / "tables" if (root / "tables").is_dir() else root / "results" / "tables"
    for comparisons_csv in sorted(tables.glob(f"{study}/comparisons.csv")):
        comparisons = pd.read_csv(comparisons_csv).assign(process=lambda t: t.process.astype(str))
        steps = pd.read_csv(comparisons_csv.with_name("steps.csv")).assign(process=lambda t: t.process.astype(str))
        for config, rows in comparisons.groupby("config_id", sort=False):
            yield rows, steps[steps.config_id == config]


def pool_parts(job: Job) -> tuple[list[Job], list[Job]]:
    """A job's comparison rows, then its steps, split as the estimators pool them."""
    rows, steps = job
    steps = steps if len(steps.columns) else pd.DataFrame(columns=["variant", "mode", "process"])  # none kept
    groups = step_groups(steps)
    by_pair = [group_of(pair, groups) for pair in zip(rows.variant, rows.baseline, rows["mode"], strict=True)]
    by_own = [groups.get(key, STEADY) for key in zip(steps.variant, steps["mode"], strict=True)]
    return ([(rows[[g == group for g in by_pair]], steps) for group in dict.fromkeys(by_pair)],
            [(rows, steps[[g == group for g in by_own]]) for group in dict.fromkeys(by_own)])


def _processes(rows: pd.DataFrame) -> list[str]:
    return sorted(set(rows.process) - {POOLED})


def twin_coverage(jobs: Sequence[Job], sizes: Sequence[int] = (2, 3)) -> pd.DataFrame:
    """Per number of processes: how many twin rows' intervals held 1, over every subset of that many of a job's
    processes."""
    found = []
    for size in sizes:
        held = total = 0
        for rows, steps in jobs:
            for kept in itertools.combinations(_processes(rows), size):
                job = estimated_job(rows[rows.process.isin([POOLED, *kept])], steps)
                twins = job[(job.process == POOLED) & job.variant.map(is_twin)]
                held += int(((twins.ratio_ci_low <= 1) & (1 <= twins.ratio_ci_high)).sum())
                total += len(twins)
        found.append({"processes": size, **_share(held, total)})
    return pd.DataFrame(found)


def _own(rows: pd.DataFrame) -> pd.DataFrame:
    """Each two-variant row's processes' rows, not the A/A twin's."""
    plain = [not is_twin(v) and not is_difference(v, b) for v, b in zip(rows.variant, rows.baseline, strict=True)]
    return rows[(rows.process != POOLED) & np.array(plain, dtype=bool)]


def _spreads(rows: pd.DataFrame) -> np.ndarray:
    """Each two-variant row's spread between processes (sd of log-ratios), not the A/A twin's; rows whose processes
    agreed exactly are left out."""
    sd = _own(rows).groupby(["variant", "baseline", "mode"]).ratio.agg(lambda r: np.std(np.log(r), ddof=1)).dropna()
    return sd[sd > 0].to_numpy()


def replicated(jobs: Sequence[Job]) -> dict[str, Any]:
    """Split-process replication of the two-variant rows of every job of enough processes (between_processes.py),
    each job's kinds apart (`job#part`: one cluster)."""
    logs = [(f"{n}#{part}", np.log(_own(rows).pivot_table(index=["variant", "baseline", "mode"], columns="process",
                                                          values="ratio").dropna().to_numpy(dtype=float)))
            for n, job in enumerate(jobs) for part, (rows, _) in enumerate(pool_parts(job)[0])]
    return between_processes.split_share(between_processes.split_margins(logs))


def _median_components(steps: pd.DataFrame) -> tuple[np.ndarray, float, np.ndarray]:
    """A job's medians' components: each row's spread on its degrees of freedom, and the offset all rows share;
    nothing without two processes."""
    own = steps[steps.process != POOLED]
    logs = np.log(own.pivot_table(index=["variant", "mode"], columns="process", values="median_ms").dropna()
                  .to_numpy(dtype=float))
    if logs.ndim != 2 or logs.shape[0] < 2 or logs.shape[1] < 2:
        return np.array([]), 0.0, np.array([])
    (n, k), centred = logs.shape, logs - logs.mean(axis=1, keepdims=True)
    common, share, residual, df = moderated.components(centred, np.ones(n, dtype=bool), k - 1)
    shared = math.sqrt(moderated.shared_variance(common, share, residual, k - 1))
    return np.sqrt(residual[residual > 0]), shared, df[residual > 0]


def true_spreads(sd: np.ndarray, df: float | np.ndarray) -> tuple[float, float]:
    """A job's true log variances' centre and spread: its rows' log variances, each on its `df`, beyond what
    sampling alone gives (limma's deconvolution)."""
    e, df = np.log(sd ** 2), np.broadcast_to(df, np.shape(sd))
    beyond = float(e.var(ddof=1) - np.mean(polygamma(1, df / 2))) if len(e) > 1 else 0.0
    return float(np.mean(e - digamma(df / 2) + np.log(df / 2))), math.sqrt(max(beyond, 0.0))


Truth = tuple[float, float, int, float]  # a job's true log variances' centre and spread, its rows, its shared offset
Rule = tuple[float, float, int]  # jobs/study.py's third process: target_precision, target_share, max_processes


def _half_widths(found: list[moderated.Estimate]) -> list[float]:
    return [relative_half_width({"ratio": math.exp(e.mean), "ratio_ci_low": math.exp(e.low),
                                 "ratio_ci_high": math.exp(e.high)}) for e in found]


def _taken(values: np.ndarray, first: int, rule: Rule | None) -> tuple[list[moderated.Estimate], int]:
    """A job's estimates at `first` processes, more by `rule` while too few rows are within its precision."""
    k, found = first, moderated.pooled(values[:, :first])
    while rule and rule[0] and k < values.shape[1] and not enough_within(_half_widths(found), rule[0], rule[1]):
        k += 1
        found = moderated.pooled(values[:, :k])
    return found, k


def _simulated(truths: Sequence[Truth], sizes: Sequence[int], seed: int, rule: Rule | None = None) -> pd.DataFrame:
    """Per number of processes (the first, by `rule`), the coverage of jobs simulated SIMULATED times from
    `truths` (true ratio 1), spreads drawn afresh, also per third of rows by true spread."""
    rng = np.random.default_rng(seed)
    found = []
    for size in sizes:
        covered, third, job, more = [], [], [], []
        most = size if rule is None else max(size, rule[2])
        for drawn, (centre, spread, rows, shared) in enumerate(t for t in truths for _ in range(SIMULATED)):
            sd = np.exp((centre + spread * rng.standard_normal(rows)) / 2)
            values = rng.standard_normal((rows, most)) * sd[:, None]
            if shared:  # drawn only where there is one
                values += shared * rng.standard_normal(most)
            estimates, k = _taken(values, size, rule)
            covered += [e.low <= 0 <= e.high for e in estimates]
            third += list(thirds_of(sd))
            job += [drawn] * rows
            more.append(k > size)
        table = pd.DataFrame({"covered": np.array(covered, dtype=float), "third": third, "job": job})
        row = {"processes": size if rule is None else f"{size}-{most}", **_clustered_share(table),
               "took more": float(np.mean(more))}
        for k, name in enumerate(THIRDS):
            mine = _clustered_share(table[table.third == k])
            row |= {name: mine["share"], f"{name} low": mine["share_low"], f"{name} high": mine["share_high"]}
        found.append(row)
    return pd.DataFrame(found)


def _clustered_share(table: pd.DataFrame) -> dict[str, Any]:
    """The share of `covered` rows, its interval over the simulated jobs as clusters (they share a pooled spread)."""
    if table.empty:
        return {"rows": 0, "covered": 0, "share": np.nan, "share_low": np.nan, "share_high": np.nan}
    share, low, high = clustered.mean_interval(table.covered, table.job)
    return {"rows": len(table), "covered": int(table.covered.sum()), "share": share,
            "share_low": max(low, 0.0), "share_high": min(high, 1.0)}


def _truth(sd: np.ndarray, df: float | np.ndarray, shared: float = 0.0) -> Truth:
    return (*true_spreads(sd, df), len(sd), shared)


def _row_truths(jobs: Sequence[Job]) -> list[Truth]:
    spreads = [(_spreads(rows), len(_processes(_own(rows))) - 1) for rows, _ in jobs]
    return [_truth(sd, df) for sd, df in spreads if len(sd)]


def simulated_coverage(jobs: Sequence[Job], sizes: Sequence[int] = (2, 3, 5), seed: int = 0) -> pd.DataFrame:
    """Per number of processes, the coverage of jobs simulated from the rows' spreads (true ratio 1)."""
    return _simulated(_row_truths(jobs), sizes, seed)


def sequential_coverage(jobs: Sequence[Job], rule: Rule, first: int = 2, seed: int = 0) -> pd.DataFrame:
    """Rows simulated as `simulated_coverage`'s at `first` processes, at the rule's most, and by `rule`: what
    stopping where rows look precise (by chance?) costs."""
    truths = _row_truths(jobs)
    return pd.concat([_simulated(truths, [first, rule[2]], seed), _simulated(truths, [first], seed, rule)])


def simulated_median_coverage(jobs: Sequence[Job], sizes: Sequence[int] = (2, 3, 5), seed: int = 0) -> pd.DataFrame:
    """Per number of processes, the coverage of jobs' medians simulated from `_median_components`, as over_processes
    estimates them."""
    return _simulated([_truth(sd, df, shared) for sd, shared, df in (_median_components(steps) for _, steps in jobs)
                       if len(sd)], sizes, seed)


def coverages(roots: Sequence[Path]) -> tuple[int, pd.DataFrame, pd.DataFrame, pd.DataFrame, dict[str, Any]]:
    """The jobs of the runs or snapshots named, counted, with their twins', simulated rows' and medians' coverage,
    and their rows' split-process replication."""
    jobs = [job for root in roots for job in table_jobs(root)]
    parts = [pool_parts(job) for job in jobs]
    return (len(jobs), twin_coverage(jobs), simulated_coverage([p for rows, _ in parts for p in rows]),
            simulated_median_coverage([p for _, steps in parts for p in steps]), replicated(jobs))


def section(roots: Sequence[str | Path], jobs: int, twins: pd.DataFrame, simulated: pd.DataFrame,
            medians: pd.DataFrame, split: dict[str, Any] | None = None) -> list[str]:
    """The calibration page's lines on the studies' own intervals (`roots` named as given)."""
    return [
        "## The studies' own intervals", "",
        f"From {jobs} jobs of {', '.join(str(r) for r in roots)}: every study's rows, each job's "
        "intervals estimated by harness/moderated.py (the spread between fresh processes pooled across the job's "
        "rows). The floors' A/A twins (true ratio 1), their job estimated again from every subset of its "
        "processes:", "", twins.to_markdown(index=False, floatfmt=SHARE_FORMAT), "",
        "A twin compares the floor with itself inside one process, so no process offset moves it: it is judged "
        "on its own spread between processes, pooled with its job's other twins only (harness/pooled.py), and "
        "about 5% of its intervals are expected to miss 1 (target 93-97% covered, as the rows below). Rows "
        "simulated from each job's spreads between processes (true ratio 1; target 93-97%): each simulated job draws "
        "its rows' true spreads afresh, log-normal about the job's, as far apart as its rows' measured spreads are "
        "beyond what their few processes alone spread them (a spread on 1 or 2 degrees of freedom is often several "
        "times its truth or a fraction of it, so the measured spreads taken as truths would exaggerate how the rows "
        "differ; limma's deconvolution, true_spreads):",
        "", simulated[SHOWN].to_markdown(index=False, floatfmt=SHARE_FORMAT), "",
        thirds_line(simulated, "rows"), "",
        "A job's medians over its processes (report/tables/over_processes.py: each process's median, their mean on "
        "the log scale, the spread pooled across the job's rows), simulated from each job's spreads as the rows "
        "are: each row's own, drawn as above, and the offset a slow process puts on every row alike (true value "
        "known; target 93-97%):", "", medians[SHOWN].to_markdown(index=False, floatfmt=SHARE_FORMAT), "",
        thirds_line(medians, "medians"), "",
        *([between_processes.split_line(split), ""] if split is not None else []),
    ]


def thirds_judged(coverage: pd.DataFrame) -> str:
    """The outer thirds against THIRD_TARGET at every number of processes, with their draws' intervals, in words."""
    return clustered.IN_WORDS[clustered.least({
        clustered.against(r[name], r[f"{name} low"], r[f"{name} high"], THIRD_TARGET)
        for _, r in coverage.iterrows() for name in (THIRDS[0], THIRDS[2])})]


def _with_bounds(coverage: pd.DataFrame, name: str) -> str:
    return ", ".join(f"{shown(r[name], THIRD_TARGET)} [{r[f'{name} low']:.1%}, {r[f'{name} high']:.1%}]"
                     for _, r in coverage.iterrows())


def thirds_line(coverage: pd.DataFrame, what: str) -> str:
    """The noisiest and the quietest third's coverage against their target, which the average hides."""
    return (f"By third of each job's {what} ranked by their spread: the noisiest third covered in "
            f"{_with_bounds(coverage, THIRDS[2])} and the quietest in {_with_bounds(coverage, THIRDS[0])} at "
            f"{', '.join(map(str, coverage.processes))} processes (target {THIRD_TARGET[0]:.0%}-"
            f"{THIRD_TARGET[1]:.0%} in the quietest and the noisiest third: {thirds_judged(coverage)}): pooling pulls "
            "a noisy row's spread toward the others', so its interval is narrower than its own and a quiet row's "
            "wider.")


def _rule(text: str) -> tuple[str, Rule]:
    try:
        study, precision, share, most = text.split(":")
        return study, (float(precision), float(share), int(most))
    except ValueError:
        sys.exit(f"jaxpitfalls calibration intervals: --rule wants STUDY:PRECISION:SHARE:MOST "
                 f"(generation:0.5:0.5:3), not {text!r}")


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 0 if argv else 2
    study, rule = _rule(argv[1] if len(argv) > 1 else "") if argv[0] == "--rule" else ("*", None)
    roots = [Path(a) for a in (argv[2:] if rule else argv)]
    missing = [str(r) for r in roots if not r.is_dir()]
    if missing or not roots:
        named = ", ".join(missing) or "(none named)"
        sys.exit(f"jaxpitfalls calibration intervals: not a run or snapshot directory: {named}")
    if rule:
        jobs = [p for root in roots for job in table_jobs(root, study) for p in pool_parts(job)[0]]
        if not jobs:
            sys.exit(f"jaxpitfalls calibration intervals: no job of study {study!r} in {', '.join(map(str, roots))}")
        print(sequential_coverage(jobs, rule).to_markdown(index=False, floatfmt=".3f"))
    else:
        print("\n".join(section(roots, *coverages(roots))))
    return 0
