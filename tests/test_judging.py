"""One shape for every study's claims (report.judging): a claim's function registered under its key, refused
where the spec declares no such judged claim or twice; a judged claim without its function refused when the
report runs, naming it; every study's claims module registers exactly the claims its spec declares judged."""

from __future__ import annotations

import pandas as pd
import pytest
from hand_tables import run_on

from jaxpitfalls.contract import registry
from jaxpitfalls.contract.verdicts import Judged
from jaxpitfalls.report.judging import Judges, once_per_run
from jaxpitfalls.studies.dispatch.spec import SPEC


def test_a_key_the_spec_does_not_judge_is_refused_at_registration():
    judges = Judges(SPEC)
    with pytest.raises(KeyError, match="no judged claim 'slowr'"):
        judges("slowr")
    not_judged = next(k for k, c in SPEC.claims.items() if not c.judged)
    with pytest.raises(KeyError, match=f"no judged claim {not_judged!r}"):
        judges(not_judged)
    judges("slower")(lambda run: Judged(measured="", verdict="inconclusive"))
    with pytest.raises(KeyError, match="'slower' is judged twice"):
        judges("slower")


def test_a_judged_claim_without_its_function_is_refused_naming_it_and_rows_are_named_by_their_key():
    judges = Judges(SPEC)
    judges("slower")(lambda run: Judged(measured="", verdict="inconclusive"))
    with pytest.raises(KeyError, match="no function judges \\['where', 'structure'"):
        judges.judge({})
    for key in [k for k, c in SPEC.claims.items() if c.judged][1:]:
        judges(key)(lambda run: Judged(measured="", verdict="inconclusive"))
    assert [j.claim for j in judges.judge({})] == [k for k, c in SPEC.claims.items() if c.judged]


@pytest.mark.parametrize("name", registry.names())
def test_every_study_judges_exactly_its_spec_s_judged_claims(name):
    judges = registry.judges(name)
    assert sorted(judges._by_key) == sorted(k for k, c in registry.spec(name).claims.items() if c.judged)


def test_a_derived_table_is_computed_once_per_run():
    calls = []

    def count(run):
        calls.append(1)
        return len(run.steps)

    run = run_on(SPEC, "base", steps=pd.DataFrame({"config_id": ["base", "other"]}))
    assert (run.derived(count), run.derived(count), len(calls)) == (2, 2, 1)
    assert run.base_id == "base"
    counted = once_per_run(count)  # as claims modules declare their shared helpers
    other = run_on(SPEC, "base", steps=pd.DataFrame({"config_id": ["base"]}))
    assert (counted(other), counted(other), counted(run), len(calls)) == (1, 1, 2, 2)  # run's cached above


@pytest.mark.parametrize(("measured", "verdict", "refused"), [
    ("not measured: the config sweeps no layers", "inconclusive", True),  # more samples would decide nothing
    ("1.2 ms [0.8, 1.6]", "not measured", True),  # a number measured, called unmeasured
    ("not measured: the config sweeps no layers", "not measured", False),
    ("1.2 ms [0.8, 1.6]", "inconclusive", False),
])
def test_a_claim_the_run_did_not_measure_says_so_in_its_verdict_and_its_words_alike(measured, verdict, refused):
    judges = Judges(SPEC)
    for key in [k for k, c in SPEC.claims.items() if c.judged]:
        judges(key)(lambda run: Judged(measured=measured, verdict=verdict))
    if refused:
        with pytest.raises(ValueError, match="claim slower: verdict"):
            judges.judge({})
    else:
        assert {j.verdict for j in judges.judge({})} == {verdict}
