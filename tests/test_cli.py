"""One command for what is not a Snakemake target: `jaxpitfalls <command>` routes to the module that does it, and
says what it can do where it cannot tell what was asked."""

from __future__ import annotations

import importlib
import json

import pytest

from jaxpitfalls import cli
from jaxpitfalls.report.scorecard import claims_page


@pytest.mark.parametrize("command", list(cli.COMMANDS))
def test_every_command_routes_to_a_module_with_a_main(command):
    module, _ = cli.route([*command.split(), "x"])
    assert callable(importlib.import_module(f"jaxpitfalls.{module}").main)


def test_a_group_s_own_subcommand_is_passed_on_where_the_module_reads_it():
    assert cli.route(["calibration", "rejudge", "--write"]) == ("across_runs.calibration.published",
                                                                ["rejudge", "--write"])
    assert cli.route(["reference", "rejudge", "snap", "--write"]) == ("across_runs.reference.rejudge",
                                                                      ["snap", "--write"])


@pytest.mark.parametrize("argv", [[], ["refrence", "rejudge"]])
def test_an_unknown_or_missing_command_says_what_there_is(argv):
    with pytest.raises(SystemExit) as stopped:
        cli.main(argv)
    assert "reference rejudge" in str(stopped.value) and "export pyperf" in str(stopped.value)


def test_help_lists_every_command(capsys):
    assert cli.main(["--help"]) == 0
    said = capsys.readouterr().out
    assert all(command in said for command in cli.COMMANDS)
    assert cli.main(["export", "--help"]) == 0  # a group's help: its commands alone
    assert "export pyperf" in (said := capsys.readouterr().out) and "reference" not in said


def test_the_claims_page_is_written_by_its_command(tmp_path):
    assert cli.main(["claims", str(tmp_path / "claims.md")]) == 0
    assert (tmp_path / "claims.md").read_text() == claims_page.page()


def test_a_run_s_results_export_as_one_pyperf_suite(tmp_path):
    import pyperf
    from results_docs import process_doc

    from jaxpitfalls.harness import environment
    from jaxpitfalls.harness.processes import merge

    doc = merge([process_doc(1.1, 0), process_doc(1.1, 1)]) | {
        "study": "s", "config_id": "c1", "config": {"id": "c1", "axes": ["n"], "n": 1}, "settings": {},
        "floor": "f", "environment": environment.describe({})}
    doc["checks"]["signatures_distinct"] = {"variants": 2, "pairs_compared": 1, "distinct_signatures": 2}
    doc["machine"]["m"]["policy"] = {"on_contention": "warn", "max_busy_share": 0.2}
    doc["variants"]["v"]["modes"]["m"]["demonstration"] = True  # compiled in every call on purpose (RECOMPILES)
    (tmp_path / "results/runs/s").mkdir(parents=True)
    (tmp_path / "results/runs/s/c1.json").write_text(json.dumps(doc))
    assert cli.main(["export", "pyperf", str(tmp_path), str(tmp_path / "out.json")]) == 0
    suite = pyperf.BenchmarkSuite.load(str(tmp_path / "out.json"))
    assert sorted(suite.get_benchmark_names()) == ["c1/m/f", "c1/m/v"]
    assert suite.get_benchmark("c1/m/v").get_nrun() == 2  # a pyperf run per worker process
    # two revisions' exports read alike: the versions, code and compiles a result records go with its samples
    said = suite.get_benchmark("c1/m/v").get_metadata()
    assert {"jaxlib_version", "equinox_version", "commit", "job_compiles_in_timed_region"} <= set(said), said
    assert said["compiles_on_purpose"] == "yes" and "compiles_on_purpose" not in suite.get_benchmark(
        "c1/m/f").get_metadata()  # only where meant: a first run, RECOMPILES


def test_a_command_s_help_is_help_and_a_path_that_is_not_there_is_said_in_one_line(tmp_path, monkeypatch, capsys):
    """`claims --help` prints its usage and writes no file named --help; a table that is not there or not a table
    ends the command with its name and why, not a traceback; a run folder that is not there is refused, not read
    as nothing."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stopped:
        cli.main(["claims", "--help"])
    assert stopped.value.code == 0 and "usage: jaxpitfalls claims" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "notes.md").write_text("# a\nb, c\nd, e, f\n")
    for table, why in (("missing.csv", "FileNotFoundError"), ("notes.md", "ParserError")):
        with pytest.raises(SystemExit) as stopped:
            cli.main(["history", "rejudge", table, "equinox"])
        assert str(stopped.value).startswith(f"jaxpitfalls history rejudge: {why}: ")
    with pytest.raises(SystemExit) as stopped:
        cli.main(["calibration", "intervals", "no-such-run"])
    assert "not a run or snapshot directory: no-such-run" in str(stopped.value)
