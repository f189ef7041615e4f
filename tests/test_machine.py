"""A busy machine is measured, never silently accepted: other processes' CPU share around the samples, and
what `measure.on_contention` does with a contended window (a scripted machine with its own clock: no test
depends on this machine being quiet, nor waits for real); samples calibrated, gc paused while timed."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import time

import pytest
from busy import busy_neighbours

from jaxpitfalls.harness import contention, machine, protocol, stats, timing
from jaxpitfalls.harness.compiles import CompiledInTimedRegion
from jaxpitfalls.harness.contention import MachineBusy
from jaxpitfalls.harness.sampling import Sampling
from jaxpitfalls.harness.timing import interleaved


def _spin(seconds: float) -> float:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass
    return seconds


def _cpu_seconds(processes: list[subprocess.Popen]) -> float:
    """CPU time the processes used so far (user + system), counted in the kernel's ticks."""
    return sum(machine.cpu_seconds(p.pid) for p in processes)


def test_processes_it_starts_are_seen_as_others():
    """The real counters: the CPU time of the processes the test starts is counted as other processes', in
    full, whatever else the machine runs meanwhile (another busy process, a CI job): the others' share can
    only be larger. This process's own spinning is its own."""
    if machine.Reading.now().counters is None:
        pytest.skip("no /proc/stat: machine activity is not measurable on this system")
    with busy_neighbours() as neighbours:
        time.sleep(0.2)
        start, used_before = machine.Reading.now(), _cpu_seconds(neighbours)
        _spin(1.0)
        used, busy = _cpu_seconds(neighbours) - used_before, machine.Activity.between(start, machine.Reading.now())
    others_s = busy.others_share * busy.wall_s * busy.cores
    assert used > 0.2 and busy.own_cpu_s > 0.05
    assert others_s >= used - 4 * machine._TICK_S, (used, busy.describe())
    assert "other processes used" in busy.describe() and "steal" in busy.describe()


def test_the_busiest_other_processes_are_named_by_pid_and_command():
    """A wait for quiet names what it waits on (a user waited 150 s on "other processes used 50%" with nothing of
    theirs running); this process's own CPU is not among them."""
    if machine.Reading.now().counters is None:
        pytest.skip("no /proc: processes are not readable on this system")
    with busy_neighbours() as neighbours:
        time.sleep(0.2)
        said = machine.busiest_others(interval_s=0.5, count=len(neighbours) + 4)  # room for the tests beside it
    assert any(f"pid {p.pid} ({sys.executable[:40]}" in said for p in neighbours), said
    assert f"pid {os.getpid()} " not in said


def test_a_loop_of_short_lived_processes_is_named_by_its_parent():
    """Each child lives less than the interval (a build's compilers): the parent that reaps them carries their CPU."""
    if machine.Reading.now().counters is None:
        pytest.skip("no /proc: processes are not readable on this system")
    loop = subprocess.Popen(["bash", "-c", f"while true; do {sys.executable} -c 'sum(range(2000000))'; done"])
    try:
        time.sleep(0.3)
        said = machine.busiest_others(interval_s=1.0, count=6)
    finally:
        loop.kill()
        loop.wait()
    assert f"pid {loop.pid} (bash -c while true; do " in said, said


class ScriptedMachine(machine.Watch):
    """A machine with a clock of its own: it moves only when the job sleeps or a sampler says a sample took
    so long, so no test waits for real. Neighbours are (start, end, share) periods of other processes'
    CPU; the hypervisor steals `steal_while_running` of the cores whenever the job runs (not while it
    sleeps, as a real hypervisor steals from vCPUs that want to run), plus `steal` periods."""

    def __init__(self, others=(), steal=(), steal_while_running=0.0):
        self.clock_s, self.ran = 0.0, 0.0
        self.others, self.steal, self.steal_while_running = list(others), list(steal), steal_while_running
        self.slept: list[float] = []

    def sample(self, seconds: float):
        """A sampler whose samples take `seconds` of this machine's time."""
        def run() -> float:
            self.clock_s += seconds
            self.ran += seconds
            return seconds
        return run

    def now(self):
        return machine.Reading(self.clock_s, self.ran, None)

    def between(self, start, end):
        wall = end.wall - start.wall

        def share(periods):
            return sum(level * max(0.0, min(end.wall, b) - max(start.wall, a)) for a, b, level in periods) / wall

        running = (end.own_cpu - start.own_cpu) / wall
        return machine.Activity(wall, end.own_cpu - start.own_cpu, share(self.others),
                                share(self.steal) + self.steal_while_running * running)

    def clock(self):
        return self.clock_s

    def sleep(self, seconds):
        self.slept.append(seconds)
        self.clock_s += seconds

    def speed(self):
        return 0.008

    def busiest(self):
        return "pid 7 (python neighbour.py) 50% of a core" if self.others else ""


def _samplers(scripted: ScriptedMachine, seconds: float = 0.125):
    """Two variants whose rounds take 0.25 s of the scripted clock (exact in binary): 8 rounds a window."""
    return {"a": scripted.sample(seconds), "b": scripted.sample(seconds)}


def test_a_neighbour_for_20_s_is_waited_out_and_its_rounds_re_timed(caplog):
    """The console says how long the wait may last and what keeps the rounds instead, then that it ended (a user
    waited three minutes on a line that said neither)."""
    scripted = ScriptedMachine(others=[(0.0, 20.0, 0.5)])
    with caplog.at_level("WARNING"):
        samples, _, contended, record = interleaved(_samplers(scripted), Sampling(rounds=32), "c1 blocked",
                                                    watch=scripted)
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("waiting for 1 s of quiet, up to" in m and "on_contention: warn" in m for m in said), said
    assert any("(the busiest now: pid 7 (python neighbour.py) 50% of a core)" in m for m in said), said
    assert any("c1 blocked: quiet again after 19.0 s" in m for m in said), said
    assert len(samples["a"]) == 32 and not any(contended["a"])
    (wait,) = record["waits"]  # from the first window's end (2 s) until 1 s of quiet after the neighbour stops
    assert wait["quiet"] and wait["quiet_s"] == 1.0 and wait["others_share_max"] == 0.5
    assert record["waited_s"] == wait["seconds"] == 21.0 - 2.0
    assert record["rounds_retried"] == 8 and record["rounds_kept"] == 32
    assert record["yardstick_s"] == [0.008] * 32  # one per kept round: the re-timed rounds' went with them
    assert [w["kept"] for w in record["windows"]] == [False, True, True, True, True]
    assert record["others_share_max"] == 0.5 and record["steal_share_max"] == 0.0


def test_each_sampler_s_machine_time_counts_every_round_run_though_a_sample_is_a_step_s_share():
    """A sample of four steps is recorded per step; what it cost the machine is the whole call's wall, over the
    rounds kept and the rounds re-timed alike (the run summary's split)."""
    scripted = ScriptedMachine(others=[(0.0, 20.0, 0.5)])
    steps = {name: (lambda s=s: s() / 4) for name, s in _samplers(scripted).items()}
    samples, _, _, record = interleaved(steps, Sampling(rounds=32), watch=scripted)
    assert samples["a"] == [0.125 / 4] * 32 and record["rounds_retried"] == 8
    assert record["sampled_s"] == {"a": 40 * 0.125, "b": 40 * 0.125} and record["rounds_s"] == 40 * 0.25


def test_a_wait_and_the_rounds_it_re_timed_spend_none_of_the_modes_budget():
    scripted = ScriptedMachine(others=[(0.0, 20.0, 0.5)])
    samples, _, _, record = interleaved(_samplers(scripted), Sampling(rounds=100, budget_s=3.0), watch=scripted)
    assert record["waited_s"] == 19.0 and record["rounds_retried"] == 8
    assert len(samples["a"]) == 12  # 3 s of 0.25 s rounds, timed after the wait


def test_a_burst_of_steal_shorter_than_a_window_does_not_count():
    """The failure it guards against: 23-33% steal over 0.3-0.4 s. Within a 2 s window it is ~7%: kept, unmarked;
    a burst in a mode's short last window is judged over the rounds before it too."""
    scripted = ScriptedMachine(steal=[(0.5, 0.9, 0.33), (2.1, 2.5, 0.33)])
    samples, _, contended, record = interleaved(_samplers(scripted), Sampling(rounds=11), watch=scripted)
    assert len(samples["a"]) == 11 and not any(contended["a"]) and record["rounds_retried"] == 0
    assert [w["wall_s"] for w in record["windows"]] == pytest.approx([2.0, 2.0])  # the last judged over 2 s
    assert 0.05 < record["steal_share_max"] < 0.1 and record["waits"] == []


def test_waits_back_off_and_fail_after_max_wait_s_naming_the_steal():
    scripted = ScriptedMachine(steal_while_running=0.3)
    busy = (r"c1 blocked: the machine was busy.*steal 30%.*mostly the hypervisor.*re-timed 6 window\(s\) and "
            r"waited 31 s in 5 wait\(s\), 43 s in all.*max_wait_s=45.*measure.on_contention: warn")
    with pytest.raises(MachineBusy, match=busy):
        interleaved(_samplers(scripted), Sampling(rounds=30, max_wait_s=45), "c1 blocked", watch=scripted)
    # each wait asks for twice the quiet of the last: 1 + 2 + 4 + 8 + 16 s of probes after 2 s windows; after
    # the sixth window 2 s are left, less than the 30 s of quiet the next wait would ask for: it fails at once
    assert len(scripted.slept) == (1 + 2 + 4 + 8 + 16) / contention.PROBE_S and scripted.clock_s == 43


def test_a_neighbour_that_never_stops_fails_the_mode_after_max_wait_s_naming_it():
    scripted = ScriptedMachine(others=[(0.0, 1e9, 0.5)])
    busy = (r"other processes used 50%.*mostly another process on this machine \(the busiest now: pid 7 "
            r"\(python neighbour.py\) 50% of a core\).*waited 58 s in 1 wait.*while it waited other processes used "
            "median 50%")
    with pytest.raises(MachineBusy, match=busy):
        interleaved(_samplers(scripted), Sampling(rounds=30, max_wait_s=60), "c1", watch=scripted)
    assert scripted.clock_s == 60


def test_fail_refuses_the_first_contended_window():
    scripted = ScriptedMachine(others=[(2.0, 1e9, 0.5)])
    with pytest.raises(MachineBusy, match="on_contention is fail"):
        interleaved(_samplers(scripted), Sampling(rounds=30, on_contention="fail"), watch=scripted)
    assert scripted.slept == []


def test_warn_keeps_contended_samples_marked():
    scripted = ScriptedMachine(others=[(2.0, 4.0, 0.6)])
    samples, _, contended, record = interleaved(_samplers(scripted), Sampling(rounds=40, on_contention="warn"),
                                                watch=scripted)
    assert contended["a"] == contended["b"] == [False] * 8 + [True] * 8 + [False] * 24
    assert record["rounds_contended_kept"] == 8 and record["rounds_retried"] == 0 and record["waits"] == []
    assert record["others_share_max"] == pytest.approx(0.6) and record["policy"]["on_contention"] == "warn"


def test_a_few_ticks_in_a_short_mode_are_not_contention():
    """A mode whose rounds last 0.04 s in all: two ticks of another process are 25% of 2 cores, and prove
    nothing; a neighbour busy the whole time does (the kernel's resolution, `machine.TICKS_ALLOWED`)."""
    tick = machine._TICK_S
    assert not machine.Activity(0.04, 0.04, 2 * tick / 0.08, 0.0, cores=2).contended(0.2)
    assert machine.Activity(0.04, 0.04, 0.5, 0.0, cores=2).contended(0.2)
    assert machine.Activity(2.0, 2.0, 0.21, 0.0, cores=2).contended(0.2)  # a long window: 1% over is 4 ticks


def test_short_rounds_are_judged_together_over_a_window():
    scripted = ScriptedMachine()
    samples, _, _, record = interleaved(_samplers(scripted, 0.0625), Sampling(rounds=64), watch=scripted)
    assert len(samples["a"]) == 64
    assert [w["wall_s"] for w in record["windows"]] == [timing.WINDOW_S] * 4
    assert [w["rounds"] for w in record["windows"]] == [16] * 4


def test_garbage_collection_is_off_inside_a_sample_and_back_on_after():
    seen = []
    interleaved({"a": lambda: seen.append(gc.isenabled()) or 0.001, "b": lambda: 0.001},
                Sampling(rounds=2, on_contention="warn"))
    assert seen == [False, False] and gc.isenabled()


def counted_sampler(calls: dict[str, int], name: str, seconds: float):
    """A sampler that "takes" `seconds` (with protocol.timed patched to return what it returns), counting its
    calls in `calls[name]`."""
    def call():
        calls[name] += 1
        return seconds
    return call


def test_calibration_repeats_calls_until_a_sample_lasts_min_sample_s(monkeypatch):
    """Each variant's calls per sample from how long one call took, on a clock the test sets (a call "takes"
    the seconds its sampler returns), so a busy machine cannot change the counts."""
    calls = {"a": 0, "b": 0}
    monkeypatch.setattr(protocol, "timed", lambda fn: fn())
    calibrated, n, sample_s = protocol.calibrate({"a": counted_sampler(calls, "a", 0.002),
                                                  "b": counted_sampler(calls, "b", 0.004)}, 0.02, "t")
    assert n == {"a": 10, "b": 5}  # 0.02 s / 0.002 s and / 0.004 s: each its own count
    assert calls == {"a": protocol.CALIBRATING_CALLS, "b": protocol.CALIBRATING_CALLS}
    assert sample_s == pytest.approx({"a": 0.02, "b": 0.02})
    calls.update(a=0, b=0)
    assert calibrated["a"]() == pytest.approx(0.002) and calls["a"] == n["a"]
    assert calibrated["b"]() == pytest.approx(0.004) and calls["b"] == n["b"]
    assert protocol.calibrate({"a": lambda: 0.001}, 0.0, "t")[1] == {"a": 1}


def test_a_short_call_slowed_once_is_calibrated_from_its_fastest_time(monkeypatch):
    """A first call slowed fivefold (a page fault, a cold cache) would leave each sample a fifth of min_sample_s."""
    monkeypatch.setattr(protocol, "timed", lambda fn: fn())
    times = iter([0.010, 0.002, 0.003])
    assert protocol.calibrate({"a": lambda: next(times)}, 0.02, "t")[1] == {"a": 10}


def test_a_microsecond_call_is_calibrated_from_a_sample_s_worth_timed_together(monkeypatch):
    """A call of 5 us alone and 2 us in a loop (the timer's and the loop's cold start paid once per timing): timed
    alone it asks 4,000 calls a sample of 20 ms, which run 8 ms; a sample's worth timed together asks 10,000."""
    def clock(fn):
        return 5e-6 if fn is sampler else fn.n * 2e-6

    def sampler():
        return 2e-6

    monkeypatch.setattr(protocol, "timed", clock)
    calls, sample_s = protocol.calibrate({"a": sampler}, 0.02, "t")[1:]
    assert calls == {"a": protocol.MAX_CALLS_PER_SAMPLE} and sample_s["a"] == pytest.approx(0.02)
    monkeypatch.setattr(protocol, "timed", lambda fn: 5e-6 if fn is sampler else fn.n * 5e-6)
    assert protocol.calibrate({"a": sampler}, 0.02, "t")[1] == {"a": 4000}  # as fast alone as in a loop


def test_calibration_that_compiles_fails_like_a_timed_region(monkeypatch):
    import jax
    import jax.numpy as jnp

    from jaxpitfalls.harness.compiles import COMPILE_EVENT

    sizes = iter(range(10, 100))
    fresh = {"a": lambda: float(jax.jit(lambda x: x * 3)(jnp.ones(next(sizes))).block_until_ready()[0])}
    with pytest.raises(CompiledInTimedRegion, match=r"\(a calibrating: \d+\)"):
        protocol.calibrate(fresh, 0.01, "t")
    # a variant declared to compile in every call (RECOMPILES) is calibrated as any other: 4 ms a call, 3 a sample
    monkeypatch.setattr(protocol, "timed", lambda fn: (fn(), 0.004)[1])
    compiling = {"r": lambda: jax.monitoring.record_event_duration_secs(COMPILE_EVENT, 0.003)}
    assert protocol.calibrate(compiling, 0.01, "t", recompiling=["r"])[1] == {"r": 3}


def test_other_processes_share_is_the_busy_time_less_this_process_s_steal_apart():
    """/proc/stat's busy fields leave steal out (steal is its own field): other processes' share is busy time
    less this process's CPU, steal counted once, apart (it was once taken out of busy time a second time)."""
    start, end = machine.Reading(0.0, 0.0, (10.0, 1.0, 2)), machine.Reading(1.0, 0.5, (11.5, 1.2, 2))
    activity = machine.Activity.between(start, end)  # 1.5 s busy, 0.5 s of it ours, 0.2 s stolen, 2 cores
    assert activity.others_share == pytest.approx(0.5) and activity.steal_share == pytest.approx(0.1)


class ColdAfterYardstick(ScriptedMachine):
    """A machine on which the first call after each round's yardstick pays `penalty` seconds (a reference
    run: ~10 ms on a ~30 ms step, to whichever variant opened a round)."""

    def __init__(self, penalty: float):
        super().__init__()
        self.penalty, self.previous = penalty, None  # the sampler that ran last in this round, None after the yardstick

    def pays(self) -> bool:
        return self.previous is None

    def speed(self):
        self.previous = None
        return super().speed()

    def sample(self, seconds: float, name: str = ""):
        def run() -> float:
            taken = seconds + (self.penalty if self.pays() else 0.0)
            self.previous = name
            self.clock_s += taken
            self.ran += taken
            return taken
        return run


@pytest.mark.parametrize("primed", [True, False])
def test_each_round_opens_with_an_untimed_call_and_every_variant_opens_as_many_rounds(primed):
    scripted = ColdAfterYardstick(penalty=0.01)
    samplers = {name: scripted.sample(0.03) for name in ("first", "middle", "last")}
    samples, _, _, record = interleaved(samplers, Sampling(rounds=12, on_contention="warn"), watch=scripted,
                                        primed={} if primed else None)
    if primed:  # the primer paid it
        assert {round(x, 9) for xs in samples.values() for x in xs} == {0.03}
    else:  # each variant paid it in the rounds it opened, as often as the others
        assert all(sorted(round(x, 9) for x in xs) == [0.03] * 8 + [0.04] * 4 for xs in samples.values())
    for name, places in record["places"].items():  # recorded: the samples taken first are the ones that paid
        assert places.count(0) == 4
        assert primed or [round(x, 9) == 0.04 for x in samples[name]] == [p == 0 for p in places]


@pytest.mark.parametrize("count", range(1, 9))
def test_round_order_shares_the_first_place_and_each_predecessor_and_times_every_pair_both_ways(count):
    names = [f"v{i}" for i in range(count)]
    cycle = len(timing.williams(count))
    orders = [timing.round_order(names, k) for k in range(cycle)]
    assert all(sorted(order) == names for order in orders)
    assert len({[order[0] for order in orders].count(name) for name in names}) == 1
    followed = [(order[i - 1], order[i]) for order in orders for i in range(1, count)]
    assert len({followed.count((a, b)) for a in names for b in names if a != b}) <= 1
    assert set(followed) == {(a, b) for a in names for b in names if a != b}
    before = {(a, b) for order in orders for i, a in enumerate(order) for b in order[i + 1:]}
    assert before == {(a, b) for a in names for b in names if a != b}


class LeftBehind(ColdAfterYardstick):
    """A machine on which a call right after `heavy`'s, in the same round, pays `penalty` seconds (what one
    variant leaves in the caches falls on the next)."""

    def pays(self) -> bool:
        return self.previous == "heavy"


def test_an_a_a_pair_pays_the_same_carry_over_because_each_follows_each_other_sampler_as_often():
    """The rotation gave one name `heavy` as its predecessor in every reversed round and its twin never (the
    twins' bias in a timed history); Williams rows give both the same rounds after it."""
    scripted = LeftBehind(penalty=0.01)
    times = {"a": 0.03, "heavy": 0.05, "other": 0.04, "a_again": 0.03}
    samplers = {name: scripted.sample(seconds, name) for name, seconds in times.items()}
    samples, *_ = interleaved(samplers, Sampling(rounds=12, on_contention="warn"), watch=scripted)
    assert max(samples["a"]) == pytest.approx(0.04)
    assert sum(samples["a"]) == pytest.approx(sum(samples["a_again"]))
    same = stats.paired_comparison(samples["a_again"], samples["a"])
    assert same["ratio"] == pytest.approx(1.0)


def test_the_rounds_start_at_a_random_place_in_the_cycle_so_no_variant_always_gets_the_extra_openings(monkeypatch):
    scripted = ScriptedMachine()
    monkeypatch.setattr(timing.random, "randrange", lambda n: n - 1)  # the cycle's last row: [1, 0, 2]
    samplers = {name: scripted.sample(0.01) for name in ("a", "b", "c")}
    *_, record = interleaved(samplers, Sampling(rounds=1, on_contention="warn"), watch=scripted)
    opened = [name for name, places in record["places"].items() if places == [0]]
    assert opened == [timing.round_order(list(samplers), 5)[0]] == ["b"]


def test_an_a_a_pair_at_the_end_and_in_the_middle_of_the_order_agrees_though_opening_a_round_costs():
    """The same sampler under two names, one at an end of the order and one in its middle, on a machine where
    opening a round costs 10 ms that nothing primes: forward/reversed alternation gave the cost to the ends
    only (a 1.33x A/A ratio in half the rounds); turned orders give it to each name as often."""
    scripted = ColdAfterYardstick(penalty=0.01)
    samplers = {"a": scripted.sample(0.03), "other": scripted.sample(0.05), "a_again": scripted.sample(0.03)}
    samples, *_ = interleaved(samplers, Sampling(rounds=30, on_contention="warn"), watch=scripted)
    same = stats.paired_comparison(samples["a_again"], samples["a"])
    assert same["ratio"] == pytest.approx(1.0) and same["ratio_ci_low"] <= 1.0 <= same["ratio_ci_high"]


def test_a_repeated_sampler_s_primer_is_one_call_of_what_it_repeats():
    calls = []
    repeated = protocol.Repeated(lambda: calls.append(1) or 0.001, 50)
    timing._prime(repeated)
    assert len(calls) == 1


def test_a_sample_of_a_second_or_more_is_not_primed_after_the_first_round():
    """A 10 ms penalty is within a long sample's noise, and its primer would cost a whole pass."""
    scripted = ColdAfterYardstick(penalty=0.01)
    calls = {"long": 0}
    long = scripted.sample(timing.PRIME_BELOW_S)

    def counted() -> float:
        calls["long"] += 1
        return long()

    interleaved({"long": counted}, Sampling(rounds=4, on_contention="warn"), watch=scripted, primed={})
    assert calls["long"] == 4 + 1  # four samples and the first round's primer
    calls["long"] = 0  # its length known beforehand (a calibration's): no primer in the first round either
    interleaved({"long": counted}, Sampling(rounds=4, on_contention="warn"), watch=scripted,
                primed={"long": timing.PRIME_BELOW_S})
    assert calls["long"] == 4


def test_a_call_known_to_be_long_is_not_called_to_calibrate_and_a_short_known_one_is(monkeypatch):
    """A whole pass known from before (extraction's first pass, compilation taken out) needs no calibrating
    pass; a known call near `min_sample_s` may still hold tracing, so it is timed."""
    calls = {"long": 0, "short": 0}
    monkeypatch.setattr(protocol, "timed", lambda fn: fn())
    min_sample_s = 0.05
    margin_s = protocol.KNOWN_CALL_MARGIN * min_sample_s
    known = {"long": margin_s, "short": 0.9 * margin_s}
    _, n, sample_s = protocol.calibrate({"long": counted_sampler(calls, "long", 2.0),
                                         "short": counted_sampler(calls, "short", 0.01)}, min_sample_s, "t", known)
    assert calls == {"long": 0, "short": protocol.CALIBRATING_CALLS}  # shorter than a sample: its fastest of 3
    assert n == {"long": 1, "short": 5} and sample_s == pytest.approx({"long": 1.0, "short": 0.05})


def test_a_mode_of_whole_passes_known_beforehand_calls_each_only_for_its_samples(monkeypatch):
    """measure_mode with `known_s` (extraction's passes, ~6-25 s each on the seeds preset): no calibrating
    pass and no first-round primer, so every call of a variant is one of its timed samples."""
    calls = {"a": 0, "b": 0}
    monkeypatch.setattr(protocol, "timed", lambda fn: fn())
    sampling = Sampling(rounds=3, min_sample_s=0.05, on_contention="warn")
    samplers = {name: counted_sampler(calls, name, timing.PRIME_BELOW_S) for name in calls}
    done = protocol.measure_mode(samplers, "extract", "a", sampling, "t", known_s={"a": 2.0, "b": 2.0})
    assert calls == {"a": 6, "b": 3}  # the floor's A/A twin is the floor's own sampler under another name
    assert {name: e["calls_per_sample"] for name, e in done.entries.items()} == {"a": 1, "b": 1, "a~twin": 1}


def test_a_variant_declared_to_compile_in_every_call_keeps_its_compiling_per_step_and_must_compile_in_each(
        monkeypatch):
    """Compilations injected as JAX reports them (a backend-compile event of 4 ms in a 12 ms step, 3 steps a
    sample): kept per step, as a sample's time is; a variant compiling in some steps only, or read from the
    persistent cache, is no such variant."""
    import jax

    from jaxpitfalls.harness.compiles import CACHE_HIT_EVENT, COMPILE_EVENT, NotRecompiling

    def compiling(every: int, cached: bool = False):
        made = [0]

        def sample() -> float:
            for _ in range(3):
                made[0] += 1
                if made[0] % every == 0:
                    jax.monitoring.record_event_duration_secs(COMPILE_EVENT, 0.004)
                if cached:
                    jax.monitoring.record_event(CACHE_HIT_EVENT)
            return 0.012
        return sample

    sampling = Sampling(rounds=3, min_sample_s=0.0, on_contention="warn")
    done = protocol.measure_mode({"f": lambda: 0.001, "r": compiling(1)}, "blocked", "f", sampling, "t",
                                 recompiling=["r"], steps=3)
    entry = done.entries["r"]
    assert entry["demonstration"] and entry["compile_seconds"] == pytest.approx([0.004] * len(entry["samples_s"]))
    assert entry["compiles_in_timed_region"] >= 3 * len(entry["samples_s"]) and "demonstration" not in done.entries["f"]
    for sampler, said in ((compiling(2), r"compiled [12] program\(s\) in 3 call"),
                          (compiling(1, True), "3 read from the persistent compilation cache")):
        with pytest.raises(NotRecompiling, match=said):
            protocol.measure_mode({"f": lambda: 0.001, "r": sampler}, "blocked", "f", sampling, "t",
                                  recompiling=["r"], steps=3)
    monkeypatch.setattr(protocol, "SPANS", False)  # a JAX reporting no tracing or lowering spans: none kept, no zeros
    entry = protocol.measure_mode({"f": lambda: 0.001, "r": compiling(1)}, "blocked", "f", sampling, "t",
                                  recompiling=["r"], steps=3).entries["r"]
    assert "compile_seconds" in entry and "tracing_seconds" not in entry and "lowering_seconds" not in entry
    with pytest.raises(ValueError, match="not the floor"):
        protocol.measure_mode({"f": lambda: 0.001, "r": compiling(1)}, "blocked", "r", sampling, "t",
                              recompiling=["r"])


def test_tracing_and_lowering_are_timed_by_their_spans_each_counted_once():
    """JAX reports tracing a function to a jaxpr and lowering it as spans; an inner jit traced inside an outer one
    reports a span inside the outer's, counted once (injected as JAX records them)."""
    import jax

    from jaxpitfalls.harness.compiles import STAGES, count_compiles

    with count_compiles() as counter:
        for start, end in ((10.0, 11.0), (10.5, 10.75), (12.0, 12.5)):
            jax.monitoring.record_event_time_span(STAGES["tracing"], start, end)
        jax.monitoring.record_event_time_span(STAGES["lowering"], 11.0, 11.25)
    assert counter.stage_seconds("tracing") == pytest.approx(1.5)
    assert counter.stage_seconds("lowering") == pytest.approx(0.25) and counter.stage_seconds("compile") == 0.0
