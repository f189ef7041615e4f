"""What a calibration timed, kept whole beside its page, so that the page can be judged again without timing again."""

from __future__ import annotations

import gzip
import io
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from ...configcheck.schema import fill_defaults
from ...report.tables.run_summary import run_summary
from ...results import write_dir_atomically
from ..comparison.lockstep import side_by_side
from ..history import null_drawn
from ..history.rejudge import read_table
from ..settings import History

# The jobs' results, kept only so the page can be rendered again, compressed (one JSON stays several MB otherwise)
LOCKSTEP, JOBS, PYPERF, SETTINGS = "lockstep.csv", "lockstep_jobs.json.gz", "pyperf_pairs.json", "settings.json"
HISTORY_STEPS, HISTORY_RATIOS = "history_steps.csv", "history.csv"
NULL_DRAWN = "null_histories.csv"  # null histories drawn from the kept history (history/null_drawn.py)
CONFIG_SCHEMA = Path(__file__).resolve().parents[4] / "workflow" / "schemas" / "config.schema.yaml"


@dataclass(frozen=True, eq=False)
class Timed:
    """A calibration's measurements and the config sections and reference snapshot ("" for none) it was judged by;
    history fields None where none ran."""

    table: pd.DataFrame
    jobs: list[dict[str, Any]]
    pyperf: list[dict[str, Any]]
    compare: dict[str, Any]
    history: dict[str, Any]
    history_steps: pd.DataFrame | None
    history_ratios: pd.DataFrame | None
    history_machine_s: float
    reference: str
    run_target_s: float = 0.0  # the run's target for its machine time (0: none kept)
    null_outcomes: pd.DataFrame | None = None  # NULL_DRAWN; None where none was drawn (see draws_nulls)


def keep(folder: str | Path, table: str, runs: list[str], pyperf: list[str], compare: dict[str, Any],
         history: dict[str, Any], history_steps: list[str] = (), history_ratios: list[str] = (),
         history_benchmarks: list[str] = (), reference: str = "", run_target_s: float = 0.0) -> None:
    """Copy the calibration rule's inputs into `folder`, whole or not at all, with the reference's name,
    `run_target_s` and the null histories drawn from the history; `pyperf`: files of pyperf pairs."""
    def fill(tmp: str) -> None:
        out = Path(tmp)
        shutil.copyfile(table, out / LOCKSTEP)
        for paths, name in ((history_steps, HISTORY_STEPS), (history_ratios, HISTORY_RATIOS)):
            if paths:
                shutil.copyfile(paths[0], out / name)
        (out / JOBS).write_bytes(gzip.compress(json.dumps([json.loads(Path(p).read_text()) for p in runs]).encode(),
                                               mtime=0))
        (out / PYPERF).write_text(json.dumps([pair for p in pyperf for pair in json.loads(Path(p).read_text())]))
        machine_s = float(run_summary(history_benchmarks).seconds.sum()) if history_benchmarks else 0.0
        (out / SETTINGS).write_text(json.dumps({"compare": compare, "history": history, "history_machine_s": machine_s,
                                                "reference": Path(reference).name if reference else "",
                                                "run_target_s": run_target_s}, indent=1))
        drawn_now(out)

    write_dir_atomically(folder, fill)


def draws_nulls(folder: Path) -> bool:
    """Whether `folder` kept a history of two or more jobs a release to draw from."""
    history = History.of(_as_now(json.loads((folder / SETTINGS).read_text())["history"], "history"))
    return history.repeats >= 2 and (folder / HISTORY_RATIOS).is_file()


def drawn_now(folder: Path) -> bool:
    """Null histories drawn from `folder`'s history into its NULL_DRAWN, where it `draws_nulls`; whether it changed."""
    if not draws_nulls(folder):
        return False
    table = null_drawn.drawn(read_table(folder / HISTORY_RATIOS))
    as_csv = table.to_csv(index=False)
    if (folder / NULL_DRAWN).is_file() and (folder / NULL_DRAWN).read_text() == as_csv:
        return False
    (folder / NULL_DRAWN).write_text(as_csv)
    return True


def _as_now(section: dict[str, Any], name: str) -> dict[str, Any]:
    """A kept config section as this checkout's schema reads it (dropped keys removed, new ones defaulted), so an
    older calibration can be rejudged."""
    schema = yaml.safe_load(CONFIG_SCHEMA.read_text())["properties"][name]
    known = {key: value for key, value in section.items() if key in schema["properties"]}
    fill_defaults(known, schema)
    return known


def _jobs(folder: Path) -> list[dict[str, Any]]:
    """The kept jobs' results, compressed or, kept before they were, not."""
    if (folder / JOBS).is_file():
        return json.loads(gzip.decompress((folder / JOBS).read_bytes()))
    return json.loads((folder / JOBS.removesuffix(".gz")).read_text())


def _alike(now: pd.DataFrame, kept: pd.DataFrame) -> bool:
    """Whether two tables agree but in their numbers' last bits, which BLAS rounds by CPU."""
    try:
        pd.testing.assert_frame_equal(now, kept, check_exact=False, rtol=1e-9, atol=0.0)
    except AssertionError:
        return False
    return True


def estimated_now(kept: Path, out: Path) -> bool:
    """Copy a kept calibration into `out`, its lockstep rows estimated again from its jobs by this checkout's
    estimator; whether any row changed."""
    shutil.copytree(kept, out, dirs_exist_ok=True)
    now = pd.concat([side_by_side(job) for job in _jobs(kept)], ignore_index=True)
    changed = not _alike(pd.read_csv(io.StringIO(now.to_csv(index=False))), pd.read_csv(kept / LOCKSTEP))
    if changed:
        now.to_csv(out / LOCKSTEP, index=False)
    return changed


def read(folder: str | Path) -> Timed:
    """A kept calibration (`keep`), as its page is rendered from it."""
    folder = Path(folder)
    if not (folder / SETTINGS).is_file():
        raise FileNotFoundError(f"{folder} holds no kept calibration (no {SETTINGS}): the calibration rule keeps one")
    settings = json.loads((folder / SETTINGS).read_text())

    def optional(name: str, read_csv=pd.read_csv) -> pd.DataFrame | None:
        return read_csv(folder / name) if (folder / name).is_file() else None

    return Timed(pd.read_csv(folder / LOCKSTEP), _jobs(folder),
                 json.loads((folder / PYPERF).read_text()), _as_now(settings["compare"], "compare"),
                 _as_now(settings["history"], "history"), optional(HISTORY_STEPS), optional(HISTORY_RATIOS, read_table),
                 settings["history_machine_s"], settings["reference"], settings.get("run_target_s", 0.0),
                 optional(NULL_DRAWN, null_drawn.read))
