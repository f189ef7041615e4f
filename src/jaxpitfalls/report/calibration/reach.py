"""How far the calibration page's rates reach: what it calibrates, what it leaves out, and how much its own
intervals can be trusted. A rate measured on one kind of decision says nothing of another, and a reader who
carries the lockstep rows' 95% to the scorecard, the gate or the release history has been misled by omission."""

from __future__ import annotations


def reach_lines(rows: int, processes: int, configurations: int, factors: list[float],
                history_repeats: int | None) -> list[str]:
    """The page's closing section, from the run's own counts: `rows` of the table a gate would judge, the
    injected `factors` (above 1), and the null history's jobs a release (None where none ran)."""
    sizes = " and ".join(f"{f - 1:.0%}" for f in sorted(factors))
    null = f" (the null history below times every release {history_repeats} times)" if history_repeats else ""
    return [
        "## What this page calibrates, and what it does not", "",
        f"Calibrated here: the lockstep comparison's rows, each judged on its own, at {processes} fresh process"
        f"{'es' * (processes > 1)} a side: false alarms and coverage on A/A rows, and how often a {sizes} slowdown "
        "is found.", "",
        "Not calibrated here:", "",
        "- the studies' own intervals (every scorecard interval, a release's level in the history, "
        "`target_precision`): Student's t over each job's fresh processes, their spread pooled across the job's "
        "rows (harness/moderated.py), covering 93-97% of simulated rows at 2, 3 and 5 processes "
        "(tests/test_moderated.py); nothing on this page measures their coverage on real jobs;",
        f"- the gate after its correction: the rates above are per row; the gate names a row only where its change "
        f"beyond the threshold survives Benjamini-Hochberg over every row of the table it judges ({rows} here), "
        "and tests the rows as a whole by flipping the signs of whole processes; its power and its false fails "
        "are simulated (tests/test_gate_power.py), not measured on this page;",
        f"- a release history at `history.repeats: 1`{null}, and comparisons at fewer processes than these;",
        "- how often a real change of another size is called unchanged.", "",
        "How far the rates reach: each share's Wilson interval counts the rows as independent, while the rows of "
        f"one configuration share its fresh processes ({rows} rows over {configurations} configurations), so "
        "those intervals are too narrow; and an injected row is an A/A row times a known factor "
        "(harness/injected.py), which tests the intervals' width, not a change that differs by variant or mode.", "",
    ]


def one_pair_line(harnesses_found_change: list[str]) -> list[str]:
    """Beside pyperf, one A/A pair per harness: its seconds to ±5% extrapolate one interval's width. What holds
    without extrapolating is which harness called its own A/A pair changed."""
    said = ("; what holds without extrapolating: " + " and ".join(f"`{h}`" for h in harnesses_found_change)
            + " called the A/A pair changed, a false alarm") if harnesses_found_change else ""
    return ["One A/A pair per harness: each `machine_s_to_5pct` extrapolates one interval's width, and a second "
            f"pair could move it several-fold{said}.", ""]
