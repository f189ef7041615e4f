"""Snakemake's scheduler kept idle while a job is timed.

Snakemake 9's command line always sets a job rate limiter (`--max-jobs-per-timespan`, default 100/1s). Each pass
of its scheduling loop then starts a `threading.Timer` of the limiter's timespan that wakes the loop again, and
every job that starts or ends adds another such chain: with jobs waiting on the `timing` resource, the main
process re-ran its job selection many times a second beside the timed job (about 11% of a core on this project's
2-core VM, where a calibration run's rounds saw 7% of the machine used by others, against 2% in runs before).
A longer timespan keeps the chains and makes Snakemake wait for its last timer at exit (100 s at 1000/100s).
The limiter is made at parse time from the settings the command line passes after it, so it is dropped when the
run starts (`onstart`), before the first pass: a run on this machine then has no timer at all, as Snakemake's
API has by default (docs/decisions.md#an-idle-scheduler). A cluster run keeps it: there it paces submissions,
and the timed jobs run elsewhere.
"""

from __future__ import annotations

from typing import Any


def keep_idle(workflow: Any) -> bool:
    """Drop the scheduler's job rate limiter where the jobs run on this machine: True where one was dropped
    (False where Snakemake's internals differ from 9.x's: its scheduler is then left as it is)."""
    scheduler = getattr(workflow, "scheduler", None)
    if not getattr(workflow, "local_exec", False) or getattr(scheduler, "job_rate_limiter", None) is None:
        return False
    scheduler.job_rate_limiter = None
    return True
