"""The extraction claims bounded by what this hardware can show, or judged on what the guards and probes found, on
known numbers: vectorizing's timed gain is not testable where removing every copy of jit_padded's pass could
give no more than its interval's width, scanning over
batches is judged on its interval alone (it gains more than the dispatching it saves), the copies' share at a
small batch is not testable where a copy is a host memcpy (a CPU backend), returning every layer's activations
from a jitted call that compiles nothing in its timed passes refutes "it breaks JIT", the write-up's un-jitted
decode step with activations is judged on eager / jit on one token, donated parameters on what donating
them freed, and the fixes' ranking on their intervals in the write-up's order."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hand_tables import run_on

from jaxpitfalls.contract.decisions import applicable
from jaxpitfalls.contract.judging import Run
from jaxpitfalls.contract.verdicts import ANOTHER_DEVICE, NOT_MEASURED, NOT_TESTABLE, Bound
from jaxpitfalls.studies.extraction.claims import (
    JUDGES,
    _apply_auto_jit,
    _decode_activations,
    _device_get_async,
    _donate_params,
    _fix,
    _return_activations,
    ranked,
)
from jaxpitfalls.studies.extraction.spec import SCAN, SPEC

BASE = "layers24-hidden896"  # the write-up's structure (QWEN2_05B)
COMP = pd.DataFrame([{"config_id": BASE, "layers": 24, "hidden": 896, "axes": "layers,hidden"}])


def _pass(variant: str, pass_ms: float, transfer_ms: float, storage_ms: float = 0.0, spread: float = 0.0) -> dict:
    """A variant's pass at batch 2: `transfer_ms` and `storage_ms` of its `pass_ms`, the rest forward; the
    median's interval `pass_ms` -+ `spread`."""
    return {"config_id": BASE, "variant": variant, "mode": "extract", "batch": 2, "structure_sequences": 6,
            "structure_tokens": 60, "median_ms": pass_ms, "median_ci_low_ms": pass_ms - spread,
            "median_ci_high_ms": pass_ms + spread, "phase_forward_ms": pass_ms - transfer_ms - storage_ms,
            "phase_transfer_ms": transfer_ms, "phase_storage_ms": storage_ms, "first_run_seconds": 2.0,
            "first_run_compiles": 2, "n_samples": 4}


def _run(transfer_ms: float, pass_ms: float = 800.0, backend: str = "cpu", *others: dict) -> Run:
    """jit_padded's pass: `transfer_ms` of its `pass_ms` in blocking copies, the rest forward; `others`' passes."""
    steps = pd.DataFrame([_pass("jit_padded", pass_ms, transfer_ms), *others])
    return run_on(SPEC, BASE, comparisons=COMP, steps=steps, environment=pd.DataFrame({"backend": [backend]}))


def _stacked_run(ratio: tuple[float, float, float], transfer_ms: float) -> Run:
    """jit_padded / jit_padded_stacked at the write-up's structure, `ratio`; jit_padded's 6200 ms pass spends
    `transfer_ms` in blocking copies and 170 ms storing them."""
    comp = COMP.assign(variant="jit_padded", baseline="jit_padded_stacked", mode="extract", ratio=ratio[0],
                       ratio_ci_low=ratio[1], ratio_ci_high=ratio[2])
    steps = pd.DataFrame([_pass("jit_padded", 6200.0, transfer_ms, 170.0),
                          _pass("jit_padded_stacked", 6200.0 / ratio[0], 20.0, 170.0)])
    return run_on(SPEC, BASE, comparisons=comp, steps=steps)


@pytest.mark.parametrize(("ratio", "transfer_ms", "expected"), [
    ((1.03, 1.01, 1.05), 245.0, NOT_TESTABLE),  # this CPU's copies (415 ms of 6200): at most 1.072x, not ~1.5x
    ((1.03, 0.96, 1.10), 245.0, NOT_TESTABLE),
    ((0.97, 0.96, 0.98), 245.0, NOT_TESTABLE),  # a "no" alike: the estimate cannot decide what the bound rules out
    ((1.45, 1.40, 1.50), 2500.0, "reproduced"),  # an accelerator's: the write-up's ~1.5x within its reach
    ((0.97, 0.96, 0.98), 2500.0, "not reproduced"),  # there, the stacked copy slower refutes it
])
def test_vectorizing_is_timed_and_bounded_by_all_the_copies_it_could_remove(ratio, transfer_ms, expected):
    """One rule with every bounded claim: the bound on what the fix can remove against the size the write-up
    claims (1.5x), "yes" and "no" alike (a reference run read "yes" at 1.013x against a claimed 1.5x on
    hardware that could show 1.046x)."""
    judged = applicable(JUDGES.one(_stacked_run(ratio, transfer_ms), "batched_copy"))
    assert judged.verdict == expected, judged.measured
    assert f"{ratio[0]:.3f}x [{ratio[1]:.3f}, {ratio[2]:.3f}] at the write-up's structure" in judged.measured
    assert judged.ours == (ratio,)  # at the write-up's structure: the scorecard figure shows it


@pytest.mark.parametrize(("backend", "expected"), [("cpu", NOT_TESTABLE), ("gpu", NOT_MEASURED)])
def test_copies_share_at_a_small_batch_is_not_testable_where_a_copy_is_a_memcpy(backend, expected):
    judged = applicable(JUDGES.one(_run(17.5, backend=backend), "copies_small_batches"))
    assert judged.verdict == expected and "2.2% of its pass at batch 2" in judged.measured, judged.measured
    assert ("a copy is a host memcpy" in judged.measured) == (backend == "cpu")


@pytest.mark.parametrize(("timed_compiles", "calls", "expected"), [
    (0, 3, "not reproduced"),  # every layer back from one jitted call per batch, nothing recompiled: JIT works
    (2, 3, "inconclusive"),  # a guard that would have failed the job: the finding is not there to give
])
def test_returning_every_layer_is_judged_on_what_the_guards_found(timed_compiles, calls, expected):
    steps = pd.DataFrame([{"config_id": BASE, "variant": "jit", "mode": "extract", "demonstration": "",
                           "signature_forward_calls_per_pass": calls, "structure_batches": 3,
                           "structure_layers_extracted": 25, "first_run_compiles": 3,
                           "compiles_in_timed_region": timed_compiles}])
    checks = pd.DataFrame([{"config_id": BASE, "axes": "layers,hidden", "demonstration": "",
                            "outputs_agree": "5 variants vs pipelined: within rtol=0.0001"}])
    judged = _return_activations(run_on(SPEC, BASE, steps=steps, checks=checks))
    assert judged.verdict == expected
    assert judged.measured.startswith("jit returned 25 layers' hidden states per batch from 3 jitted calls")


@pytest.mark.parametrize(("transfer_ms", "storage_ms", "spread", "backend", "expected"), [
    (500.0, 500.0, 50.0, "gpu", "reproduced"),  # the write-up's loop: 1.0 s of ~2.8 s (36%)
    (500.0, 500.0, 50.0, "cpu", NOT_TESTABLE),  # a CPU's split is not the claim's: a "yes" there confirms nothing
    # this CPU's eager pass: the un-jitted forward is most of it (5%): the hardware's split, not a refutation
    (100.0, 40.0, 10.0, "cpu", NOT_TESTABLE),
    (100.0, 40.0, 10.0, "gpu", "not reproduced"),  # an accelerator's split: a small share is a "no"
    (420.0, 160.0, 400.0, "gpu", "inconclusive"),  # 20.7% with a pass median of 2.8 s -+ 0.4: 18.1-24.2%
])
def test_the_time_split_is_judged_on_copies_and_python_in_eager_s_pass(transfer_ms, storage_ms, spread, backend,
                                                                        expected):
    run = _run(17.5, 800.0, backend, _pass("eager", 2800.0, transfer_ms, storage_ms, spread))
    judged = applicable(JUDGES.one(run, "time_split"))
    assert judged.verdict == expected, judged.measured
    assert ("copies over a bus" in judged.measured) == (expected == NOT_TESTABLE)
    if transfer_ms == 100.0:  # 140 ms of a 2800 ms pass
        assert "(removing them: at most 1.053x)" in judged.measured
    assert judged.ours[0][0] == pytest.approx(100 * (transfer_ms + storage_ms) / 2800.0)  # the write-up's structure


def _scan_run(ratio: tuple[float, float, float], dispatch_ms: float) -> Run:
    """pipelined / scanned at the write-up's structure, `ratio`; pipelined's 4400 ms pass spends `dispatch_ms`
    dispatching (its forward phase), 400 ms waiting for and copying results."""
    comp = COMP.assign(variant="pipelined", baseline="scanned", mode="extract", ratio=ratio[0],
                       ratio_ci_low=ratio[1], ratio_ci_high=ratio[2])
    steps = pd.DataFrame([_pass("pipelined", 4400.0, 400.0 - dispatch_ms, 4000.0 - dispatch_ms),
                          _pass("scanned", 4400.0 / ratio[0], 400.0, 0.0)])
    steps.loc[0, "phase_forward_ms"] = dispatch_ms
    return run_on(SPEC, BASE, comparisons=comp, steps=steps)


@pytest.mark.parametrize(("ratio", "expected"), [
    ((1.055, 1.050, 1.060), "reproduced"),  # a reference run: 245 ms gained, 66 ms of it dispatching
    ((0.80, 0.75, 0.85), "not reproduced"),  # chunks that lost the overlap
    ((1.01, 0.98, 1.04), "inconclusive"),
])
def test_scanning_over_batches_is_judged_on_its_interval_with_no_bound_from_the_dispatching(ratio, expected):
    judged = applicable(_fix(_scan_run(ratio, 66.0), "scan_batches", SCAN))
    assert judged.verdict == expected, judged.measured
    assert judged.measured.startswith(f"{ratio[0]:.3f}x [{ratio[1]:.3f}, {ratio[2]:.3f}] at the write-up's structure")
    assert "over 4 timed passes per variant" in judged.measured  # how few: 2 processes x 2 rounds in a reference
    # the write-up's 1.3x is expected across several hosts: one host here supports it only (counted apart)
    assert f"on one host, {ANOTHER_DEVICE}" in judged.measured


def _pipelining_run(ratio: tuple[float, float, float], dispatch_ms: float) -> Run:
    """jit_padded_async / pipelined at the write-up's structure, `ratio`: jit_padded_async's 1938 ms pass spends
    1389 ms in its forward (dispatch and wait), the rest copying and storing; pipelined dispatches in
    `dispatch_ms` a pass (its forward phase, which waits for nothing)."""
    comp = COMP.assign(variant="jit_padded_async", baseline="pipelined", mode="extract", ratio=ratio[0],
                       ratio_ci_low=ratio[1], ratio_ci_high=ratio[2])
    steps = pd.DataFrame([_pass("jit_padded_async", 1938.0, 16.0, 533.0),
                          _pass("pipelined", 1938.0 / ratio[0], 1938.0 / ratio[0] - dispatch_ms - 530.0, 530.0)])
    return run_on(SPEC, BASE, comparisons=comp, steps=steps)


@pytest.mark.parametrize(("ratio", "dispatch_ms", "expected", "most"), [
    # make all's sizes, scaled: a pass that hides its next batch's dispatch too gains beyond its copies (1.395x)
    ((1.536, 1.502, 1.571), 477.0, "reproduced", 1.889),
    ((1.440, 1.258, 1.649), 477.0, "reproduced", 1.889),  # faster: the write-up's size is an estimate
    ((1.020, 0.950, 1.095), 477.0, "inconclusive", 1.889),
    ((1.010, 0.994, 1.027), 0.0, NOT_TESTABLE, 1.395),  # nothing dispatched apart: the host's copies alone
])
def test_pipelining_is_bounded_by_the_smaller_of_the_device_s_and_the_host_s_work_dispatch_included(
        ratio, dispatch_ms, expected, most):
    """The device works for the blocked forward less its dispatch, the host for the rest of the pass and the
    dispatch: pipelining hides at most the smaller. Copies and storage alone were refuted by the point estimate in
    runs whose pipelined pass hid batch i+1's dispatch behind batch i's run."""
    judged = applicable(JUDGES.one(_pipelining_run(ratio, dispatch_ms), "jit_padded_async/pipelined"))
    assert judged.verdict == expected, judged.measured
    bound = judged.bound
    assert bound.ratio == pytest.approx(most, abs=0.001), bound
    assert f"overlapping all it can ({bound.removable:.1f} ms of a 1938.0 ms pass)" in bound.what


def _probed(share: tuple[float, float, float], dispatch_ms: float = 0.1) -> Run:
    checks = pd.DataFrame([{"config_id": BASE, "axes": "layers,hidden", "demonstration": "",
                            "device_get_returned": "numpy.ndarray", "device_get_probes": 15,
                            "device_get_dispatch_ms": dispatch_ms, "device_get_blocked_ms": 2.0,
                            "device_get_device_get_ms": 1.8, "device_get_copy_to_host_async_ms": 0.01,
                            "device_get_share_of_run": share[0], "device_get_share_of_run_ci_low": share[1],
                            "device_get_share_of_run_ci_high": share[2]}])
    return run_on(SPEC, BASE, checks=checks)


@pytest.mark.parametrize(("share", "dispatch_ms", "expected"), [
    ((0.97, 0.95, 1.01), 0.1, "not reproduced"),  # it took the rest of the run: it waited for it
    ((0.02, 0.01, 0.04), 0.1, "reproduced"),  # it returned while the program ran
    ((0.3, 0.05, 0.7), 0.1, "inconclusive"),
    ((0.97, 0.95, 1.01), 1.9, "inconclusive"),  # the dispatch itself waited: nothing left to see
])
def test_device_get_is_judged_on_the_share_of_the_run_it_waited_for(share, dispatch_ms, expected):
    judged = _device_get_async(_probed(share, dispatch_ms))
    assert judged.verdict == expected, judged.measured
    assert judged.measured.startswith(f"jax.device_get right after a dispatch took {share[0]:.3f}")


def test_the_device_get_probe_times_a_real_dispatch_and_says_what_came_back():
    import jax
    import jax.numpy as jnp

    from jaxpitfalls.studies.extraction import device_get

    x = jnp.ones((64, 64))
    step = jax.jit(lambda a: a @ a)
    jax.block_until_ready(step(x))
    found = device_get.probe(lambda: step(x), probes=5)
    assert found["returned"] == "numpy.ndarray" and found["probes"] == 5
    assert found["share_of_run_ci_low"] <= found["share_of_run"] <= found["share_of_run_ci_high"]
    assert set(found) >= {"dispatch_ms", "blocked_ms", "device_get_ms", "copy_to_host_async_ms"}


@pytest.mark.parametrize(("forward", "freed", "second"), [
    (lambda m, ids, mask: (m["w"] * ids).sum() + m["b"].sum(), 0, "ran"),  # no output of w's shape: none reused
    (lambda m, ids, mask: m["w"] * 2 + ids + m["b"].sum(), 1, "failed"),  # an output takes w: freed, then gone
])
def test_the_donation_probe_counts_what_donating_freed_and_what_the_next_batch_did(forward, freed, second, caplog):
    import jax.numpy as jnp

    from jaxpitfalls.studies.extraction import donation

    model = {"w": jnp.ones((4, 4)), "b": jnp.ones((3,))}
    batch = (jnp.ones((4, 4)), jnp.ones((4, 4)))
    caplog.set_level("INFO")
    found = donation.probe(model, forward, batch, batch)
    assert found["parameters"] == 2 and found["freed"] == freed and found["second_batch"].startswith(second)
    assert found["warned_not_usable"] and not model["w"].is_deleted()  # "b" is never reused; the probe's copy
    assert found["freed_mb"] == pytest.approx(freed * 64 / 2**20)
    # the runtime's own error line for the refused call is announced in the job's log as expected
    assert ("error that follows is expected" in caplog.text) == bool(freed)


@pytest.mark.parametrize(("freed", "expected"), [
    (0, "not reproduced"), (1, "not reproduced"),  # none, or one buffer an output happened to match: not "freed"
    (290, "reproduced"),
])
def test_donating_the_parameters_is_judged_on_what_the_probe_freed(freed, expected):
    checks = pd.DataFrame([{"config_id": BASE, "axes": "layers,hidden", "demonstration": "",
                            "donation_parameters": 290, "donation_freed": freed, "donation_parameter_mb": 1340.0,
                            "donation_freed_mb": 1340.0 * freed / 290, "donation_warned_not_usable": freed == 0,
                            "donation_second_batch": "ran" if freed == 0 else "failed: ValueError: deleted"}])
    judged = _donate_params(run_on(SPEC, BASE, checks=checks))
    assert judged.verdict == expected, judged.measured
    assert judged.measured.startswith(f"the jitted forward with the parameters donated freed {freed} of 290")


def test_the_decode_step_probe_pairs_eager_and_jitted_calls_on_one_token():
    import jax.numpy as jnp

    from jaxpitfalls.studies.extraction import decode_step

    weights = {"w": jnp.ones((8, 8))}
    found = decode_step.probe(weights, lambda m, ids, mask: jnp.stack([m["w"] * ids.sum()] * 3), probes=5)
    assert found["probes"] == 5 and found["eager_ms"] > 0 and found["jit_ms"] > 0
    assert found["ratio_ci_low"] <= found["ratio"] <= found["ratio_ci_high"]


@pytest.mark.slow
def test_the_flax_probe_counts_one_program_per_operation_for_an_un_jitted_apply():
    from jaxpitfalls.studies.extraction import flax_apply

    found = flax_apply.probe(layers=2, hidden=8, batch=2, length=3, probes=3)
    assert found["jit_compiles"] == 1 and found["apply_compiles"] > 1, found  # Dense, gelu, LayerNorm: each its own
    assert found["layers"] == 2 and found["release"][0].isdigit()


@pytest.mark.parametrize(("apply_compiles", "expected"), [
    (19, "not reproduced"),  # a probe: one program per operation
    (1, "reproduced"),  # as many as jax.jit(model.apply): compiled as a whole
])
def test_flax_s_apply_is_judged_on_the_programs_its_first_call_compiled(apply_compiles, expected):
    checks = pd.DataFrame([{"config_id": BASE, "axes": "layers,hidden", "demonstration": "",
                            "flax_apply_release": "0.12.8", "flax_apply_layers": 24, "flax_apply_hidden": 896,
                            "flax_apply_probes": 15, "flax_apply_apply_compiles": apply_compiles,
                            "flax_apply_jit_compiles": 1, "flax_apply_apply_ms": 108.0, "flax_apply_jit_ms": 34.6,
                            "flax_apply_ratio": 3.15, "flax_apply_ratio_ci_low": 3.09,
                            "flax_apply_ratio_ci_high": 3.26}])
    judged = _apply_auto_jit(run_on(SPEC, BASE, checks=checks))
    assert judged.verdict == expected, judged.measured
    assert f"compiled {apply_compiles} programs (one per operation), jax.jit(model.apply) 1" in judged.measured


def test_an_environment_without_flax_leaves_apply_auto_jit_not_measured_saying_so():
    checks = pd.DataFrame([{"config_id": BASE, "axes": "layers,hidden", "demonstration": "",
                            "flax_apply_release": "not installed in the job's environment"}])
    judged = _apply_auto_jit(run_on(SPEC, BASE, checks=checks))
    assert judged.verdict == NOT_MEASURED and "Flax not installed" in judged.measured


@pytest.mark.parametrize(("ratio", "expected"), [
    ((6.0, 5.5, 6.6), "reproduced"),  # un-jitted: every operation dispatched on its own
    ((0.9, 0.85, 0.95), "not reproduced"),
    ((1.02, 0.9, 1.2), "inconclusive"),
])
def test_the_decode_step_with_activations_is_judged_on_eager_over_jit(ratio, expected):
    checks = pd.DataFrame([{"config_id": BASE, "axes": "layers,hidden", "demonstration": "",
                            "decode_step_probes": 15, "decode_step_eager_ms": 30.0, "decode_step_jit_ms": 5.0,
                            "decode_step_ratio": ratio[0], "decode_step_ratio_ci_low": ratio[1],
                            "decode_step_ratio_ci_high": ratio[2]}])
    judged = _decode_activations(run_on(SPEC, BASE, checks=checks))
    assert judged.verdict == expected, judged.measured
    assert judged.measured.startswith(f"the decode step with every layer's activations on one token, un-jitted / "
                                      f"jitted {ratio[0]:.3f}x")


def test_a_result_older_than_a_probe_leaves_its_claim_not_measured():
    checks = pd.DataFrame([{"config_id": BASE, "axes": "layers,hidden", "demonstration": "", "outputs_agree": "yes"}])
    judged = _decode_activations(run_on(SPEC, BASE, checks=checks))
    assert judged.verdict == NOT_MEASURED and "recorded no decode_step probe" in judged.measured


GAINS = {"jit": (3.1, 3.0, 3.2), "async copies": (1.01, 0.99, 1.03), "padding": (1.9, 1.8, 2.0),
         "pipelining": (1.02, 1.01, 1.03), "vectorizing": (1.02, 1.00, 1.04), "scan": (1.055, 1.05, 1.06)}


def test_a_ranking_against_the_write_up_s_order_names_the_pairs_that_refute_it():
    judged = ranked(GAINS)
    assert judged.verdict == "not reproduced", judged.measured
    assert judged.measured.startswith("the fixes rank jit 3.100x [3.000, 3.200] > padding 1.900x [1.800, 2.000] > "
                                      "scan 1.055x [1.050, 1.060] > ")
    assert "(against the write-up's order: padding above async copies; scan above async copies; scan above " \
           "pipelining; scan above vectorizing)" in judged.measured
    assert "cannot rank" in SPEC.claims["ranking"].stated_rule  # on a CPU backend the engine's rule says why


def test_a_ranking_whose_fix_can_gain_here_less_than_the_next_one_shows_is_not_testable():
    """A reference run: the intervals overlapped (inconclusive), but async copies, at most 1.042x there (a memcpy),
    cannot rank above padding's 1.052x at the least: more samples would not decide it."""
    gains = GAINS | {"async copies": (1.036, 0.923, 1.112), "padding": (1.191, 1.052, 1.234),
                     "scan": (1.01, 0.96, 1.14)}
    copies = Bound(7406.9, 328.5, "removing all it can (328.5 ms of a 7406.9 ms pass)")
    assert ranked(gains).verdict == "inconclusive"
    judged = applicable(ranked(gains, {"async copies": copies}))
    assert judged.verdict == "not testable", judged.measured
    assert judged.measured.startswith("not testable on this hardware: async copies (removing all it can (328.5 ms "
                                      "of a 7406.9 ms pass)), to rank above padding (its interval's low end) gives "
                                      "at most 1.046x, below the 1.052x the claim needs; the fixes rank jit")
    roomy = Bound(7406.9, 1400.0, "a bus's copies")  # room to rank above padding: judged on the intervals
    assert applicable(ranked(gains, {"async copies": roomy})).verdict == "inconclusive"


def test_a_ranking_in_the_write_up_s_order_reproduces_and_overlaps_cannot_tell():
    order = {"jit": (3.1, 3.0, 3.2), "async copies": (2.5, 2.4, 2.6), "padding": (1.9, 1.8, 2.0),
             "pipelining": (1.6, 1.5, 1.7), "vectorizing": (1.3, 1.25, 1.35), "scan": (1.1, 1.05, 1.15)}
    assert ranked(order).verdict == "reproduced"
    assert ranked(order | {"scan": (1.28, 1.2, 1.3)}).verdict == "inconclusive"  # overlaps vectorizing's


def test_the_throughput_table_says_where_each_configuration_stored_its_passes():
    """One kind everywhere is said once; kinds apart are named by configuration, a job whose processes chose apart
    (`memory / temp dir`, as merge joins them) said so; a table from before the column says nothing."""
    from jaxpitfalls.studies.extraction.report import stored_where

    steps = pd.DataFrame({"config_id": ["a", "a", "b", "b"], "structure_storage": ["memory"] * 4})
    assert stored_where(steps) == " Passes stored in (`structure_storage`): memory, at every configuration."
    mixed = steps.assign(structure_storage=["memory", "memory", "memory / temp dir", "memory / temp dir"])
    said = stored_where(mixed)
    assert "memory at a; memory / temp dir (its processes chose apart) at b" in said and "disk is slower" in said
    assert stored_where(steps.drop(columns="structure_storage")) == ""


def test_a_missing_phase_leaves_pipelining_s_bound_unknown_not_zero():
    from jaxpitfalls.studies.extraction.derived import overlap_ms

    before = pd.Series({"forward_ms": float("nan"), "pass_ms": 1938.0})
    assert np.isnan(overlap_ms(before, pd.Series({"forward_ms": 477.0})))
    assert overlap_ms(pd.Series({"forward_ms": 400.0, "pass_ms": 500.0}), pd.Series({"forward_ms": 450.0})) == 0.0
