"""What a job recorded beside its timings, as checks table columns (aggregate.checks_table)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ...harness.yardstick import current_yardstick


def agreement(checks: dict[str, Any]) -> dict[str, Any]:
    """The outputs check as the guard recorded it; older results hold `True` and loose fields."""
    found = checks["outputs_agree"]
    if found is True:
        return {"outputs_agree": "yes (recorded as true: an older result)",
                "outputs_exact": checks.get("outputs_exact"), "outputs_compared": checks.get("outputs_compared"),
                "max_abs_difference": max(checks.get("max_abs_difference", {0: 0.0}).values())}
    against = found.get("against", {})  # SAME_OUTPUTS_AS: held to another's outputs; the reference's counted too
    others, apart = len(found["bitwise_equal"]) - 1 - len(against), len(found.get("differ_on_purpose") or ())
    differ = "".join(f"; {v} vs {other}: {found['compared']}" for v, other in against.items()) + (
        f"; {apart} differ{'s' if apart == 1 else ''} on purpose" if apart else "")
    return {"outputs_agree": f"{others} variant{'s' if others != 1 else ''} vs {found['reference']}: "
                             f"{found['compared']} ({found['values']} values each){differ}",
            "outputs_exact": all(found["bitwise_equal"].values()), "outputs_compared": found["outputs"],
            "max_abs_difference": max(found["max_abs_difference"].values())}


def distinct(checks: dict[str, Any]) -> str:
    found = checks["signatures_distinct"]
    return "yes (recorded as true: an older result)" if found is True else (
        f"{found['distinct_signatures']} of {found['variants']} ({found['pairs_compared']} pairs compared)")


def timed_compiles(doc: dict[str, Any], label: str | None) -> int:
    """Compilations in timed regions of modes with this label (None: modes where any is forbidden)."""
    labels = ("measures_compilation", "demonstration")
    return sum(m["compiles_in_timed_region"] for v in doc["variants"].values() for m in v["modes"].values()
               if (m.get(label) if label else not any(m.get(x) for x in labels)))


def sample_seconds(doc: dict[str, Any]) -> dict[str, float | None]:
    """Machine time in the timed samples (each sampler's wall; an older result's from its samples, short where a
    sample is a step's share), the A/A twins' and the first runs' apart (a compiling mode's samples among them); where
    recorded, the rounds' time between samples and the workers' outside rounds and waits: for the run summary."""
    def spent(name: str, mode_name: str, mode: dict[str, Any]) -> float:
        walls = doc["machine"][mode_name].get("sampled_s")
        if walls is not None:
            return walls[name]
        return sum(sum(p["samples_s"]) * p.get("calls_per_sample", 1) for p in mode.get("processes") or [mode])

    seconds: dict[str, float | None] = {"samples_s": 0.0, "twins_s": 0.0, "first_runs_s": 0.0}
    records = 0.0
    for name, variant in doc["variants"].items():
        for mode_name, mode in variant["modes"].items():
            kind = "twins_s" if "twin_of" in variant else "first_runs_s" if mode.get("measures_compilation") \
                else "samples_s"
            seconds[kind] += spent(name, mode_name, mode)
        if "first_run" in variant and "twin_of" not in variant:  # merged: the processes' mean
            records += variant["first_run"]["seconds"] * doc.get("processes", 1)
    in_rounds = sum(seconds.values())
    seconds["first_runs_s"] += records
    rounds = [m.get("rounds_s") for m in doc["machine"].values()]
    measured = doc.get("worker_measure_s")  # jobs from before it was recorded have none
    known = measured is not None and None not in rounds
    waited = sum(m.get("waited_s", 0.0) for m in doc["machine"].values())
    return seconds | {"between_samples_s": sum(rounds) - in_rounds if known else None,
                      "preparing_s": measured - sum(rounds) - waited - records if known else None}


def ran_on(env: dict[str, Any]) -> str:
    """Where one result was measured: `slurm job 12 on node7 (64 CPUs, GPUs 0)` or `local on vm`."""
    where = env.get("placement")
    if where is None:
        return "not recorded (an older result)"
    if where["scheduler"] != "slurm":
        return f"local on {where['host']}"
    gpus = f", GPUs {where['slurm_gpus']}" if where["slurm_gpus"] else ""
    shared = ", **a node shared with other jobs** (not --exclusive)" if where.get("slurm_shared") else ""
    return f"slurm job {where['slurm_job_id']} on {where['slurm_node']} ({where['slurm_cpus']} CPUs{gpus}{shared})"


def quietness(machine: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """How quiet the machine was over a configuration's modes."""
    def worst(key: str) -> float | None:
        values = [m[key] for m in machine.values() if m[key] is not None]
        return max(values) if values else None

    modes = list(machine.values())
    return {
        "rounds_kept": sum(m["rounds_kept"] for m in modes),
        "rounds_retried": sum(m["rounds_retried"] for m in modes),
        "rounds_contended_kept": sum(m["rounds_contended_kept"] for m in modes),
        "waited_s": sum(m.get("waited_s", 0.0) for m in modes),  # results from before waiting have none
        "others_share_max": worst("others_share_max"),
        "steal_share_max": worst("steal_share_max"),
        "load_average_max": max((x for m in modes for x in m["load_average"]), default=None),
        "on_contention": modes[0]["policy"]["on_contention"],
        "machine_measurable": all(m["measurable"] for m in modes),
        "yardstick_ms": yardstick_ms(machine),
    }


def yardstick_ms(machine: dict[str, dict[str, Any]]) -> float | None:
    """The yardstick's median over the job's rounds (ms): the machine's speed, apart from the program's."""
    speeds = [s for m in machine.values() for s in current_yardstick(m)]
    return float(np.median(speeds)) * 1e3 if speeds else None


def peak_memory_mb(memory: dict[str, dict[str, int | None]]) -> dict[str, float | None]:
    """The highest peak over the timed modes: the device's allocator and the process (VmHWM)."""
    def peak(key: str) -> float | None:
        return max((m[key] / 2**20 for m in memory.values() if m.get(key) is not None), default=None)

    return {"device_peak_mb": peak("device_peak_bytes"), "host_peak_mb": peak("host_peak_bytes")}


def first_place(doc: dict[str, Any]) -> str:
    """What opening a round cost, the worst variant named, and how evenly first place went round:
    `6.1% slower opening a round (filter_jit, blocked); rounds opened within 1 of each other`."""
    worst, uneven = None, 0  # the largest (cost, "variant, mode"), how unevenly rounds were opened
    for mode, record in doc["machine"].items():
        places = record.get("places")
        if places is None:
            return "not recorded (an older result)"
        if len(places) < 2:
            continue
        opened = []
        for name, where in places.items():
            entry = doc["variants"][name]["modes"][mode]
            if entry.get("measures_compilation") or entry.get("demonstration"):
                continue
            first = [x for x, p in zip(entry["samples_s"], where, strict=True) if p == 0]
            rest = [x for x, p in zip(entry["samples_s"], where, strict=True) if p > 0]
            opened.append(len(first))
            if first and rest:
                cost = float(np.median(first) / np.median(rest)) - 1
                if worst is None or abs(cost) > abs(worst[0]):
                    worst = (cost, f"{name}, {mode}")
        uneven = max(uneven, max(opened, default=0) - min(opened, default=0))
    if worst is None:
        return "no round of two variants or more"
    cost = f"{abs(worst[0]):.1%} {'slower' if worst[0] > 0 else 'faster'}" if round(worst[0], 3) else "no slower"
    return f"{cost} opening a round ({worst[1]}); rounds opened within {uneven} of each other"
