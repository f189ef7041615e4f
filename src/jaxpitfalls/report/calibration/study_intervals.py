"""How often the studies' own intervals cover what they should, from finished runs' results (issue 70's first
target): the floors' A/A twins, whose true ratio is 1, at every subset of 2, 3, ... of each job's fresh processes
(report/reference/thinned.py keeps the subset and merges it again: harness.processes.merge estimates as a job
does), and rows simulated from the spread between processes each run measured, row by row, at 2, 3 and 5
processes, where the truth is known and the estimator (harness/moderated.py) is the same.

    python -m jaxpitfalls.report.calibration.study_intervals RUN [RUN ...]

A twin's subsets of one job share processes, and the rows of one job share them too: the Wilson intervals below
count them as independent, so they are too narrow; the simulated rows are independent by construction.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...harness import moderated
from ...harness.stats import is_difference, is_twin, wilson
from ..reference.thinned import Cut, thin

SIMULATED = 400  # simulated jobs per run job and number of processes


def _share(covered: int, rows: int) -> dict[str, Any]:
    low, high = wilson(covered, rows)
    return {"rows": rows, "covered": covered, "share": covered / rows if rows else float("nan"),
            "share_low": low, "share_high": high}


def twin_coverage(docs: Sequence[dict[str, Any]], sizes: Sequence[int] = (2, 3)) -> pd.DataFrame:
    """Per number of processes: how many twin rows' intervals held 1, over every subset of that many of each
    job's processes (jobs with fewer are left out)."""
    found = []
    for size in sizes:
        twins = [c for doc in docs if doc.get("processes", 1) >= size
                 for kept in itertools.combinations(range(doc["processes"]), size)
                 for c in thin(doc, Cut(processes=kept))["comparisons"] if is_twin(c["variant"])]
        held = sum(c["ratio_ci_low"] <= 1 <= c["ratio_ci_high"] for c in twins)
        found.append({"processes": size, **_share(held, len(twins))})
    return pd.DataFrame(found)


def _spreads(doc: dict[str, Any]) -> np.ndarray:
    """A job's rows of two variants' times (not the floor's A/A twin): each one's spread between processes (sd of
    the processes' log-ratios) as the run measured it; rows whose processes agreed to the last bit are left out."""
    logs = [np.log(c["process_ratios"]) for c in doc["comparisons"]
            if not is_difference(c["variant"], c["baseline"]) and not is_twin(c["variant"])
            and None not in c.get("process_ratios", [None])]
    sd = np.array([np.std(x, ddof=1) for x in logs if len(x) > 1])
    return sd[sd > 0]


def simulated_coverage(docs: Sequence[dict[str, Any]], sizes: Sequence[int] = (2, 3, 5),
                       seed: int = 0) -> pd.DataFrame:
    """Per number of processes: jobs shaped as the runs' own (their rows, each row's measured spread taken as its
    true one, true ratio 1) simulated SIMULATED times each, every row's interval from moderated.pooled."""
    rng = np.random.default_rng(seed)
    jobs = [sd for sd in map(_spreads, docs) if len(sd)]
    found = []
    for size in sizes:
        held = total = 0
        for sd in jobs:
            for _ in range(SIMULATED):
                rows = moderated.pooled(rng.standard_normal((len(sd), size)) * sd[:, None])
                held += sum(e.low <= 0 <= e.high for e in rows)
                total += len(rows)
        found.append({"processes": size, **_share(held, total)})
    return pd.DataFrame(found)


def run_docs(run: Path) -> list[dict[str, Any]]:
    """A finished run's timing results (results/runs/<study>/*.json)."""
    return [json.loads(p.read_text()) for p in sorted((run / "results" / "runs").glob("*/*.json"))]


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    docs = [doc for run in argv for doc in run_docs(Path(run))]
    print(f"{len(docs)} jobs from {', '.join(argv)}\n")
    print("A/A twins (true ratio 1), every subset of each job's processes:\n")
    print(twin_coverage(docs).to_markdown(index=False, floatfmt=".3f"))
    print("\nRows simulated from the measured spread between processes (true ratio 1):\n")
    print(simulated_coverage(docs).to_markdown(index=False, floatfmt=".3f"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
