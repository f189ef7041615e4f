"""Sides timed in lockstep, with fake workers on one fake machine whose speed drifts: drift slower than a
round cancels (an A/A pair finds no change), where the same sides timed one after the other report a false
one; a 10% slowdown on one side is found; the sides' order is counterbalanced and recorded, and an injected
effect of going first is shown and cancels; sides that cannot be paired are refused."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from jaxpitfalls.across_runs.comparison import lockstep
from jaxpitfalls.harness import protocol
from jaxpitfalls.harness.compiles import CACHE_HIT_EVENT
from jaxpitfalls.harness.lockstep import Side, SidesDiffer, in_lockstep
from jaxpitfalls.harness.machine import Activity, Reading

BASE_S = {"filter_jit": 0.012, "jit_partition": 0.010}
A, B = Side("a"), Side("b")


class Machine:
    """A clock that advances with every sample taken on it, and a speed that drifts with it: slow periods
    (1.5x and 1.3x) that each last as long as many rounds, as a noisy cloud VM's do."""

    def __init__(self, seed: int = 0) -> None:
        self.t, self.rng = 0, np.random.default_rng(seed)

    def sample(self, seconds: float) -> float:
        self.t += 1
        slow = 1.5 if 100 <= self.t % 600 < 300 else (1.3 if 400 <= self.t % 600 < 450 else 1.0)
        return seconds * slow * (1 + 0.02 * self.rng.standard_normal())


class FakeWorker:
    """One side's warm worker on the shared machine; `slowdown` makes its code that much slower."""

    def __init__(self, machine: Machine, slowdown: float = 1.0, variants: tuple[str, ...] = tuple(BASE_S),
                 calls: int = 1) -> None:
        self.machine, self.slowdown, self.cpu_s = machine, slowdown, 0.0
        self.description = {"modes": {"blocked": list(variants)}, "environment": {"packages": {}}}
        self.closed, self.asked_calls, self.calls, self.calibrated = False, set(), calls, 0

    def calls_per_sample(self) -> dict[str, dict[str, int]]:
        self.calibrated += 1
        return {"blocked": dict.fromkeys(self.description["modes"]["blocked"], self.calls)}

    def block(self, mode: str, variant: str, samples: int, calls: int) -> list[float]:
        self.asked_calls.add(calls)
        return [self.machine.sample(BASE_S[variant] * self.slowdown) for _ in range(samples)]

    def close(self) -> None:
        self.closed = True


def _doc(timed: dict) -> dict:
    return {"study": "dispatch", "config_id": "base", "timed": timed}


def _lockstep(slowdowns: dict[str, float], machine: Machine) -> pd.DataFrame:
    timed = in_lockstep([A, B], lambda side, process: FakeWorker(machine, slowdowns[side.name]), processes=5,
                        rounds=40, samples_per_block=2, seed=1)
    return lockstep.side_by_side(_doc(timed))


class SlowsDown(Machine):
    """A machine 20% slower from its `at`-th sample on (a neighbour moved in and stayed), 2% noise a sample."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at

    def sample(self, seconds: float) -> float:
        self.t += 1
        return seconds * (1.2 if self.t >= self.at else 1.0) * (1 + 0.02 * self.rng.standard_normal())


def test_drift_on_both_sides_cancels_in_lockstep_but_not_one_after_the_other():
    for machine in (Machine(), SlowsDown(at=800)):  # 1600 samples in all: the step lands mid-run
        table = _lockstep({"a": 1.0, "b": 1.0}, machine)
        assert set(table.verdict) == {"unchanged"}, table[["variant", "ratio", "ratio_ci_low", "ratio_ci_high"]]
        assert (table.detectable_change < 0.05).all()

    machine = SlowsDown(at=800)  # the same sides, all of a's 800 samples first, then all of b's
    alone = {side.name: in_lockstep([side], lambda s, p: FakeWorker(machine), processes=5, rounds=40,
                                    samples_per_block=2) for side in (A, B)}
    sequential = {"sides": ["a", "b"], "rounds": 40, "descriptions": alone["a"]["descriptions"] | alone["b"][
        "descriptions"], "processes": [pa | pb for pa, pb in zip(alone["a"]["processes"], alone["b"]["processes"],
                                                                 strict=True)]}
    assert set(lockstep.side_by_side(_doc(sequential)).verdict) == {"regressed"}


def test_a_ten_percent_slowdown_on_one_side_is_found_through_the_drift():
    table = _lockstep({"a": 1.0, "b": 1.1}, Machine())
    assert set(table.verdict) == {"regressed"}
    assert table.ratio.between(1.07, 1.13).all()
    text = lockstep.markdown(table, {"a": {}, "b": {"env": {"XLA_FLAGS": "--x"}}}, 0.05)
    assert "Verdicts: regressed 2" in text and "with XLA_FLAGS=--x" in text
    brief = text[text.index("## In brief"):text.index("The sides, each")]  # the rows that moved, first
    r = table.set_index("variant").loc["filter_jit"]
    assert (f"- **regressed** `dispatch` base `filter_jit` (blocked): {r.ratio:.3f}x [{r.ratio_ci_low:.3f}, "
            f"{r.ratio_ci_high:.3f}] (") in brief
    assert r.side_median_ms / r.against_median_ms == pytest.approx(r.ratio, rel=0.03)  # each side's time per call


def test_a_variant_one_side_declares_otherwise_is_said():
    """A revision that added OUTPUTS_DIFFER (bfloat16, say) or RECOMPILES: its rows compare two computations."""
    def described(differ: dict, recompiling: list) -> list[dict]:
        return [{"checks": {"outputs_agree": {"differ_on_purpose": differ}}, "recompiling": recompiling}]

    timed = {"sides": ["base", "head"], "descriptions": {"base": described({}, ["r"]),
                                                         "head": described({"m": "bfloat16"}, [])}}
    assert lockstep._declared_apart([timed]) == [
        "Declared apart: `base` declares RECOMPILES `r` and `head` does not; `head` declares OUTPUTS_DIFFER `m` and "
        "`base` does not: those rows compare a computation with another.", ""]
    same = {"sides": ["base", "head"], "descriptions": {"base": described({}, []), "head": described({}, [])}}
    assert lockstep._declared_apart([same]) == []
    held = described({}, [])
    held[0]["checks"]["outputs_agree"]["against"] = {"a": "b"}  # SAME_OUTPUTS_AS: held to b's, not the floor's
    assert "`head` declares SAME_OUTPUTS_AS `a: b` and `base` does not" in lockstep._declared_apart([
        {"sides": ["base", "head"], "descriptions": {"base": described({}, []), "head": held}}])[0]


class FirstIsSlower(Machine):
    """A machine where the first block of every (round, variant) group of `sides` blocks is 5% slower (a cold
    cache after the other variant's blocks): going first is itself a cost, whichever side goes first."""

    def __init__(self, sides: int, seed: int = 0) -> None:
        super().__init__(seed)
        self.sides, self.blocks = sides, 0

    def block(self, seconds: float, samples: int) -> list[float]:
        penalty = 1.05 if self.blocks % self.sides == 0 else 1.0
        self.blocks += 1
        return [self.sample(seconds) * penalty for _ in range(samples)]


class OnFirstIsSlower(FakeWorker):
    def block(self, mode: str, variant: str, samples: int, calls: int) -> list[float]:
        return self.machine.block(BASE_S[variant] * self.slowdown, samples)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_a_williams_design_balances_the_first_place_and_who_follows_whom(n):
    """Rotations of four sides put `a` right before `a2` in 3 of every 4 rounds; a Williams design puts
    each side right before each other side equally often, and each first equally often."""
    from collections import Counter

    from jaxpitfalls.harness.lockstep import williams

    rows = williams(n)
    assert len(rows) == (n if n % 2 == 0 else 2 * n) and all(sorted(r) == list(range(n)) for r in rows)
    assert set(Counter(r[0] for r in rows).values()) == {len(rows) // n}
    follows = Counter((r[i], r[i + 1]) for r in rows for i in range(n - 1))
    assert len(follows) == n * (n - 1) and set(follows.values()) == {len(rows) // n}


@pytest.mark.parametrize("sides", [2, 3])
def test_the_sides_order_is_counterbalanced_and_recorded(sides):
    names = [Side(n) for n in "abc"[:sides]]
    timed = in_lockstep(names, lambda side, process: FakeWorker(Machine()), processes=2, rounds=12,
                        samples_per_block=1, seed=3)
    for orders in timed["orders"]:
        for variant_orders in orders["blocked"].values():
            assert len(variant_orders) == 12 and all(sorted(o) == list("abc"[:sides]) for o in variant_orders)
            firsts = [o[0] for o in variant_orders]
            assert {firsts.count(n) for n in "abc"[:sides]} == {12 // sides}  # each side first equally often


def test_an_effect_of_going_first_is_shown_and_cancels_in_an_a_a_pair():
    machine = FirstIsSlower(sides=2)
    timed = in_lockstep([A, B], lambda side, process: OnFirstIsSlower(machine), processes=2, rounds=40,
                        samples_per_block=2, seed=1)
    table = lockstep.side_by_side(_doc(timed))
    assert table.order_effect.between(1.07, 1.14).all(), table.order_effect  # 1.05 / (1 / 1.05)
    assert not set(table.verdict) & {"regressed", "improved"}
    assert "2 beyond ±0.05: going first moves the ratio there" in lockstep.markdown(table, {"a": {}, "b": {}}, 0.05)
    quiet = _lockstep({"a": 1.0, "b": 1.0}, Machine())
    assert quiet.order_effect.between(0.97, 1.03).all(), quiet.order_effect


def test_sides_offering_different_variants_are_refused_and_every_worker_is_closed():
    machine, started = Machine(), []

    def start(side: Side, process: int) -> FakeWorker:
        started.append(FakeWorker(machine, variants=("filter_jit",) if side.name == "b" else tuple(BASE_S)))
        return started[-1]

    with pytest.raises(SidesDiffer, match="side 'b' offers"):
        in_lockstep([A, B], start, processes=1, rounds=2, samples_per_block=1)
    assert len(started) == 2 and all(w.closed for w in started)


def test_the_config_check_knows_which_studies_offer_samplers():
    import importlib

    from jaxpitfalls import registry

    for name in registry.names():
        measure = importlib.import_module(f"jaxpitfalls.studies.{name}.measure")
        assert hasattr(measure, "samplers") == registry.spec(name).lockstep, name


def test_a_worker_answers_each_block_and_refuses_one_that_compiled(monkeypatch):
    import io
    import json

    import jax

    from jaxpitfalls.jobs import lockstep_worker

    called = dict.fromkeys(BASE_S, 0)

    def sampler(v: str) -> float:
        called[v] += 1
        return BASE_S[v]

    samplers = {"blocked": {v: (lambda v=v: sampler(v)) for v in BASE_S}}
    asked = "".join(json.dumps({"mode": "blocked", "variant": v, "samples": 2, "calls": 3}) + "\n" for v in BASE_S)
    replies = io.StringIO()
    lockstep_worker.serve(samplers, io.StringIO(asked), replies)
    answered = [json.loads(line) for line in replies.getvalue().splitlines()]
    assert [a["samples"] for a in answered] == [pytest.approx([s, s]) for s in BASE_S.values()]  # per call
    assert called == dict.fromkeys(BASE_S, 6)  # 2 samples of the 3 calls asked for
    assert all(a["cpu_s"] >= 0 for a in answered)  # the driver takes the workers' own CPU out of the machine's

    def compiling() -> float:
        jax.jit(lambda x: x + 1)(1.0)  # a fresh function: compiles on every call
        return 0.01

    assert "compilation(s) inside a timed block" in lockstep_worker.block(compiling, 1, 1)["error"]
    assert lockstep_worker.block(compiling, 2, 1, recompiles=True)["samples"] == [0.01, 0.01]  # RECOMPILES' own

    def cached() -> float:  # a side's recompiling call served by the persistent cache: it compiles nothing
        jax.monitoring.record_event(CACHE_HIT_EVENT)
        return 0.01

    assert "compilation_cache: false" in lockstep_worker.block(cached, 1, 1, recompiles=True)["error"]
    calibrate = io.StringIO(json.dumps({"calibrate": True}) + "\n")
    replies = io.StringIO()
    lockstep_worker.serve({"blocked": {"c": compiling}}, calibrate, replies, (), 0.02, "c1")
    assert re.search(r"c1 \(blocked\): .*\(c calibrating: \d+\)", json.loads(replies.getvalue())["error"])
    monkeypatch.setattr(protocol, "timed", lambda fn: (fn(), 0.01)[1])  # a call of 10 ms: 2 a sample of 20
    replies = io.StringIO()
    lockstep_worker.serve({"blocked": {"c": compiling}}, io.StringIO(calibrate.getvalue()), replies, ["c"], 0.02, "c1")
    assert json.loads(replies.getvalue()) == {"calls_per_sample": {"blocked": {"c": 2}}}


class ReadyFirst(FakeWorker):
    """A worker that checks, when asked to calibrate, that every side started has said it is ready."""

    def __init__(self, started: list[ReadyFirst], calls: int) -> None:
        super().__init__(Machine(), calls=calls)
        self.started, self.ready, self.described = started, False, self.description

    @property
    def description(self) -> dict:
        self.ready = True
        return self.described

    @description.setter
    def description(self, value: dict) -> None:
        self.described = value

    def calls_per_sample(self) -> dict[str, dict[str, int]]:
        assert all(w.ready for w in self.started), "calibrated while another side was still preparing"
        return super().calls_per_sample()


def test_every_side_samples_the_most_calls_per_sample_any_side_calibrated():
    """Each side's first worker calibrates its own count (here a: 4, b: 2) once every side is ready, so none
    calibrates while another compiles; every block of every side and process is asked for the most any
    calibrated (a walk's first side calibrated 62 calls of a 0.28 ms call, the other 181: samples of 17 ms against
    a 50 ms `min_sample_s`), and the result records it."""
    started: list[ReadyFirst] = []

    def start(side: Side, process: int) -> ReadyFirst:
        started.append(ReadyFirst(started, calls=4 if side.name == "a" else 2))
        return started[-1]

    timed = in_lockstep([A, B], start, processes=2, rounds=4, samples_per_block=1)
    assert len(started) == 4 and all(w.asked_calls == {4} for w in started)
    assert [w.calibrated for w in started] == [1, 1, 0, 0]  # the first process's, once: one count for the job
    assert timed["calls_per_sample"] == {"blocked": dict.fromkeys(BASE_S, 4)}
    assert in_lockstep([B, A], start, processes=1, rounds=2, samples_per_block=1)["calls_per_sample"] == {
        "blocked": dict.fromkeys(BASE_S, 4)}  # the first side's 2 no longer sets it

    def recompiling(side: Side, process: int) -> FakeWorker:  # b compiles one variant in every call (RECOMPILES)
        worker = start(side, process)
        worker.description["recompiling"] = [next(iter(BASE_S))] if side.name == "b" else []
        return worker

    timed = in_lockstep([A, B], recompiling, processes=1, rounds=2, samples_per_block=1)
    first, *rest = BASE_S  # the fewest either side calibrated, or a fixed side's count makes samples minutes long
    assert timed["calls_per_sample"] == {"blocked": {first: 2} | dict.fromkeys(rest, 4)}


class Neighbour:
    """A watch on a fake machine: the workers' blocks are their own CPU (0.4 of the cores over a round), and a
    neighbour takes `share` of the cores in the rounds listed."""

    def __init__(self, busy_rounds: set[int], share: float = 0.6, sides: int = 2, variants: int = 2) -> None:
        self.wall, self.busy_rounds, self.share = 0.0, busy_rounds, share
        self.blocks_per_round = sides * variants

    def now(self) -> Reading:
        return Reading(self.wall, 0.0, None)

    def between(self, start: Reading, end: Reading) -> Activity:
        round_index = int(start.wall)
        others = self.share if round_index in self.busy_rounds else 0.0
        workers = 0.4  # the workers' blocks use 0.4 of the cores over a round
        return Activity(end.wall - start.wall, 0.0, others + workers, 0.01, cores=2)


class CountingWorker(FakeWorker):
    """A worker whose blocks advance the neighbour's clock and report the CPU they took."""

    def __init__(self, machine: Machine, watch: Neighbour) -> None:
        super().__init__(machine)
        self.watch = watch

    def block(self, mode: str, variant: str, samples: int, calls: int) -> list[float]:
        self.watch.wall += 1 / self.watch.blocks_per_round
        self.cpu_s += 0.8 / self.watch.blocks_per_round  # 0.4 of 2 cores for its share of the round
        return super().block(mode, variant, samples, calls)


def test_the_machine_is_watched_round_by_round_with_the_workers_own_cpu_taken_out():
    """A neighbour at 60% of the cores in rounds 3 and 7 makes those rounds contended; the workers' own CPU,
    0.4 of the cores in every round, is not a neighbour. The rounds are kept (paired, a neighbour slows every
    side of its round alike) and the report counts them."""
    watch, machine = Neighbour({3, 7}), Machine()
    timed = in_lockstep([A, B], lambda side, process: CountingWorker(machine, watch), processes=1, rounds=10,
                        samples_per_block=1, seed=1, watch=watch, max_busy_share=0.2)
    rounds = timed["machine"][0]["blocked"]
    assert [r["contended"] for r in rounds] == [i in {3, 7} for i in range(10)]
    assert rounds[0]["others_share"] == pytest.approx(0.0) and rounds[3]["others_share"] == pytest.approx(0.6)
    assert len(timed["processes"][0]["a"]["blocked"]["filter_jit"]) == 10  # every round kept
    table = lockstep.side_by_side(_doc(timed))
    assert (table.contended_rounds == 2).all()
    text = lockstep.markdown(table, {"a": {}, "b": {}}, 0.05, [timed])
    assert "2 of 10 rounds contended beyond 20% of the cores, kept" in text
    assert "machine not watched" in lockstep.markdown(table, {"a": {}, "b": {}}, 0.05, [{"sides": ["a", "b"]}])
    files = {side: [{"environment": {"study_code": {"git": git}}}] for side, git in
             (("a", {"commit": "0123456789", "dirty": False}), ("b", {"commit": "0123456789", "dirty": True}),
              ("c", {"commit": None, "dirty": True}))}
    text = lockstep.markdown(table, {"a": {}, "b": {}, "c": {}}, 0.05, [timed | {"descriptions": files}])
    assert "- `a`: this environment, the benchmark file as committed at `0123456`" in text
    assert "- `b`: this environment, the benchmark file with uncommitted changes" in text
    assert "- `c`: this environment, the benchmark file as it is on disk (it or a module beside it" in text  # untracked



def test_an_undecided_lockstep_row_says_how_many_processes_would_tell():
    from jaxpitfalls.across_runs.comparison import gate

    table = _lockstep({"a": 1.0, "b": 1.04}, Machine())  # 4% slower: near the 5% threshold, neither side of it
    undecided = table.assign(verdict="inconclusive")
    assert (undecided.samples_factor == 1).all()  # precise enough for the threshold: the estimate lies near it
    with pytest.raises(gate.Regressions, match="the power to tell was there"):
        gate.require_no_regressions(undecided, "lockstep", fail_on_inconclusive=True)
    with pytest.raises(gate.Regressions, match=r"about \d+ processes a side would tell"):
        gate.require_no_regressions(undecided.assign(samples_factor=2.0), "lockstep", fail_on_inconclusive=True)
    timed = in_lockstep([A, B], lambda side, process: FakeWorker(Machine(), 1.0), processes=1, rounds=8,
                        samples_per_block=1, seed=1)
    one = lockstep.side_by_side(_doc(timed))
    assert set(one.verdict) == {"inconclusive"} and one.processes_needed.isna().all()
    with pytest.raises(gate.Regressions, match="one process: their spread not measured"):
        gate.require_no_regressions(one, "lockstep", fail_on_inconclusive=True)
    passed = gate.require_no_regressions(undecided, "lockstep")  # a pass says what it could not have told
    assert re.search(r"; (\d+) of the \1 judged rows inconclusive, able to tell changes of \d+%-\d+% only \(", passed)
    alone = gate.require_no_regressions(one, "lockstep")  # one process: no size, never "inf%"
    assert "2 of the 2 judged rows inconclusive, 2 of them no size (one process)" in alone and "inf" not in alone


def test_a_lockstep_row_says_whether_its_sides_compiled_the_same_programs():
    """A walk's revisions: einsum rewritten as `q @ k.T` lowered otherwise and compiled to one program; the page
    said only that the file's digest changed."""
    timed = in_lockstep([A, B], lambda side, process: FakeWorker(Machine(), 1.0), processes=2, rounds=8,
                        samples_per_block=1, seed=1)
    for side, program in (("a", "p1"), ("b", "p2")):
        for described in timed["descriptions"][side]:
            described |= {"signatures": {v: {"program": program, "call": "c"} for v in BASE_S},
                          "executables": dict.fromkeys(BASE_S, "0123456789abcdef")}
    timed["descriptions"]["b"][0]["executables"]["jit_partition"] = "fedcba9876543210"
    table = lockstep.side_by_side(_doc(timed))
    assert table.set_index("variant").same_code.to_dict() == {"filter_jit": True, "jit_partition": False}
    assert "the same for `filter_jit`; changed for `jit_partition` (programs)." in lockstep.markdown(
        table, {"a": {}, "b": {}}, 0.05, [timed])
    timed["descriptions"]["b"][0]["recompiling"] = ["filter_jit"]  # compiles in every call: its lowered code, timed
    assert not lockstep.side_by_side(_doc(timed)).set_index("variant").same_code.filter_jit  # as two runs judge it


class OffsetPerProcess(FakeWorker):
    """A side's worker whose fresh process lands `offset` x slower or faster (log-normal; another core, another
    memory layout): what only more fresh processes average out."""

    def __init__(self, machine: Machine, process: int, offset: float) -> None:
        super().__init__(machine, float(np.exp(offset * np.random.default_rng(100 + process).standard_normal())))


def test_a_target_precision_adds_fresh_processes_until_every_row_reaches_it():
    """Side b's processes land 3% apart: 3 processes leave the rows wider than +-4%, so workers are added one
    at a time until they are within it (6 here), before the most allowed have timed it."""
    from jaxpitfalls.jobs.lockstep import precise_enough

    enough, machines = precise_enough("dispatch", "base", 0.04), {}
    timed = in_lockstep([A, B], lambda side, p: OffsetPerProcess(machines.setdefault(p, Machine(p)), p,
                                                                  0.03 if side is B else 0.0),
                        processes=3, rounds=20, samples_per_block=1, enough=enough, most=12)
    rows = lockstep.side_by_side(_doc(timed))
    half = (rows.ratio_ci_high - rows.ratio_ci_low) / 2 / rows.ratio
    assert 3 < len(timed["processes"]) < 12 and (half <= 0.04).all()
    assert not enough({**timed, "processes": timed["processes"][:-1]})  # one fewer: not yet


def test_a_target_share_asks_that_share_of_the_rows_and_no_more(monkeypatch):
    from jaxpitfalls.jobs import lockstep as job

    rows = pd.DataFrame({"ratio": [1.0] * 4, "ratio_ci_low": [0.99, 0.98, 0.97, np.nan],
                         "ratio_ci_high": [1.01, 1.02, 1.03, np.nan]})  # +-1%, 2%, 3%, and a row not estimated
    monkeypatch.setattr(job, "side_by_side", lambda doc: rows)
    timed = {"processes": [{}] * 3}
    assert job.precise_enough("dispatch", "base", 0.025, 0.5)(timed)
    assert not job.precise_enough("dispatch", "base", 0.025, 0.51)(timed)
    assert not job.precise_enough("dispatch", "base", 0.035)(timed)  # every row: the one not estimated never is


def test_without_a_target_or_once_precise_the_job_times_its_processes_only():
    from jaxpitfalls.jobs.lockstep import precise_enough

    assert precise_enough("dispatch", "base", 0.0) is None
    machines: dict[int, Machine] = {}  # one a process, both sides on it
    timed = in_lockstep([A, B], lambda side, p: FakeWorker(machines.setdefault(p, Machine(p))), processes=3,
                        rounds=20, samples_per_block=1, enough=precise_enough("dispatch", "base", 0.05), most=12)
    assert len(timed["processes"]) == 3


def test_the_report_says_how_many_jobs_timed_more_processes_for_their_target():
    recorded = {"rounds": 20, "samples_per_block": 1, "processes": 3, "target_precision": 0.04, "max_processes": 8}
    docs = [{"lockstep": recorded, "timed": {"processes": [{}] * n}} for n in (3, 6, 3)]
    assert lockstep.set_up_line(docs)[0] == (
        "Timed: 3 fresh processes x 20 rounds x 1 sample per block a side, as the 3 jobs recorded; more processes "
        "one at a time until every row was within ±4.0% of their ratio or 8 had timed it: 1 of 3 jobs took more "
        "(6 processes), 0 stopped at their most.")
    shared = [{"lockstep": recorded | {"target_share": 0.8}, "timed": {"processes": [{}] * 4}},
              {"lockstep": recorded | {"target_share": 0.95, "max_processes": 5}, "timed": {"processes": [{}] * 5}}]
    assert ("until 80%, 95% of the rows were within ±4.0% of their ratio or 5-8 had timed it: 2 of 2 jobs took "
            "more (4, 5 processes), 1 stopped at their most") in lockstep.set_up_line(shared)[0]
    without = [{"lockstep": recorded | {"target_precision": 0}, "timed": {"processes": [{}] * 3}}]
    assert lockstep.set_up_line(without)[0] == (
        "Timed: 3 fresh processes x 20 rounds x 1 sample per block a side, as the 1 job recorded.")
    mixed = without + docs[1:2]  # a job without a target is not counted among those that could grow
    assert "1 of the 1 jobs with a target took more (6 processes)" in lockstep.set_up_line(mixed)[0]
    chosen = [{"lockstep": recorded | {"target_precision": 0, "variants": ["f", "g"]}, "timed": {}}]
    assert lockstep.set_up_line(chosen)[0].endswith(" Only the variants compare.variants names: f, g.")
    assert lockstep.set_up_line(chosen + without)[0].endswith(  # a job timed before the key timed every variant
        " Only the variants compare.variants names: f, g (in 1 of 2 jobs; the others timed all).")


def test_the_run_summary_splits_lockstep_jobs_into_their_rounds_and_the_rest():
    """The rounds' windows as timed, over every process and mode: what the sides' blocks took, whatever a sample
    records (a dispatch sample is a step's share of its call); the jobs' seconds less that, the workers' starts."""
    machine = [{"blocked": [{"wall_s": 1.5}, {"wall_s": 0.5}], "pipelined": [{"wall_s": 1.0}]}] * 2
    timed = {"calls_per_sample": {"blocked": {"v": 2}}, "samples_per_block": 3, "machine": machine,
             "processes": [{"a": {"blocked": {"v": [0.001]}}}] * 2}
    parts = lockstep.machine_parts([{"job_seconds": 10.0, "timed": timed}, {"job_seconds": 5.0, "timed": timed}])
    assert list(parts.values()) == pytest.approx([12.0, 3.0])
    older = lockstep.machine_parts([{"job_seconds": 10.0, "timed": timed}, {"job_seconds": 7.0, "timed": {}}])
    assert older == pytest.approx({"lockstep jobs' rounds (the sides' blocks in turn)": 6.0, "the rest of the "
                                   "lockstep jobs (workers' starts, imports, models, compiles, warm-up, calibration)":
                                   4.0, "1 lockstep job(s) with no rounds' windows recorded": 7.0})


