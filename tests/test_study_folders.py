"""A study from the user's own folder (`study_folders`): found and read like a packaged one, its files tracked
as rule inputs; a folder that is missing or holds no study, a name a packaged study has, and a spec that breaks
the contract are refused at parse, naming the path and the reason (the whole run: tests/test_new_study.py)."""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from pathlib import Path

import pytest
from configs import ROOT, config_with

from jaxpitfalls import registry, sources
from jaxpitfalls.configcheck import InvalidConfig, require_valid

TOY = Path(__file__).parent / "new_study" / "toy"
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


@pytest.fixture
def folders(monkeypatch, tmp_path):
    """Restores what use_folders changes for this process: the environment, the studies' import path, and the
    modules it imported from the test's folders (the packaged studies' stay: other tests hold their objects)."""
    package = importlib.import_module(registry.PACKAGE)
    monkeypatch.setattr(package, "__path__", list(package.__path__))
    monkeypatch.setenv(sources.STUDY_FOLDERS, "")  # recorded as absent before, so undone: a delenv would not be
    yield
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path.resolve())):
            del sys.modules[name]


def _toy_folder(tmp_path: Path, name: str = "toy") -> Path:
    shutil.copytree(TOY, tmp_path / "mine" / name, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path / "mine"


def _check(study_folders: list[str]) -> str:
    config = config_with("presets/smoke.yaml") | {"study_folders": study_folders}
    with pytest.raises(InvalidConfig) as refused:
        require_valid(config, SCHEMA)
    return str(refused.value)


def test_a_study_from_a_folder_of_ones_own_reads_like_a_packaged_one(tmp_path, folders):
    mine = _toy_folder(tmp_path)
    registry.use_folders([mine])
    assert "toy" in registry.names() and {"dispatch", "generation"} <= set(registry.names())
    assert registry.where("toy") == mine.resolve() / "toy"
    assert registry.spec("toy").variants == ("eager", "jit") and registry.judges("toy").spec is registry.spec("toy")
    inputs = sources.files_of("studies.toy.report")
    assert str(mine.resolve() / "toy" / "report.py") in inputs and str(mine.resolve() / "toy" / "spec.py") in inputs
    assert any(p.endswith("contract/figures.py") for p in inputs)  # what the user's study imports of the package
    allowed = ("contract", "harness", "models", "data", "breakdown", "studies.toy")  # a study's floors, and itself
    for part in ("spec", "measure", "claims", "report"):
        outside = [m for m in sources.imported_by(f"jaxpitfalls.studies.toy.{part}")
                   if not m.removeprefix("jaxpitfalls.").startswith(allowed) and m != "jaxpitfalls"]
        assert not outside, f"the toy's {part}.py imports {outside}: a study imports the contract and below only"


@pytest.mark.parametrize("what, made, said", [
    ("a missing folder", lambda t: t / "nowhere", "nowhere: no such folder"),
    ("a folder of no study", lambda t: (t / "empty").mkdir() or t / "empty", "empty holds no study"),
    ("a packaged study's name", lambda t: _toy_folder(t, "dispatch"),
     "mine/dispatch: a study named 'dispatch' is already at "),
    ("a study without __init__.py", lambda t: (_toy_folder(t) / "toy" / "__init__.py").unlink() or t / "mine",
     "mine/toy has a spec.py but no __init__.py"),
    ("a name Python cannot import", lambda t: _toy_folder(t, "my-toy"), "my-toy: a study's folder name is its"),
])
def test_a_folder_that_cannot_be_used_is_refused_at_parse_naming_it(tmp_path, folders, what, made, said):
    message = _check([str(made(tmp_path))])
    assert "config study_folders: " in message and said in message, what
    assert os.environ[sources.STUDY_FOLDERS] == "", "a refused folder changes nothing"


def test_a_folder_named_relative_to_the_working_directory_or_home_and_twice_is_one(tmp_path, folders, monkeypatch):
    mine = _toy_folder(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))
    registry.use_folders(["mine", "~/mine", str(mine)])
    assert sources.study_folders() == (mine.resolve(),) and registry.where("toy") == mine.resolve() / "toy"


@pytest.mark.parametrize("edit, said", [
    (("SPEC = StudySpec(", "STUDY = StudySpec("), "{spec} must define SPEC = StudySpec(name='toy', ...)"),
    (('floor="jit"', 'floor="nope"'), "{spec} cannot be imported: "),
])
def test_a_spec_that_breaks_the_contract_is_refused_naming_its_file(tmp_path, folders, edit, said):
    mine = _toy_folder(tmp_path)
    spec = mine / "toy" / "spec.py"
    spec.write_text(spec.read_text().replace(*edit))
    assert said.format(spec=spec.resolve()) in _check([str(mine)])


def test_a_study_folder_that_holds_the_checkout_does_not_rename_the_packages_modules(monkeypatch):
    """The deepest root names a file: ~/projects as a study folder, the checkout inside it."""
    before = sources.imported_by("jaxpitfalls.report.tables.aggregate")
    monkeypatch.setenv(sources.STUDY_FOLDERS, str(ROOT.parent))
    assert sources.imported_by("jaxpitfalls.report.tables.aggregate") == before
    assert not [p for p in sources.files_of("report.tables.aggregate") if "studies" in p]


def test_a_users_study_records_its_files_digest_where_a_packaged_one_has_the_commit(tmp_path, folders):
    from jaxpitfalls.harness.environment import study_code
    from jaxpitfalls.report.tables.environments import code_version

    mine = _toy_folder(tmp_path)
    registry.use_folders([mine])
    before = study_code("toy")
    (mine / "toy" / "report.py").write_text((mine / "toy" / "report.py").read_text() + "\n# edited\n")
    after = study_code("toy")
    assert before["folder"] == after["folder"] == str(mine.resolve() / "toy") and before["sha256"] != after["sha256"]
    assert study_code("dispatch") is None
    git = {"commit": "0123456789", "dirty": False}
    assert code_version({"git": git, "study_code": after}) == f"0123456+study:{after['sha256'][:7]}"
    file = {"file": "bench.py", "sha256": "abcdef123", "git": {"commit": "fedcba987", "dirty": False}}
    assert code_version({"git": git, "study_code": file}) == "0123456+study:abcdef1@fedcba9"  # its repository's
    assert code_version({"git": git, "study_code": file | {"git": {"commit": None, "dirty": True}}}) == (
        "0123456+study:abcdef1+dirty")  # edited or untracked, it or a module beside it: in no commit


def _refused_with_toy(mine) -> str:
    """Why the config check refuses a config timing the toy from `mine` (its study folder)."""
    config = config_with("presets/smoke.yaml") | {"study_folders": [str(mine)]}
    config["studies"] = config["studies"] | {"toy": {"base": {"layers": 1, "hidden": 16}}}
    with pytest.raises(InvalidConfig) as refused:
        require_valid(config, SCHEMA)
    return str(refused.value)


def test_a_study_whose_claims_py_judges_not_every_claim_is_refused_at_parse(tmp_path, folders):
    """The spec judges a claim no function in claims.py judges: the report refused it, after every timing job."""
    mine = _toy_folder(tmp_path)
    claims = mine / "toy" / "claims.py"
    claims.write_text(claims.read_text().replace('@JUDGES("jit_faster")\n', ""))
    assert f"study toy: {claims.resolve()} judges none of ['jit_faster']: add a function" in _refused_with_toy(mine)


def test_a_study_whose_report_py_lacks_a_name_is_refused_at_parse(tmp_path, folders):
    """A report.py without FINDINGS passed the parse and every timing job, then failed the plot job; one missing
    was a traceback at the parse."""
    mine = _toy_folder(tmp_path)
    report = mine / "toy" / "report.py"
    report.write_text(report.read_text().replace("FINDINGS = ()", "THE_FINDINGS = ()"))
    assert f"study toy: {report.resolve()} does not define ['FINDINGS']" in _refused_with_toy(mine)
    report.unlink()
    assert f"study toy: {report.resolve()} cannot be read: FileNotFoundError" in _refused_with_toy(mine)
    from jaxpitfalls import registry
    assert registry.report_lacks("dispatch") == []  # a packaged one, read the same way
