"""Snakemake's scheduler kept idle while a job is timed.

Snakemake 9's command line always sets a job rate limiter, whose timers wake the scheduler often beside the timed
job. It is dropped at `onstart`, before the first pass, so a local run has no timer, as Snakemake's API has by
default (docs/decisions.md#an-idle-scheduler); a cluster run keeps it to pace submissions.
"""

from __future__ import annotations

from typing import Any


def keep_idle(workflow: Any) -> bool:
    """Drop the job rate limiter where jobs run on this machine: True where one was dropped (False
    where Snakemake's internals differ from 9.x's; nothing is changed then)."""
    scheduler = getattr(workflow, "scheduler", None)
    if not getattr(workflow, "local_exec", False) or getattr(scheduler, "job_rate_limiter", None) is None:
        return False
    scheduler.job_rate_limiter = None
    return True
