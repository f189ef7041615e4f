"""A published reference: a dated snapshot of one whole run, small enough to commit, so that a user reads real results
before running anything. Its `manifest.json` ties each file to the run's bundle by sha256; `check` verifies it.

    jaxpitfalls reference snapshot RUN_DIR docs/results/reference --preset presets/seeds-cpu.yaml
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import shutil
import tarfile
from pathlib import Path
from typing import Any

import pandas as pd

from ...contract.tables import TABLES
from ...report.tables.bundle import MANIFEST as BUNDLE_MANIFEST
from ...report.tables.run_summary import run_summary, span_seconds
from ...results import write_dir_atomically
from .published import MANIFEST, UNREVIEWED, write_index


class InvalidReference(ValueError):
    """A snapshot whose files do not match its manifest, or a run that cannot be published."""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def kept_files(run: Path) -> dict[str, str]:
    """Snapshot path -> the run's path (as the bundle names it) for every file a reference keeps."""
    figures = sorted(p.relative_to(run / "reports").as_posix() for p in (run / "reports/figures").rglob("*.png"))
    environments = sorted((run / "results/tables").glob("*/environment.csv"))
    tables = sorted(p for p in (run / "results/tables").glob("*/*.csv") if p.name != "environment.csv")
    return ({"report.md": "reports/report.md", "scorecard.png": "reports/scorecard.png",
             "run_summary.csv": "results/tables/run_summary.csv", SETTINGS: "reports/report_settings.json"}
            | {f: f"reports/{f}" for f in figures}
            | {f"environment/{p.parent.name}.csv": p.relative_to(run).as_posix() for p in environments}
            | {f"tables/{p.parent.name}/{p.name}": p.relative_to(run).as_posix() for p in tables})


SETTINGS = "settings.json"  # the config keys the report shows (plan.report_settings): what it renders again from


def table_paths(snapshot: Path, study: str) -> dict[str, str]:
    """A study's kept tables (tables/<study>/<table>.csv) and environment (environment/<study>.csv)."""
    paths = {t: str(snapshot / "tables" / study / f"{t}.csv") for t in TABLES}
    return paths | {"environment": str(snapshot / "environment" / f"{study}.csv")}


def _bundle_manifest(run: Path) -> dict[str, Any]:
    with tarfile.open(run / "reports/bundle.tar.gz", "r:gz") as tar:
        return json.loads(tar.extractfile(BUNDLE_MANIFEST).read())


def _whole_run(run: Path) -> float:
    """The run's wall time; a run whose jobs span several invocations is refused (its times do not add up)."""
    span, older = span_seconds(run_summary(sorted((run / "results/benchmarks").rglob("*.tsv"))))
    if span is None or older:
        raise InvalidReference(f"{run}: {older} jobs come from earlier invocations: a reference is one whole "
                               "run (start it in an empty directory)")
    return span


def _yardstick_ms(run: Path, sources: dict[str, str]) -> float | None:
    """The median of the run's timing jobs' yardstick medians: the machine's speed, shown in the index."""
    values = [v for snap, src in sources.items() if snap.endswith("/checks.csv")
              for v in pd.read_csv(run / src).get("yardstick_ms", pd.Series(dtype=float)).dropna()]
    return round(float(pd.Series(values).median()), 3) if values else None


def _free(out_root: Path, date: str) -> Path:
    """`out_root/<date>`, or `<date>-2`, `-3`, ... where that day already has a snapshot (kept, not replaced)."""
    out, n = out_root / date, 1
    while out.exists():
        n += 1
        out = out_root / f"{date}-{n}"
    return out


def snapshot(run: str | Path, out_root: str | Path, preset: str) -> Path:
    """Copy a finished run's kept files into `out_root/<date>/` with a manifest, listed but not published; returns
    its directory."""
    run = Path(run)
    bundle = _bundle_manifest(run)
    wall_s = _whole_run(run)
    sources = kept_files(run)
    for source in sources.values():
        if bundle["files"].get(source) != sha256(run / source):
            raise InvalidReference(f"{run / source}: not the file the run's bundle holds (rerun the bundle rule)")
    date = datetime.date.fromtimestamp((run / "reports/report.md").stat().st_mtime).isoformat()
    out = _free(Path(out_root), date)
    manifest = {"date": out.name, "preset": preset, "status": UNREVIEWED, "wall_seconds": round(wall_s),
                "yardstick_ms": _yardstick_ms(run, sources), "git": bundle.get("git"),
                "files": {snap: {"sha256": bundle["files"][src], "bundle_path": src} for snap, src in sources.items()}}

    def write(tmp: str) -> None:
        for snap, source in sources.items():
            target = Path(tmp) / snap
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(run / source, target)
        (Path(tmp) / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")

    write_dir_atomically(out, write)
    check(out)
    write_index(Path(out_root))
    return out


def check(snapshot: str | Path) -> dict[str, Any]:
    """The snapshot's manifest, after checking that its files are exactly the manifest's, unchanged."""
    snapshot = Path(snapshot)
    manifest = json.loads((snapshot / MANIFEST).read_text())
    present = {p.relative_to(snapshot).as_posix() for p in snapshot.rglob("*") if p.is_file()} - {MANIFEST}
    rendered = manifest.get("rejudged", {})  # rendered.py: written again, said so
    rejudged = rendered.get("files", {})
    listed = (set(manifest["files"]) | set(rejudged)) - set(rendered.get("removed", []))

    def kept(name: str) -> bool:
        return sha256(snapshot / name) in (manifest["files"].get(name, {}).get("sha256"), rejudged.get(name))

    changed = sorted(f for f in present & listed if not kept(f))
    for problem, names in (("missing", sorted(listed - present)), ("not in the manifest", sorted(present - listed)),
                           ("changed (sha256)", changed)):
        if names:
            raise InvalidReference(f"{snapshot}: {problem}: {', '.join(names[:5])}")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="jaxpitfalls reference snapshot", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run", help="the run's directory (snakemake --directory)")
    parser.add_argument("out_root", help="where dated snapshots go (docs/results/reference)")
    parser.add_argument("--preset", required=True, help="the preset the run used, as the index shows it")
    args = parser.parse_args(argv)
    print(snapshot(args.run, args.out_root, args.preset))
    return 0
