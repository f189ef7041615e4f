"""How far the calibration page's rates reach: what it calibrates, what it leaves out, and how much its own
intervals can be trusted. A rate measured on one kind of decision says nothing of another, and a reader who
carries the lockstep rows' 95% to a decision the page did not measure has been misled by omission."""

from __future__ import annotations


def reach_lines(rows: int, per_side: int, processes: int, configurations: int, factors: list[float],
                history_repeats: int | None, studies: bool = False) -> list[str]:
    """The page's closing section, from the run's own counts: the table's `rows`, `per_side` of them a gate
    judges, the injected `factors` (above 1), the null history's jobs a release (None where none ran), and
    whether the published reference's studies were read."""
    sizes = " and ".join(f"{f - 1:.0%}" for f in sorted(factors))
    null = (f"- the release history's false steps: one null history timed with {history_repeats} job(s) a release, "
            "and null histories simulated from its variance components at 1 and 2 jobs a release;"
            if history_repeats else "- the release history: no null history ran with this page;")
    return [
        "## What this page calibrates, and what it does not", "",
        "Calibrated here:", "",
        f"- the lockstep comparison's rows at {processes} fresh process{'es' * (processes > 1)} a side, each judged "
        f"on its own: false alarms and coverage on A/A rows, how often a {sizes} slowdown is found, and `regressed` "
        "at the threshold's edge;",
        "- the gate after its correction (Benjamini-Hochberg over a side's rows, and the sign-flip test of the rows "
        f"as a whole) on those rows ({per_side} a side, each side judged alone): its power and its false fails;",
        *(["- the studies' own intervals on the published reference: false alarms on the floors' A/A twins, and "
            "coverage of rows and of medians simulated from each job's measured spreads between processes;"]
          if studies else []),
        null, "",
        "Not calibrated here:", "",
        "- the comparison of two separate runs (`compare.baseline`: their medians and ratios): the same estimator "
        "over processes, unpaired (harness/moderated.two_sample; 95-96% of simulated rows covered at 2, 3 and 5 "
        "processes a run, with and without an offset a run's rows share, tests/test_moderated.py), but no A/A pair "
        "of separate runs is timed here;",
        *([] if studies else ["- the studies' own intervals: no published reference was read with this page;"]),
        "- a job's step shares, relative IQRs and compile-time ratios over its processes: the same estimator "
        "(report/tables/over_processes.py), checked on simulated rows only (tests/test_moderated.py);",
        "- the studies' intervals where a real change differs from process to process (a twin has none; the "
        "simulated rows draw each process's offset from a normal with the row's measured spread);",
        "- comparisons at fewer processes than these, and how often a real change of another size is called "
        "unchanged.", "",
        "How far the rates reach: the rows of one configuration share its fresh processes "
        f"({rows} rows over {configurations} configurations), so each share's interval counts its effective rows: "
        "its rows over the larger design effect of its rows' margins (how far each interval lies past the event, "
        "clustered by configuration) and of its own hits, with t on the configurations' degrees of freedom "
        "(report/calibration/clustered.py). An injected row is an "
        "A/A row times a known factor (harness/injected.py), which tests the intervals' width, not a change that "
        "differs by variant or mode.", "",
    ]
