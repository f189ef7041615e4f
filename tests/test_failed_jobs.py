"""After failed jobs: the configurations they stood for, and the config overlay that reports every finished one
(the Snakefile's onerror)."""

from __future__ import annotations

import copy

import yaml
from configs import config_with, validate
from snakemake.utils import update_config

from jaxpitfalls import failed_jobs, plan
from jaxpitfalls.failed_overlay import OVERLAY

SMOKE = config_with("presets/smoke.yaml")


def _log(tmp_path, *jobs: tuple[str, str]) -> str:
    """A Snakemake log with an error block per (rule, output), among the lines a run writes."""
    blocks = [f"[Sat Dec  5 15:21:08 2020]\nError in rule {rule}:\n    message: None\n    jobid: {i}\n"
              f"    input: results/models/bert-L1-H16\n    output: {out}\n    log: results/logs/x.log\n"
              for i, (rule, out) in enumerate(jobs)]
    path = tmp_path / "snakemake.log"
    path.write_text("Building DAG of jobs...\nrule run_study:\n    output: results/runs/dispatch/x.json\n"
                    + "\n".join(blocks) + "Exiting because a job execution failed.\n")
    return str(path)


def _ids(config, study):
    return [c["id"] for c in plan.configurations(config["studies"][study])]


def test_a_failed_sweep_configuration_is_left_out_and_nothing_else(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    base, swept = _ids(SMOKE, "dispatch")[:2]
    text = failed_jobs.advice(SMOKE, [_log(tmp_path, ("run_study", f"results/runs/dispatch/{swept}.json"),
                                                ("parse_trace", f"results/tables/overhead/dispatch/{swept}.csv"))])
    assert text.startswith("2 job(s) failed (parse_trace, run_study); every finished result is kept")
    assert f"{tmp_path / OVERLAY} last to the command's --configfile files" in text
    assert f"leaves out: dispatch {swept})" in text and "Remove models" not in text
    config = copy.deepcopy(SMOKE)
    update_config(config, yaml.safe_load((tmp_path / OVERLAY).read_text()))
    validate(config)
    assert _ids(config, "dispatch") == [i for i in _ids(SMOKE, "dispatch") if i != swept] and base in _ids(
        config, "dispatch")
    for study in plan.enabled_studies(SMOKE):
        if study != "dispatch":
            assert config["studies"][study] == SMOKE["studies"][study]


def test_a_failed_model_stands_for_every_configuration_it_serves(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    confs = plan.configurations(SMOKE["studies"]["dispatch"])
    model = next(c["model"] for c in confs[1:] if c["model"] != confs[0]["model"])
    text = failed_jobs.advice(SMOKE, _log(tmp_path, ("prepare_model", f"results/models/{model}")))
    left_out = text.split("leaves out: ")[1].split(")")[0].split("; ")
    assert left_out == sorted(f"{study} {c['id']}" for study in plan.enabled_studies(SMOKE)
                              for c in plan.configurations(SMOKE["studies"][study]) if c.get("model") == model)
    assert len(left_out) > 1


def test_a_failed_base_disables_its_study_so_the_others_are_reported(tmp_path, monkeypatch):
    """A study's base cannot be left out; the overlay disables that study, leaves out the other failed
    configurations, each with why (in the report's setup), and keeps the config's own left_out entries."""
    monkeypatch.chdir(tmp_path)
    base, swept = _ids(SMOKE, "tree_at")[0], _ids(SMOKE, "dispatch")[1]
    (tmp_path / "results" / "logs").mkdir(parents=True)
    (tmp_path / "results" / "logs" / "x.log").write_text("x jaxpitfalls CRITICAL failed: ValueError: bad shapes\n")
    config = copy.deepcopy(SMOKE)
    config["studies"]["dispatch"]["left_out"] = [{"config": "BERT-base", "reason": "too large here"}]
    text = failed_jobs.advice(config, _log(tmp_path, ("capture_trace", f"results/traces/tree_at/{base}"),
                                           ("run_study", f"results/runs/dispatch/{swept}.json")))
    assert f"A base configuration failed (tree_at {base})" in text and "fix the cause" in text
    assert f"(it disables tree_at and leaves out: dispatch {swept})" in text
    update_config(config, yaml.safe_load((tmp_path / OVERLAY).read_text()))
    validate(config)
    named = copy.deepcopy(SMOKE)  # a study compare times cannot be disabled (the config check refuses it)
    named["compare"] |= {"study": "tree_at", "sides": {"a": {}, "b": {}}}
    (tmp_path / OVERLAY).rename(tmp_path / "first.yaml")
    text = failed_jobs.advice(named, _log(tmp_path, ("capture_trace", f"results/traces/tree_at/{base}")))
    assert "fix the cause" in text and not (tmp_path / OVERLAY).exists()
    assert "tree_at" not in plan.enabled_studies(config) and config["studies"]["dispatch"]["left_out"] == [
        {"config": "BERT-base", "reason": "too large here"},
        {"config": swept, "reason": "its run_study job failed: ValueError: bad shapes"}]


def test_a_point_is_left_out_and_an_unused_local_directory_named(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = config_with("presets/smoke.yaml", {
        "studies": {"tree_at": {"points": [{"layers": 3, "hidden": 16}, {"layers": 5, "hidden": 16}]}},
        "models": {"bert": {"local_dirs": {"bert-L3-H16": str(tmp_path)}}}})
    point = next(c for c in plan.configurations(config["studies"]["tree_at"]) if c["layers"] == 3)
    text = failed_jobs.advice(config, _log(tmp_path, ("run_study", f"results/runs/tree_at/{point['id']}.json")))
    assert "Remove models.bert.local_dirs.bert-L3-H16 from your config too" in text
    overlay = yaml.safe_load((tmp_path / OVERLAY).read_text())
    assert overlay["studies"]["tree_at"]["points"] == [{"layers": 5, "hidden": 16}]


def test_a_lockstep_job_left_out_names_its_allocation_for_removal(tmp_path, monkeypatch):
    """An overlay cannot delete a key, and the config check refuses an allocation of a configuration not run."""
    monkeypatch.chdir(tmp_path)
    swept = _ids(SMOKE, "dispatch")[1]
    config = copy.deepcopy(SMOKE)
    config["compare"]["allocation"] = {swept: {"processes": 3}}
    text = failed_jobs.advice(config, _log(tmp_path, ("lockstep", f"results/lockstep/dispatch/{swept}.json")))
    assert f"leaves out: dispatch {swept})" in text and f"Remove compare.allocation.{swept} from your config" in text


def test_a_run_that_failed_no_job_gets_no_advice(tmp_path):
    assert failed_jobs.advice(SMOKE, _log(tmp_path)) == ""
    assert failed_jobs.failed("Error in rule x:\nrule y:\n    output: results/y\n") == [failed_jobs.Failed("x")]


def test_a_retried_job_that_succeeded_is_no_failure(tmp_path, monkeypatch):
    """Snakemake logs an error block for each failed attempt: a job whose output exists now succeeded later."""
    monkeypatch.chdir(tmp_path)
    swept = _ids(SMOKE, "dispatch")[1]
    (tmp_path / "results/runs/dispatch").mkdir(parents=True)
    (tmp_path / f"results/runs/dispatch/{swept}.json").write_text("{}")
    assert failed_jobs.advice(SMOKE, _log(tmp_path, ("run_study", f"results/runs/dispatch/{swept}.json"))) == ""


def test_a_job_is_counted_once_whatever_its_outputs_and_one_of_no_configuration_gets_no_overlay(tmp_path,
                                                                                                 monkeypatch):
    monkeypatch.chdir(tmp_path)
    swept = _ids(SMOKE, "dispatch")[1]
    outputs = ", ".join(f"results/tables/dispatch/{t}.csv" for t in ("steps", "comparisons", "checks"))
    text = failed_jobs.advice(SMOKE, _log(tmp_path, ("aggregate", outputs),
                                          ("run_study", f"results/runs/dispatch/{swept}.json")))
    assert text.startswith("2 job(s) failed (aggregate, run_study)")
    assert "Not a configuration's own (aggregate)" in text and not (tmp_path / OVERLAY).exists()


def test_the_base_of_a_study_of_one_axis_is_its_first_configuration(tmp_path, monkeypatch):
    """With one key every configuration lies on every axis: the base is told apart by place, not by its axes."""
    monkeypatch.chdir(tmp_path)
    config = {"models": {}, "studies": {"mine": {"enabled": True, "base": {"n": 4}, "sweep": {"n": [8, 16]}}}}
    text = failed_jobs.advice(config, _log(tmp_path, ("run_study", "results/runs/mine/n8.json")))
    assert "leaves out: mine n8)" in text and "A base configuration" not in text
    overlay = yaml.safe_load((tmp_path / OVERLAY).read_text())
    assert overlay == {"studies": {"mine": {"sweep": {"n": [16]}, "left_out": [
        {"config": "n8", "reason": "its run_study job failed"}]}}}  # its log not written in this run
    (tmp_path / OVERLAY).unlink()
    text = failed_jobs.advice(config, _log(tmp_path, ("run_study", "results/runs/mine/n4.json")))
    assert "A base configuration failed (mine n4)" in text and not (tmp_path / OVERLAY).exists()  # nothing else


def test_jobs_stopped_by_ctrl_c_are_no_failure_to_fix_and_nothing_is_left_out(tmp_path, monkeypatch):
    """Snakemake says it terminates the jobs, then each stopped job's error block; a job that failed before the
    interrupt is said apart, with its cause."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results" / "logs").mkdir(parents=True)
    (tmp_path / "results" / "logs" / "x.log").write_text("x jaxpitfalls CRITICAL failed: ValueError: bad shapes\n")
    base, swept = (f"results/runs/dispatch/{i}.json" for i in _ids(SMOKE, "dispatch")[:2])
    stop = "Terminating processes on user request, this might take some time.\n"
    log = tmp_path / "snakemake.log"
    log.write_text(stop + (tmp_path / _log(tmp_path, ("run_study", base), ("run_study", swept))).read_text())
    text = failed_jobs.advice(SMOKE, str(log))
    assert text == ("Stopped on request: 2 job(s) left unfinished (run_study); every finished result is kept, and "
                    "running the same command again reruns only what is missing.")
    first, *stopped = (tmp_path / _log(tmp_path, ("prepare_model", "results/models/bert-L1-H16"), ("run_study", base),
                                       ("run_study", swept))).read_text().split("[Sat")
    log.write_text(first + "[Sat" + stopped[0] + stop + "".join("[Sat" + block for block in stopped[1:]))
    assert failed_jobs.advice(SMOKE, str(log)).splitlines() == [
        "Stopped on request: 2 job(s) left unfinished (run_study); every finished result is kept, and running the "
        "same command again reruns only what is missing.",
        "Before that, 1 job(s) failed (prepare_model), as their logs give it first:",
        "  ValueError: bad shapes (1 job(s); results/logs/x.log)"]
    assert not (tmp_path / OVERLAY).exists()
    # a stopped job's block printed before Snakemake's line (the terminal's SIGINT reaches the jobs first): still
    # an interrupt, and no overlay leaves out configurations that did not fail
    log.write_text(first + "".join("[Sat" + block for block in stopped) + stop)
    assert failed_jobs.advice(SMOKE, str(log)).startswith("Stopped on request; every finished result is kept")
    assert not (tmp_path / OVERLAY).exists()


def test_the_run_s_start_is_read_in_english_whatever_the_locale(monkeypatch):
    """Snakemake writes its job-start lines with asctime's English names; strptime's %a and %b follow the locale."""
    import time
    started = failed_jobs._first_start(["x\n[Sat Dec  5 15:21:08 2020]\n", "[Mon Dec  7 01:02:03 2020]\n"])
    assert started == time.mktime((2020, 12, 5, 15, 21, 8, 0, 0, -1))
    assert failed_jobs._first_start(["[Sam Déc  5 15:21:08 2020]\n", "no start"]) == 0.0


def test_each_cause_is_said_once_with_the_jobs_it_ended(tmp_path, monkeypatch):
    """XLA's fatal line; else the job's last exception (a worker's error in it), or where the worker died without
    answering the first one logged (the worker's own, not a sibling's broken pipe after it); else the log's last
    line: one wrong flag that fails every job is one line, not a log per job to open."""
    monkeypatch.chdir(tmp_path)
    ids = _ids(SMOKE, "dispatch")
    xla = "F1205 21:23:11.691454   10030 parse_flags_from_env.cc:234] Unknown flag in XLA_FLAGS: --xla_bogus=1\n"
    died = ("x jaxpitfalls CRITICAL failed: WorkerFailed: w: its worker exited (code 1) before answering; its error "
            "is in the log\n")
    logs = {"a.log": f"INFO start\n{xla}{died}", "b.log": xla,
            "c.log": "x jaxpitfalls CRITICAL failed: ValueError: shapes (2,) and (3,)\nTraceback\n" + died,
            "d.log": "x jaxpitfalls CRITICAL failed: BrokenPipeError: [Errno 32] Broken pipe\n"
                     "x jaxpitfalls CRITICAL failed: WorkerFailed: side 'base': No module named 'kernels'\n",
            "e.log": "Traceback (most recent call last):\nModuleNotFoundError: No module named 'mine'\n"}
    for name, text in logs.items():
        (tmp_path / name).write_text(text)
    log = tmp_path / "snakemake.log"
    log.write_text("".join(f"Error in rule run_study:\n    output: results/runs/dispatch/{ids[i % 2]}-{i}.json\n"
                           f"    log: {name} (check log file(s) for error details)\n" for i, name in enumerate(logs)))
    lines = failed_jobs.advice(SMOKE, str(log)).splitlines()
    assert lines[1:6] == ["The errors, as their logs give them first:",
                          "  Unknown flag in XLA_FLAGS: --xla_bogus=1 (2 job(s); a.log)",
                          "  ValueError: shapes (2,) and (3,) (1 job(s); c.log)",
                          "  WorkerFailed: side 'base': No module named 'kernels' (1 job(s); d.log)",
                          "  ModuleNotFoundError: No module named 'mine' (1 job(s); e.log)"]


def test_a_gate_that_fails_the_run_as_asked_is_its_verdict_not_a_fault(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gate.log").write_text(f"x jaxpitfalls ERROR {failed_jobs.GATE_FAILED}2 regression(s); the worst:\n"
                                       "  mine c0 slow (blocked): head / base 2.100x [1.9, 2.3]\n")
    log = tmp_path / "snakemake.log"
    log.write_text("Error in rule compare_gate:\n    output: results/tables/compare.passed\n    log: gate.log\n")
    assert failed_jobs.advice(SMOKE, str(log)) == (
        "The comparison gate failed the run, as compare.fail_on_* asks (reports/compare.md has every row): 2 "
        "regression(s); the worst:\n"
        "  mine c0 slow (blocked): head / base 2.100x [1.9, 2.3]")


def test_a_job_log_left_by_an_earlier_run_is_no_cause(tmp_path, monkeypatch):
    """A job stopped before its script wrote (scancel on a cluster, an import error) leaves its log as the last run
    left it: its last line ("done in 12.5 s") read as the error. Only logs written since the run began are read."""
    import os
    import time

    monkeypatch.chdir(tmp_path)
    old, cluster = tmp_path / "tree_at.log", tmp_path / "1.log"
    old.write_text("INFO tree_at layers1: done in 12.5 s -> results/runs/tree_at/layers1.json\n")
    os.utime(old, (time.time() - 3600,) * 2)
    cluster.write_text("slurmstepd-vm: error: *** JOB 1 ON vm CANCELLED AT 2026-12-05T23:56:59 ***\n")
    started = time.strftime("%a %b %d %H:%M:%S %Y", time.localtime(time.time() - 60))
    log = tmp_path / "snakemake.log"
    log.write_text(f"[{started}]\nrule run_study:\n\nError in rule run_study:\n    output: results/runs/tree_at/"
                   f"{_ids(SMOKE, 'tree_at')[1]}.json\n    log: {old}, {cluster} (check log file(s) for details)\n")
    lines = failed_jobs.advice(SMOKE, str(log)).splitlines()
    assert lines[1:3] == ["The errors, as their logs give them first:",
                          f"  slurmstepd-vm: error: *** JOB 1 ON vm CANCELLED AT 2026-12-05T23:56:59 *** (1 job(s); "
                          f"{cluster})"], lines


def test_a_worker_s_error_and_the_same_error_in_a_trace_job_are_one_cause(tmp_path, monkeypatch):
    """A timing job says its worker's error under "WorkerFailed: worker process 1 of 2: ", a trace job the same
    error bare: one line for both. A long message keeps its end, where it says what to do."""
    monkeypatch.chdir(tmp_path)
    ids = _ids(SMOKE, "dispatch")
    said = "VariantsIndistinguishable: f.py: variants 'a' and 'b' recorded the same signature {" + "x" * 400 + \
        "}: Keep one of them"
    (tmp_path / "run.log").write_text(f"x jaxpitfalls CRITICAL failed: WorkerFailed: worker process 1 of 2: {said}\n")
    (tmp_path / "trace.log").write_text(f"x jaxpitfalls CRITICAL failed: {said}\n")
    log = tmp_path / "snakemake.log"
    log.write_text(f"Error in rule run_study:\n    output: results/runs/dispatch/{ids[1]}.json\n    log: run.log\n"
                   f"Error in rule capture_trace:\n    output: results/traces/dispatch/{ids[1]}\n    log: trace.log\n")
    (line,) = failed_jobs.advice(SMOKE, str(log)).splitlines()[2:3]
    assert line.startswith("  VariantsIndistinguishable: f.py: variants 'a' and 'b'") and " ... " in line
    assert line.endswith("}: Keep one of them (2 job(s); run.log)") and len(line) < 450


def test_a_job_cancelled_before_it_wrote_is_said_by_its_executor_s_message(tmp_path, monkeypatch):
    """A timing job cancelled on Slurm left its rule log empty: the overlay's reason read "(its log is empty)"
    where Snakemake's error block quoted Slurm's CANCELLED."""
    import time

    monkeypatch.chdir(tmp_path)
    empty = tmp_path / "tree_at.log"
    empty.write_text("")
    started = time.strftime("%a %b %d %H:%M:%S %Y", time.localtime(time.time() - 60))
    said = "SLURM-job '30' failed, SLURM status is: 'CANCELLED'."
    log = tmp_path / "snakemake.log"
    log.write_text(f"[{started}]\nrule run_study:\n\nError in rule run_study:\n    message: {said}\n    output: "
                   f"results/runs/tree_at/{_ids(SMOKE, 'tree_at')[1]}.json\n    log: {empty} (check log file(s))\n")
    assert f"  {said} (1 job(s); {empty})" in failed_jobs.advice(SMOKE, str(log)).splitlines()
    left_out = yaml.safe_load((tmp_path / OVERLAY).read_text())["studies"]["tree_at"]["left_out"]
    assert left_out[0]["reason"] == f"its run_study job failed: {said}"  # as the report lists it
