"""Your code at two revisions: lockstep sides that are git revisions of the repository holding a benchmark file, each
timing the file as it is there; a revision that does not exist, or where the file does not, is refused at parse."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pandas as pd
import pytest
import yaml
from workflow_copy import copy_workflow, snakemake

from jaxpitfalls import registry, revisions, sources

BENCH = '''"""A jitted tanh against the same function un-jitted."""
import time

import jax
import jax.numpy as jnp

SLOWER = 0.0  # how many times its own time a jitted call sleeps afterwards: a known slowdown


def setup(n):
    return jnp.linspace(0, 1, n)


def f(x):
    return jnp.tanh(x) @ jnp.sin(x)


def jitted(x):
    g = jax.jit(f)

    def call():
        start = time.perf_counter()
        out = jax.block_until_ready(g(x))
        if SLOWER:
            time.sleep((time.perf_counter() - start) * SLOWER)
        return out

    return call


def eager(x):
    return lambda: f(x)


VARIANTS = {"jitted": jitted, "eager": eager}
'''


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def repo(tmp_path):
    """A repository whose benchmark file's jitted call sleeps 19 times its own time after each call at tag `slowed`
    (twenty times as slow), not at tag `base`: a margin one disturbed process of 3 cannot hide. A sleep, not a spin:
    beside busy tests a spinning process is scheduled behind the others after its spin, and its eager rows, which
    must stay unchanged, read 1.56x slower in one run."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.org")
    git(repo, "config", "user.name", "t")
    (repo / "bench.py").write_text(BENCH)
    git(repo, "add", "bench.py")
    git(repo, "commit", "-qm", "base")
    git(repo, "tag", "base")
    (repo / "bench.py").write_text(BENCH.replace("SLOWER = 0.0", "SLOWER = 19.0"))
    git(repo, "commit", "-qam", "slowed")
    git(repo, "tag", "slowed")
    return repo


@pytest.fixture
def files(monkeypatch):
    monkeypatch.setenv(sources.BENCHMARK_FILES, "")


def test_a_revision_is_checked_out_whole_and_the_repository_left_alone(repo, files, tmp_path, monkeypatch):
    registry.use_files({"mine": repo / "bench.py"})
    sha = revisions.commit("mine", "base")
    assert sha == git(repo, "rev-parse", "base") and revisions.in_repository("mine") == "bench.py"
    revisions.checkout("mine", sha, tmp_path / "checkout")
    assert "SLOWER = 0.0" in (tmp_path / "checkout/bench.py").read_text()
    assert git(repo, "status", "--porcelain") == "" and git(repo, "worktree", "list").count("\n") == 0
    monkeypatch.chdir(tmp_path)
    env = revisions.side_env("mine", "old", sha, {"XLA_FLAGS": "--x"})
    assert env["XLA_FLAGS"] == "--x" and str(tmp_path / "results/revisions/old/bench.py") in env[
        sources.BENCHMARK_FILES] and sha in env[sources.BENCHMARK_COMMITS]
    revisions.same_variants("mine", sha)  # the slowed revision names the same variants


def test_a_benchmark_file_git_does_not_track_is_recorded_in_no_commit(repo):
    """Its repository's HEAD holds a tracked file's code, not an untracked one's: that is recorded as no commit."""
    from jaxpitfalls.harness.environment import git_state

    assert git_state(repo, repo / "bench.py") == {"commit": git(repo, "rev-parse", "HEAD"), "dirty": False}
    (repo / "mine.py").write_text("VARIANTS = {}\n")
    assert git_state(repo, repo / "mine.py") == {"commit": None, "dirty": True}
    assert git_state(repo, repo / "bench.py", repo / "mine.py") == {"commit": None, "dirty": True}  # a neighbour
    (repo / "README").write_text("x\n")
    git(repo, "add", "README")  # another file's edit: the checkout is dirty, the file is not
    assert git_state(repo)["dirty"] and not git_state(repo, repo / "bench.py")["dirty"]


def test_a_benchmark_files_code_is_it_and_the_modules_beside_it_that_it_imports(repo, files):
    from jaxpitfalls.harness.environment import study_code

    registry.use_files({"mine": repo / "bench.py"})
    before = study_code("mine")
    (repo / "bench.py").write_text("import helper\n" + (repo / "bench.py").read_text())
    (repo / "helper.py").write_text("X = 1\n")
    with_helper = study_code("mine")
    (repo / "helper.py").write_text("X = 2\n")
    assert len({before["sha256"], with_helper["sha256"], study_code("mine")["sha256"]}) == 3
    assert with_helper["git"] == {"commit": None, "dirty": True}  # helper.py is in no commit


@pytest.mark.parametrize("revision, said", [
    ("no-such-tag", r"'no-such-tag' is not a revision of .* \(its branches and tags: [\w./-]+, base, slowed\)"),
    ("base~1", "'base~1' is not a revision of"),
])
def test_a_revision_that_does_not_exist_is_refused_naming_it(repo, files, revision, said):
    registry.use_files({"mine": repo / "bench.py"})
    with pytest.raises(revisions.RevisionRefused, match=said):
        revisions.commit("mine", revision)


def test_a_revision_where_the_file_does_not_exist_is_refused(repo, files):
    git(repo, "mv", "bench.py", "moved.py")
    git(repo, "commit", "-qm", "moved")
    registry.use_files({"mine": repo / "moved.py"})
    with pytest.raises(revisions.RevisionRefused, match="moved.py does not exist at 'base'"):
        revisions.commit("mine", "base")


def test_a_revision_whose_file_imports_a_module_it_lacks_is_refused_naming_it(repo, files):
    """The helper lies beside the file here but was never committed: the revision's worker could not import it."""
    (repo / "bench.py").write_text("import helper\n" + BENCH)
    (repo / "helper.py").write_text("X = 1\n")
    git(repo, "commit", "-qam", "imports helper")
    registry.use_files({"mine": repo / "bench.py"})
    with pytest.raises(revisions.RevisionRefused, match="helper, which bench.py imports from beside it, is at 'HEAD' "
                                                        r"\(\w+\) of .* neither a module nor a package: commit it"):
        revisions.commit("mine", "HEAD")
    assert revisions.commit("mine", "base") == git(repo, "rev-parse", "base")  # its file imported no helper
    git(repo, "add", "helper.py")
    git(repo, "commit", "-qm", "helper")
    revisions.commit("mine", "HEAD")
    (repo / "helper.py").unlink()  # a module made a package here: the revision's module form still serves it
    (repo / "helper").mkdir()
    (repo / "helper" / "__init__.py").write_text("X = 1\n")
    revisions.commit("mine", "HEAD")


def test_a_revision_whose_file_names_other_variants_is_refused(repo, files):
    (repo / "bench.py").write_text(BENCH.replace('"eager": eager}', '"plain": eager}'))
    git(repo, "commit", "-qam", "renamed a variant")
    registry.use_files({"mine": repo / "bench.py"})
    with pytest.raises(revisions.RevisionRefused, match=r"names the variants \['jitted', 'eager'\]"):
        revisions.same_variants("mine", revisions.commit("mine", "base"))


def _overlay(work: Path, repo: Path, sides: dict) -> Path:
    overlay = work / "revisions.yaml"
    overlay.write_text(yaml.safe_dump({
        "studies": {name: {"enabled": False} for name in ("dispatch", "tree_at", "extraction", "generation")} | {
            "mine": {"file": str(repo / "bench.py"), "base": {"n": 2000},
                     "measure": {"min_sample_s": 0.02, "on_contention": "warn"}}},
        "compare": {"study": "mine", "sides": sides, "processes": 3, "rounds": 4}}))
    return overlay


@pytest.mark.workflow
def test_two_revisions_timed_in_lockstep_name_the_slowed_one_regressed(repo, tmp_path):
    (tmp_path / "work").mkdir()
    work = copy_workflow(tmp_path / "work")
    bad = _overlay(work, repo, {"old": {"revision": "v0.0-never"}, "new": {}})
    refused = snakemake(work, "-n", overlay=bad, check=False)
    assert refused.returncode != 0
    said = refused.stdout + refused.stderr
    assert "config compare.sides.old.revision = 'v0.0-never': 'v0.0-never' is not a revision of" in said

    overlay = _overlay(work, repo, {"base": {"revision": "base"}, "same": {"revision": "base"},
                                    "slowed": {"revision": "slowed"}})
    snakemake(work, "--cores", "all", "reports/compare_lockstep.md", overlay=overlay)
    table = pd.read_csv(work / "results/tables/compare_lockstep.csv").set_index(["side", "variant", "mode"])
    assert table.loc[("slowed", "jitted", "blocked"), "verdict"] == "regressed"
    assert not (table.loc["same"].verdict == "regressed").any()
    report = (work / "reports/compare_lockstep.md").read_text()
    slowed = git(repo, "rev-parse", "slowed^{commit}")[:7]
    assert "- `slowed`: " in report and f"the benchmark file at revision `slowed` (`{slowed}`)" in report
    plans = pd.read_csv(work / "results/tables/compare_memory_plans.csv")  # a sleep added: the same programs
    assert set(plans.side) == {"same", "slowed"} and set(plans.variant) == {"jitted", "eager"}
    assert (plans.change == 1).all() and f"0 of {len(plans)} moved" in report

    # the gate over the rows declared primary (compare.primary): the variant left alone passes, the slowed one
    # fails naming it; re-judging times nothing again
    for primary, fails in ((["mine/*/eager/*"], False), (["mine/*/jitted/*"], True)):
        gated = yaml.safe_load(overlay.read_text())
        gated["compare"] |= {"fail_on_regression": True, "primary": primary}
        overlay.write_text(yaml.safe_dump(gated))
        proc = snakemake(work, "--cores", "all", "results/tables/compare.passed", overlay=overlay, check=False)
        assert (proc.returncode != 0) == fails and "rule lockstep:" not in proc.stdout, proc.stdout[-2000:]
        said = (work / "results/logs/compare_gate.log").read_text()
        assert not fails or "over 4 rows compare.primary declares" in said, said[-2000:]
