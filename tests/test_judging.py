"""One shape for every study's claims (contract.judging): a claim's function registered under its key, refused
where the spec declares no such judged claim or twice; a judged claim without its function refused when the
report runs, naming it; every study's claims module registers exactly the claims its spec declares judged; a
claim whose effect needs an accelerator is not testable on a CPU backend where it came out "no"."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from hand_tables import run_on

from jaxpitfalls import registry
from jaxpitfalls.contract.decisions import applicable
from jaxpitfalls.contract.judging import NO_STRUCTURE, Judges, once_per_run
from jaxpitfalls.contract.verdicts import Judged
from jaxpitfalls.studies.dispatch.spec import SPEC

# A run's one job at BERT-base's 12-layer pytree (hidden 64): it holds a structure the write-up measured at.
AT_PYTREE = pd.DataFrame({"config_id": ["base"], "axes": ["layers"], "layers": [12], "hidden": [64]})


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
        judges.judge({"checks": AT_PYTREE})
    for key in [k for k, c in SPEC.claims.items() if c.judged][1:]:
        judges(key)(lambda run: Judged(measured="", verdict="inconclusive"))
    assert [j.claim for j in judges.judge({"checks": AT_PYTREE})] == [k for k, c in SPEC.claims.items() if c.judged]


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
            judges.judge({"checks": AT_PYTREE})
    else:
        assert {j.verdict for j in judges.judge({"checks": AT_PYTREE})} == {verdict}


@pytest.mark.parametrize(("backend", "verdict", "shown"), [
    ("cpu", "not reproduced", "not testable"),  # what the claim's effect consists of is not on a CPU
    ("cpu", "not measured", "not testable"),  # nor could a variant built here measure it
    ("cpu", "reproduced", "not testable"),  # a CPU's "yes" is not the claim's effect either: one rule, both ways
    ("cpu", "inconclusive", "not testable"),
    ("gpu", "not reproduced", "not reproduced"),  # an accelerator's "no" refutes it
])
def test_a_claim_whose_effect_needs_an_accelerator_is_not_testable_on_a_cpu_whatever_it_came_out(backend, verdict,
                                                                                                  shown):
    """The engine's one rule (Judges.one, then claims.applicable) for every claim whose spec declares its effect
    an accelerator's, not a check inside each claim's function."""
    spec = replace(SPEC, claims={k: replace(c, accelerator="a copy is a memcpy here") if k == "slower" else c
                                 for k, c in SPEC.claims.items()})
    judges = Judges(spec)
    said = "not measured: no variant" if verdict == "not measured" else "1.00x [0.99, 1.01]"
    judges("slower")(lambda run: Judged(measured=said, verdict=verdict))
    judges("where")(lambda run: Judged(measured="1.00x", verdict="not reproduced"))
    run = run_on(spec, "base", environment=pd.DataFrame({"backend": [backend]}))
    slower, where = (applicable(judges.one(run, key)) for key in ("slower", "where"))
    assert slower.verdict == shown and where.verdict == "not reproduced"  # only the declared claim
    told = said.removeprefix("not measured: ")  # what it would need, told as such
    assert slower.measured == (f"not testable on this hardware: a copy is a memcpy here; {told}" if shown ==
                               "not testable" else said)
    assert spec.claims["slower"].stated_rule.endswith("not testable on a CPU backend: a copy is a memcpy here")


@pytest.mark.parametrize(("measured", "supporting"), [
    ("1.2 ms [0.8, 1.6] at base (BERT-base's 12-layer pytree at hidden 64, not its 768: supporting only)", True),
    ("1.2 ms [0.8, 1.6] at the write-up's structure (layers12-hidden768)", False),
])
def test_a_verdict_whose_words_say_it_rests_on_a_smaller_structure_is_marked_supporting(measured, supporting):
    """The engine marks it from the words the reader reads (contract.verdicts.SUPPORTING), so the tally counts
    apart exactly the cells that say so (a reference run: six dispatch verdicts at hidden 64 were counted with
    those at the write-ups' structures)."""
    judges = Judges(SPEC)
    judges("slower")(lambda run: Judged(measured=measured, verdict="inconclusive"))
    judged = judges.one(run_on(SPEC, "base", checks=AT_PYTREE), "slower")
    assert (judged.supporting, judged.measured) == (supporting, measured)


@pytest.mark.parametrize(("verdict", "supporting"), [("reproduced", True), ("not measured", False)])
def test_every_verdict_of_a_run_without_the_write_up_s_structure_is_supporting_and_says_so(verdict, supporting):
    """The default config's one-layer BERT at hidden 64: whatever configuration a claim picks, it is smaller than
    any the write-up measured (make all at e02ec98 counted 40 such verdicts with those at the structure)."""
    said = "not measured: nothing" if verdict == "not measured" else "1.2x [1.1, 1.3] at base"
    judges = Judges(SPEC)
    judges("slower")(lambda run: Judged(measured=said, verdict=verdict))
    one_layer = AT_PYTREE.assign(layers=1)
    judged = judges.one(run_on(SPEC, "base", checks=one_layer), "slower")
    assert judged.supporting is supporting
    assert judged.measured == (said + NO_STRUCTURE if supporting else said)
