"""What a contended window of rounds means (`measure.on_contention`): re-timed once the machine is quiet
(`retry`: each wait asks for twice as long a quiet stretch, up to `measure.max_wait_s`), refused (`fail`), or kept
and marked (`warn`)."""

from __future__ import annotations

import logging
import statistics
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .machine import Activity, Watch

if TYPE_CHECKING:
    from .sampling import Sampling

log = logging.getLogger(__name__)

PROBE_S = 0.5  # one look at the machine while waiting (50 ticks of 2 cores: a stray tick is 1%)
FIRST_QUIET_S = 1.0  # the quiet stretch the first wait of a mode asks for; doubled for each further wait
MAX_QUIET_S = 30.0


class MachineBusy(RuntimeError):
    """Other processes (or the hypervisor) used the machine while samples were timed, past the policy."""


@dataclass(frozen=True)
class Wait:
    """One wait for quiet."""

    seconds: float
    quiet_s: float
    quiet: bool
    probes: list[Activity]

    def record(self) -> dict[str, Any]:
        others = [p.others_share for p in self.probes if p.others_share is not None]
        steal = [p.steal_share for p in self.probes if p.steal_share is not None]
        return {"seconds": self.seconds, "quiet_s": self.quiet_s, "quiet": self.quiet, "probes": len(self.probes),
                "others_share_max": max(others, default=None), "steal_share_max": max(steal, default=None)}


def until_quiet(watch: Watch, max_busy_share: float, quiet_s: float, allowed_s: float) -> Wait:
    """Sleep in `PROBE_S` probes until others used at most `max_busy_share` for `quiet_s` in a row,
    or `allowed_s` passed."""
    start = last = watch.now()
    streak, probes = 0.0, []
    while True:
        watch.sleep(PROBE_S)
        now = watch.now()
        probe = watch.between(last, now)
        probes.append(probe)
        streak = 0.0 if probe.contended(max_busy_share) else streak + probe.wall_s
        last, elapsed = now, now.wall - start.wall
        if streak >= quiet_s or elapsed >= allowed_s:
            return Wait(elapsed, quiet_s, streak >= quiet_s, probes)


def _shares(values: list[float | None]) -> str:
    seen = [v for v in values if v is not None]
    return f"median {statistics.median(seen):.0%}, up to {max(seen):.0%}" if seen else "not measurable"


class Contention:
    """One mode's policy for contended windows, and its record: windows re-timed, waits, time spent."""

    def __init__(self, sampling: Sampling, label: str, watch: Watch) -> None:
        self.sampling, self.label, self.watch = sampling, label, watch
        self.spent_s = 0.0  # re-timed windows plus waiting, against measure.max_wait_s
        self.retimed = 0
        self.waits: list[Wait] = []

    def keep(self, activity: Activity) -> bool:
        """Whether a window's rounds are kept: quiet ones, contended only under `warn` (`retry` waits
        first); `fail`, or waiting past `max_wait_s`, raises `MachineBusy`."""
        policy = self.sampling.on_contention
        if not activity.contended(self.sampling.max_busy_share) or policy == "warn":
            return True
        if policy == "fail":
            raise MachineBusy(self._message(activity, "measure.on_contention is fail"))
        self.retimed += 1
        self.spent_s += activity.wall_s
        quiet_s = min(FIRST_QUIET_S * 2 ** len(self.waits), MAX_QUIET_S)
        allowed_s = self.sampling.max_wait_s - self.spent_s
        if allowed_s < quiet_s:  # the quiet stretch asked for cannot fit in what is left
            raise MachineBusy(self._message(activity, self._spent()))
        log.warning("%s: window re-timed: %s%s; waiting for %.0f s of quiet, up to %.0f s (measure.max_wait_s; "
                    "measure.on_contention: warn keeps such rounds, marked, instead)", self.label, activity.describe(),
                    self._busiest(activity), quiet_s, allowed_s)
        wait = until_quiet(self.watch, self.sampling.max_busy_share, quiet_s, allowed_s)
        self.spent_s += wait.seconds
        self.waits.append(wait)
        if not wait.quiet:
            raise MachineBusy(self._message(activity, self._spent()))
        log.warning("%s: quiet again after %.1f s; re-timing", self.label, wait.seconds)  # the wait's end, as its start
        return False

    @property
    def waited_s(self) -> float:
        return sum(w.seconds for w in self.waits)

    def records(self) -> list[dict[str, Any]]:
        """The mode's waits for the machine record."""
        return [w.record() for w in self.waits]

    def _spent(self) -> str:
        probes = [p for w in self.waits for p in w.probes]
        return (f"re-timed {self.retimed} window(s) and waited {self.waited_s:.0f} s in "
                f"{len(self.waits)} wait(s), {self.spent_s:.0f} s in all, reaching "
                f"measure.max_wait_s={self.sampling.max_wait_s:g}; while it waited other processes used "
                f"{_shares([p.others_share for p in probes])} of the cores, "
                f"steal {_shares([p.steal_share for p in probes])}")

    def _busiest(self, activity: Activity) -> str:
        """The busiest other processes, where they (not steal) made the window busy."""
        if (activity.others_share or 0) < (activity.steal_share or 0):
            return ""
        busiest = self.watch.busiest()
        return f" (the busiest now: {busiest})" if busiest else ""

    def _message(self, activity: Activity, why: str) -> str:
        culprit = (f"another process on this machine{self._busiest(activity) or ' (see `top`)'}" if (
            activity.others_share or 0) >= (activity.steal_share or 0) else
            "the hypervisor giving the cores to other guests (steal)")
        return (f"{self.label}: the machine was busy while samples were timed: {activity.describe()}, more than "
                f"measure.max_busy_share={self.sampling.max_busy_share:g} of the cores, mostly {culprit}; {why}. "
                "Timings taken beside a busy neighbour are not comparable. Rerun when the machine is quiet "
                "(`snakemake --cores all` reruns only what is missing; finished results are kept), raise "
                "measure.max_wait_s to wait longer, or set measure.on_contention: warn to keep the samples, "
                "marked as contended")
