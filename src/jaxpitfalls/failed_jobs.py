"""After failed jobs (the Snakefile's `onerror`, from Snakemake's log): their causes, the configurations they stood
for, and a config overlay leaving those out (the report needs every configuration's result)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

from . import plan
from .failed_overlay import overlay_lines

# A configuration's own jobs, by their outputs (workflow/rules/studies.smk, traces.smk, lockstep.smk, models.smk).
_OF_CONFIGURATION = re.compile(r"results/(?:runs|traces|tables/overhead|lockstep)/(?P<study>[^/]+)/(?P<config>[^/]+?)"
                               r"(?:\.json|\.csv)?$")
_OF_MODEL = re.compile(r"results/models/(?P<model>[^/]+)$")
_ERROR = re.compile(r"^Error in rule (?P<rule>\w+):$")
# Snakemake's line on Ctrl-C: the jobs it stops fail after it, with nothing of theirs to fix.
_INTERRUPTED = "Terminating processes on user request"
# glog's fatal line (XLA's "F1205 21:23:11.69 10030 file.cc:234] Unknown flag ..."); an exception runtime.start
# logged; and what a job says of a worker that died before answering (harness/workers.py)
_FATAL = re.compile(r"^F\d{4} [\d:.]+ +\d+ \S+\] (?P<what>.+)$")
_RAISED = re.compile(r" CRITICAL failed: (?P<what>.+)$")
_UNANSWERED = "before answering; its error is in the log"
_WORKER = re.compile(r"^WorkerFailed: worker process \d+ of \d+: ")  # its worker's error, as a trace job says it
# Snakemake's line as a job starts, in local time: the first is the run's first job's.
_STARTED = re.compile(r"^\[(?P<when>\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4})\]$")
# How scripts/compare_gate.py logs its verdict when it fails the run, as compare.fail_on_* asks: no fault to fix.
GATE_FAILED = "the comparison gate fails the run: "


EMPTY = "(its log is empty)"  # a job stopped before it wrote: the executor's message, where it gave one, says why


class Failed(NamedTuple):  # a failed job, as Snakemake's error block names it
    rule: str
    outputs: tuple[str, ...] = ()
    logs: tuple[str, ...] = ()
    message: str = ""  # an executor's word on it (Slurm's "SLURM status is: 'CANCELLED'")


def failed(log_text: str) -> list[Failed]:
    """Every error block in a Snakemake log, in its order (a retried job's each time)."""
    found: list[Failed] = []
    block = False
    for line in log_text.splitlines():
        if match := _ERROR.match(line.strip()):
            found.append(Failed(match["rule"]))
            block = True
        elif block and line.startswith((" ", "\t")):  # the block's indented fields
            key, _, value = line.strip().partition(":")
            if key in ("output", "log"):
                paths = tuple(p.strip() for p in value.split(" (check log")[0].split(","))
                found[-1] = found[-1]._replace(**{f"{key}s": paths})
            elif key == "message" and value.strip() != "None":  # Snakemake's word for none
                found[-1] = found[-1]._replace(message=_shortened(value.strip()))
        else:
            block = False
    return found


def still_failed(jobs: list[Failed]) -> list[Failed]:
    """The jobs whose outputs are missing now (a retry that succeeded left them), each once."""
    return list(dict.fromkeys(job for job in jobs if not job.outputs or not all(map(os.path.exists, job.outputs))))


def cause(log: str) -> str:
    """A job log's error: XLA's fatal line, else its last logged exception (the first where a worker died
    unanswered: the worker's own), else its last line."""
    lines = [line.strip() for line in Path(log).read_text(errors="replace").splitlines() if line.strip()]
    fatal = [m["what"] for m in map(_FATAL.search, lines) if m]
    raised = [m["what"] for m in map(_RAISED.search, lines) if m]
    if fatal:
        return _shortened(fatal[0])
    if raised:
        return _shortened(_WORKER.sub("", raised[0] if _UNANSWERED in raised[-1] else raised[-1]))
    return _shortened(lines[-1]) if lines else EMPTY


def _shortened(line: str, most: int = 400) -> str:
    """A long error's start and end (where a message says what to do), its middle left out."""
    return line if len(line) <= most else f"{line[:most // 2]} ... {line[-most // 2:]}"


def _gate_verdict(log: str) -> str:
    """The gate's verdict where its log says it failed the run on purpose; "" otherwise."""
    text = Path(log).read_text(errors="replace") if os.path.isfile(log) else ""
    return text.split(GATE_FAILED, 1)[1].strip() if GATE_FAILED in text else ""


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
SKEW_S = 2.0  # a log's clock against Snakemake's (a cluster's shared file system), and the line's whole seconds


def _first_start(texts: list[str]) -> float:
    """When the run's first job started (epoch seconds, local time as Snakemake wrote it, English names whatever
    the locale), or 0."""
    starts = []
    for text in texts:
        if m := next(filter(None, map(_STARTED.match, text.splitlines())), None):
            _, month, day, clock, year = m["when"].split()
            if month in _MONTHS:
                hours, minutes, seconds = map(int, clock.split(":"))
                starts.append(time.mktime((int(year), _MONTHS.index(month) + 1, int(day), hours, minutes, seconds,
                                           0, 0, -1)))
    return min(starts, default=0.0)


def _said(jobs: list[Failed], since: float) -> dict[Failed, list[tuple[str, str]]]:
    """Each job's logs written since the run began, with the cause each gives (an empty one: the executor's
    message), each log read once (a job stopped before its script wrote left an earlier run's)."""
    return {job: [(log, _cause_of(job, log)) for log in job.logs
                  if os.path.isfile(log) and os.path.getmtime(log) >= since - SKEW_S] for job in jobs}


def _cause_of(job: Failed, log: str) -> str:
    what = cause(log)
    return job.message if job.message and what == EMPTY else what


def _causes(said: dict[Failed, list[tuple[str, str]]]) -> list[str]:
    """Each cause once, with the jobs it ended."""
    by_cause: dict[str, list[str]] = {}
    for logs in said.values():
        for log, what in logs:
            by_cause.setdefault(what, []).append(log)
    return [f"  {what} ({len(logs)} job(s); {logs[0]})" for what, logs in
            sorted(by_cause.items(), key=lambda item: -len(item[1]))]


def configurations_of(config: dict[str, Any], output: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(study, configuration) a failed job's output stood for: its own, or every one its model serves."""
    own, model = _OF_CONFIGURATION.search(output), _OF_MODEL.search(output)
    for study in plan.enabled_studies(config):
        for conf in plan.configurations(config["studies"][study]):
            if (own and (own["study"], own["config"]) == (study, conf["id"])) or (
                    model and conf.get("model") == model["model"]):
                yield study, conf


def advice(config: dict[str, Any], logs: str | Iterable[str]) -> str:
    """What to do next (writing the overlay where configurations can be left out); "" where no job failed."""
    texts = [Path(log).read_text() for log in ([logs] if isinstance(logs, str) else logs)]
    jobs = still_failed([job for text in texts for job in failed(text)])
    if not jobs:
        return ""
    if any(_INTERRUPTED in text for text in texts):  # no overlay: the stopped configurations did not fail
        stopped = still_failed([job for text in texts for job in failed(text.partition(_INTERRUPTED)[2])])
        return _stopped(stopped, [job for job in jobs if job not in stopped], texts)
    verdicts = {job: [verdict for log in job.logs if (verdict := _gate_verdict(log))] for job in jobs}
    gate = [f"The comparison gate failed the run, as compare.fail_on_* asks ({plan.compared_report(config)} has "
            f"every row): {verdict}" for found in verdicts.values() for verdict in found]
    jobs = [job for job in jobs if not verdicts[job]]
    if not jobs:
        return "\n".join(gate)
    of = {job: {(s, c["id"]): (s, c) for out in job.outputs for s, c in configurations_of(config, out)}
          for job in jobs}
    confs = {key: found for job_confs in of.values() for key, found in job_confs.items()}
    lines = [f"{len(jobs)} job(s) failed ({_rules(jobs)}); every finished result is kept, and running the same "
             "command again reruns only what is missing."]
    said = _said(jobs, _first_start(texts))
    if causes := _causes(said):
        lines += ["The errors, as their logs give them first:", *causes]
    apart = sorted({job.rule for job, found in of.items() if not found})
    if apart:
        lines.append(f"Not a configuration's own ({', '.join(apart)}): the report needs it; fix the cause.")
    bases = {s: f"{s} {c['id']}" for s, c in confs.values() if c["id"] == plan.base_id(config["studies"][s])}
    if bases:
        lines.append(f"A base configuration failed ({'; '.join(sorted(bases.values()))}): it cannot be left out (its "
                     "study's sweeps and claims start from it); fix the cause.")
    if confs and not apart and set(plan.enabled_studies(config)) - set(bases) and not set(bases) & _named(config):
        reasons = {key: f"its {job.rule} job failed" + (f": {said[job][0][1]}" if said[job] else "")
                   for job, found in of.items() for key in found}
        lines += overlay_lines(config, [(s, c) for s, c in confs.values() if s not in bases], reasons, sorted(bases))
    return "\n".join(lines + gate)


def _stopped(stopped: list[Failed], before: list[Failed], texts: list[str]) -> str:
    """After Ctrl-C: the jobs it stopped, which have nothing to fix, and those that had failed before it."""
    unfinished = f": {len(stopped)} job(s) left unfinished ({_rules(stopped)})" if stopped else ""
    lines = [f"Stopped on request{unfinished}; every finished result is kept, and running the same command again "
             "reruns only what is missing."]
    if before:
        causes = _causes(_said(before, _first_start(texts)))
        lines += [f"Before that, {len(before)} job(s) failed ({_rules(before)})" + (
            ", as their logs give it first:" if causes else "."), *causes]
    return "\n".join(lines)


def _named(config: dict[str, Any]) -> set[str]:
    """The studies compare or history time (the config check refuses them disabled)."""
    compare, history = config.get("compare", {}), config.get("history", {})
    return {block["study"] for block, used in ((compare, compare.get("sides")), (history, history.get("versions")))
            if used}


def _rules(jobs: list[Failed]) -> str:
    return ", ".join(sorted({job.rule for job in jobs}))
