"""Snakemake's scheduler kept idle while a job is timed: Snakemake 9's command line sets a job rate limiter,
whose timers wake the scheduler often beside the timed job (docs/decisions.md#an-idle-scheduler).
"""

from __future__ import annotations

from typing import Any


def keep_idle(workflow: Any) -> bool:
    """Drop the job rate limiter (at `onstart`) where jobs run on this machine, a cluster run keeping it to pace
    submissions: True where one was dropped (False where Snakemake's internals differ from 9.x's)."""
    scheduler = getattr(workflow, "scheduler", None)
    if not getattr(workflow, "local_exec", False) or getattr(scheduler, "job_rate_limiter", None) is None:
        return False
    scheduler.job_rate_limiter = None
    return True
