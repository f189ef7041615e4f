"""What else the machine did while samples were timed, so a neighbour is not taken for a real effect:
/proc/stat's busy and steal time, less this process's own, as shares of the cores (None without /proc).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .yardstick import VERSION as YARDSTICK_VERSION
from .yardstick import yardstick

_TICK_S = 1.0 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01
TICKS_ALLOWED = 2  # CPU time counted in whole ticks: two of them over a window can be rounding, not a neighbour
# /proc/stat's cpu line: user nice system idle iowait irq softirq steal guest guest_nice (guest is in user).
_BUSY_FIELDS = (0, 1, 2, 5, 6)
_STEAL_FIELD = 7


def _cpu_counters() -> tuple[float, float, int] | None:
    """Seconds all CPUs spent busy and stolen since boot, and the CPU count."""
    try:
        lines = Path("/proc/stat").read_text().splitlines()
    except OSError:
        return None
    fields = [int(x) for x in lines[0].split()[1:]]
    cores = sum(1 for line in lines[1:] if line.startswith("cpu"))
    busy = sum(fields[i] for i in _BUSY_FIELDS if i < len(fields))
    steal = fields[_STEAL_FIELD] if len(fields) > _STEAL_FIELD else 0
    return busy * _TICK_S, steal * _TICK_S, cores


def cpu_mhz() -> float | None:
    """CPU 0's current clock (cpufreq, else /proc/cpuinfo), None elsewhere."""
    try:
        return int(Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq").read_text()) / 1e3
    except (OSError, ValueError):
        pass
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                return float(line.split(":", 1)[1])
    except (OSError, ValueError):
        pass
    return None


def load_average() -> float | None:
    """The 1-minute load average (this process's own threads included)."""
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def cpu_seconds(pid: int, reaped: bool = False) -> float:
    """A process's CPU seconds (utime, stime), its reaped children's too where `reaped`."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()  # its name may hold spaces, brackets
    return sum(int(t) for t in fields[11:15 if reaped else 13]) * _TICK_S


def _process_times() -> dict[int, tuple[float, str]]:
    """Other processes' CPU seconds (a build's compilers in their parent's) and command lines."""
    found = {}
    for folder in Path("/proc").glob("[0-9]*"):
        if int(folder.name) == os.getpid():
            continue
        try:
            line = " ".join((folder / "cmdline").read_bytes().decode(errors="replace").replace("\0", " ").split())
            found[int(folder.name)] = (cpu_seconds(int(folder.name), reaped=True),
                                       line or (folder / "comm").read_text().strip())
        except (OSError, ValueError):
            pass  # gone between the glob and the read
    return found


def busiest_others(interval_s: float = 0.25, count: int = 3) -> str:
    """The other processes busiest over the next `interval_s`, so a wait names what it waits on; empty without
    /proc."""
    before, start = _process_times(), time.perf_counter()
    time.sleep(interval_s)
    after, elapsed = _process_times(), time.perf_counter() - start
    used = sorted((((cpu - before[pid][0]) / elapsed, pid, line) for pid, (cpu, line) in after.items()
                   if pid in before), reverse=True)
    return ", ".join(f"pid {pid} ({line[:60]}) {share:.0%} of a core" for share, pid, line in used[:count]
                     if share >= 0.05)


@dataclass(frozen=True)
class Reading:
    wall: float
    own_cpu: float
    counters: tuple[float, float, int] | None

    @classmethod
    def now(cls) -> Reading:
        return cls(time.perf_counter(), time.process_time(), _cpu_counters())


@dataclass(frozen=True)
class Activity:
    """The machine between two readings, as shares of the cores; None where unreadable."""

    wall_s: float
    own_cpu_s: float
    others_share: float | None
    steal_share: float | None
    cores: int = 1

    @classmethod
    def between(cls, start: Reading, end: Reading) -> Activity:
        wall, own = end.wall - start.wall, end.own_cpu - start.own_cpu
        if start.counters is None or end.counters is None or wall <= 0:
            return cls(wall, own, None, None)
        busy = end.counters[0] - start.counters[0]
        steal = end.counters[1] - start.counters[1]
        capacity = wall * end.counters[2]
        others = max(0.0, busy - own)  # busy leaves steal out (_BUSY_FIELDS); own CPU is this process's, all threads
        return cls(wall, own, min(1.0, others / capacity), min(1.0, steal / capacity), end.counters[2])

    @property
    def busy_share(self) -> float | None:
        """Other processes' share plus steal."""
        if self.others_share is None or self.steal_share is None:
            return None
        return self.others_share + self.steal_share

    def contended(self, limit: float) -> bool:
        """Others and steal above `limit` by more than `TICKS_ALLOWED` ticks (one tick proves nothing)."""
        share = self.busy_share
        return share is not None and (share - limit) * self.wall_s * self.cores > TICKS_ALLOWED * _TICK_S

    def describe(self) -> str:
        if self.others_share is None:
            return "machine activity not measurable here"
        return (f"other processes used {self.others_share:.0%} of the cores, steal {self.steal_share:.0%} "
                f"(over {self.wall_s:.2f} s)")


class Watch:
    """The machine as the timing loop sees it; a test passes its own."""

    def now(self) -> Reading:
        return Reading.now()

    def between(self, start: Reading, end: Reading) -> Activity:
        return Activity.between(start, end)

    def clock(self) -> float:
        """The wall clock (s), for what a sample or round cost."""
        return time.perf_counter()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def busiest(self) -> str:
        return busiest_others()

    def speed(self) -> float:
        """Seconds the fixed workload (`yardstick`) takes now: the machine's speed, as a cost."""
        return yardstick()


REAL = Watch()


def machine_summary(windows: list[dict[str, Any]], policy: dict[str, Any], loads: list, clocks: list,
                    waits: list[dict[str, Any]], yardstick_s: list[float], places: dict[str, list[int]],
                    walls: tuple[dict[str, float], float] | None = None) -> dict[str, Any]:
    """What the machine did during one mode's timing, each sample's place in its round (0: first), `walls` (each
    sampler's and the rounds' whole) and the policy; several processes' records merge into one."""
    kept = [w for w in windows if w["kept"]]
    shares = sorted(w["others_share"] for w in windows if w["others_share"] is not None)
    steals = sorted(w["steal_share"] for w in windows if w["steal_share"] is not None)
    return {
        "measurable": bool(shares),
        "rounds_kept": sum(w["rounds"] for w in kept),
        "rounds_retried": sum(w["rounds"] for w in windows if not w["kept"]),
        "rounds_contended_kept": sum(w["rounds"] for w in kept if w["contended"]),
        "others_share_median": shares[len(shares) // 2] if shares else None,
        "others_share_max": shares[-1] if shares else None,
        "steal_share_median": steals[len(steals) // 2] if steals else None,
        "steal_share_max": steals[-1] if steals else None,
        "waited_s": sum(w["seconds"] for w in waits),
        "waits": waits,
        "own_cpu_per_wall": (sum(w["own_cpu_s"] for w in kept) / sum(w["wall_s"] for w in kept)) if kept else None,
        "load_average": [x for x in loads if x is not None],
        "cpu_mhz": [x for x in clocks if x is not None],
        "gc_disabled_in_samples": True,
        "yardstick_s": yardstick_s,
        "yardstick_version": YARDSTICK_VERSION,
        "places": places,
        "policy": policy,
        "windows": windows,
    } | ({} if walls is None else {"sampled_s": walls[0], "rounds_s": walls[1]})
