"""`measure.target_precision` reached over fresh processes (jobs/study.py `_enough`, harness.processes
.half_widths): `processes` first, then one more at a time until every ratio of two variants' times is known to
the target (or `target_share` of them), or `max_processes` (three times `processes` unless set) have timed it;
refused over one process."""

from __future__ import annotations

import pytest
from results_docs import process_doc

from jaxpitfalls.contract.settings import Timing
from jaxpitfalls.harness.processes import half_widths
from jaxpitfalls.harness.sampling import Sampling
from jaxpitfalls.harness.stats import enough_within
from jaxpitfalls.jobs.study import _enough


def _measured(*levels: float) -> list[dict]:
    """Each process's result: variant v at `level` times floor f, exactly (its ratio is the level)."""
    return [{"doc": process_doc(level, seed)} for seed, level in enumerate(levels)]


def _timing(**fields) -> Timing:
    return Timing(sampling=Sampling(rounds=3), **fields)


def test_a_third_process_that_agrees_brings_the_interval_within_the_target():
    two, three = _measured(1.10, 1.11), _measured(1.10, 1.11, 1.105)
    assert half_widths([m["doc"] for m in two])["v / f (m)"] > 0.05  # t on 1 degree of freedom: 12.7
    assert half_widths([m["doc"] for m in three])["v / f (m)"] < 0.05
    timing = _timing(processes=2, target_precision=0.05)
    assert [_enough(two[:1], timing), _enough(two, timing), _enough(three, timing)] == [False, False, True]


def test_a_job_says_which_ratios_a_further_process_is_for(caplog):
    """A walk's job ran to its most processes, its log saying only "process 4 (3 planned, up to 4 ...)"."""
    caplog.set_level("INFO", logger="jaxpitfalls.jobs.study")
    assert not _enough(_measured(1.10, 1.11), _timing(processes=2, target_precision=0.05))
    (said,) = [r.getMessage() for r in caplog.records]
    assert said.startswith("0 of 1 ratios within +-5.0% after 2 process(es); the widest: v / f (m) +-")


def test_processes_stop_at_the_most_and_without_a_target_at_the_first():
    apart = _measured(1.0, 1.3, 1.0, 1.3, 1.0, 1.3)
    target = _timing(processes=2, target_precision=0.01)
    assert target.most_processes == 6 and not _enough(apart[:5], target) and _enough(apart, target)
    assert _enough(apart[:4], _timing(processes=2, target_precision=0.01, max_processes=4))
    assert _enough(apart[:2], _timing(processes=2)) and _timing(processes=2).most_processes == 2


def test_a_demonstration_keeps_its_processes_however_wide(caplog):
    """The warmup demonstration compiles in its timed region by design: a further process would buy no decision,
    and its log says why none follows where the first line said "up to 3"."""
    apart, timing = _measured(1.0, 1.3), _timing(processes=2, target_precision=0.05)
    assert not _enough(apart, timing)
    for m in apart:
        m["doc"]["demonstration"] = "insufficient warmup"
    caplog.set_level("INFO", logger="jaxpitfalls.jobs.study")
    assert _enough(apart, timing) and not _enough(apart[:1], timing)
    assert [r.getMessage() for r in caplog.records] == [
        "a demonstration keeps its 2 processes: its ratios are wide by design"]


def test_a_target_over_one_process_or_a_most_below_the_first_is_refused():
    with pytest.raises(ValueError, match="target_precision: 0.05 is reached over fresh processes"):
        _timing(processes=1, target_precision=0.05)
    with pytest.raises(ValueError, match=r"max_processes: 2 is below processes \(3\)"):
        _timing(processes=3, max_processes=2)


def test_a_share_of_the_rows_within_the_target_can_suffice():
    widths = [0.01, 0.02, 0.03, 0.09]  # one noisy row among four
    assert not enough_within(widths, 0.04, 1.0) and enough_within(widths, 0.04, 0.75)
    assert not enough_within(widths, 0.04, 0.76) and enough_within(widths[:3], 0.04, 1.0)
    assert enough_within([0.01] * 11 + [0.09], 0.04, 11 / 12)  # a share written as a fraction, not rounded away
