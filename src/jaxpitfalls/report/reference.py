"""A published reference: a dated snapshot of one whole run (report, PNG figures, run summary, environment, and
each study's tables: what the claims are judged on, so a later rule can be checked against published numbers),
small enough to commit (~0.3 MB of tables), so that a user reads real results before running anything.

The snapshot's files are copied unchanged from the run, and its `manifest.json` ties each to the run's
results bundle: its sha256, and the bundle path it came from, whose sha256 in the bundle's own manifest must
be the same. `check` verifies a snapshot against its manifest (no file missing, added or changed).

    python -m jaxpitfalls.report.reference snapshot RUN_DIR docs/reference --preset presets/seeds-cpu.yaml
    python -m jaxpitfalls.report.reference publish docs/reference/<date>    (the README then reads it)
    python -m jaxpitfalls.report.reference withhold docs/reference/<date> "why, in one line"
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

from ..plan import TABLES
from ..results import write_dir_atomically, write_text
from .bundle import MANIFEST as BUNDLE_MANIFEST
from .run_summary import run_summary, span_seconds

MANIFEST = "manifest.json"
INDEX = "README.md"
# A snapshot's status (its manifest's): the one published, each other with why not, in one line.
PUBLISHED = "published"
UNREVIEWED = "not published: not yet read against the write-ups (publish it, or say why not)"


class InvalidReference(ValueError):
    """A snapshot whose files do not match its manifest, or a run that cannot be published."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def kept_files(run: Path) -> dict[str, str]:
    """Snapshot path -> the run's path (as the bundle names it) for every file a reference keeps."""
    figures = sorted(p.relative_to(run / "reports").as_posix() for p in (run / "reports/figures").rglob("*.png"))
    environments = sorted((run / "results/tables").glob("*/environment.csv"))
    tables = sorted(p for p in (run / "results/tables").glob("*/*.csv") if p.name != "environment.csv")
    return ({"report.md": "reports/report.md", "scorecard.png": "reports/scorecard.png",
             "run_summary.csv": "results/tables/run_summary.csv"}
            | {f: f"reports/{f}" for f in figures}
            | {f"environment/{p.parent.name}.csv": p.relative_to(run).as_posix() for p in environments}
            | {f"tables/{p.parent.name}/{p.name}": p.relative_to(run).as_posix() for p in tables})


def table_paths(snapshot: Path, study: str) -> dict[str, str]:
    """A study's tables as a snapshot keeps them (report/reference.kept_files): tables/<study>/<table>.csv, its
    environment apart in environment/<study>.csv."""
    paths = {t: str(snapshot / "tables" / study / f"{t}.csv") for t in TABLES}
    return paths | {"environment": str(snapshot / "environment" / f"{study}.csv")}


def _bundle_manifest(run: Path) -> dict[str, Any]:
    with tarfile.open(run / "reports/bundle.tar.gz", "r:gz") as tar:
        return json.loads(tar.extractfile(BUNDLE_MANIFEST).read())


def _whole_run(run: Path) -> float:
    """The run's wall time; refuses a run whose jobs come from several invocations (a partial rerun's
    times do not add up to the preset's)."""
    span, older = span_seconds(run_summary(sorted((run / "results/benchmarks").rglob("*.tsv"))))
    if span is None or older:
        raise InvalidReference(f"{run}: {older} jobs come from earlier invocations: a reference is one whole "
                               "run (start it in an empty directory)")
    return span


def _yardstick_ms(run: Path, sources: dict[str, str]) -> float | None:
    """The median over the run's timing jobs of each one's yardstick median (the checks tables' `yardstick_ms`):
    the machine's speed in this run, beside its wall time in the index."""
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
    """Copy a finished run's report, figures, run summary, environments and tables into `out_root/<date>/` with
    a manifest, and list it in `out_root/README.md`, not published until `set_status` says so; returns the
    snapshot's directory."""
    run = Path(run)
    bundle = _bundle_manifest(run)
    wall_s = _whole_run(run)
    sources = kept_files(run)
    for source in sources.values():
        if bundle["files"].get(source) != _sha256(run / source):
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
    listed = set(manifest["files"])
    rejudged = manifest.get("rejudged", {}).get("files", {})  # rerender.py: its claims written again, said so

    def kept(name: str) -> bool:
        return _sha256(snapshot / name) in (manifest["files"][name]["sha256"], rejudged.get(name))

    changed = sorted(f for f in present & listed if not kept(f))
    for problem, names in (("missing", sorted(listed - present)), ("not in the manifest", sorted(present - listed)),
                           ("changed (sha256)", changed)):
        if names:
            raise InvalidReference(f"{snapshot}: {problem}: {', '.join(names[:5])}")
    return manifest


def _run_of_day(name: str) -> tuple[str, int]:
    """A snapshot's place in time: its date, then its run of that day (`_free`'s suffix: 2026-11-27-12 after
    -9, which a sort of the names puts first)."""
    date, _, n = name[:10], name[10:11], name[11:]
    return date, int(n) if n.isdigit() else 1




def _manifests(out_root: Path) -> list[Path]:
    """Every snapshot's manifest under `out_root`, newest first."""
    return sorted(out_root.glob(f"*/{MANIFEST}"), key=lambda p: _run_of_day(p.parent.name), reverse=True)


def published(out_root: str | Path) -> Path:
    """The one published snapshot under `out_root` (its manifest's status): the result a reader is pointed to."""
    found = [p.parent for p in _manifests(Path(out_root)) if json.loads(p.read_text()).get("status") == PUBLISHED]
    if len(found) != 1:
        raise InvalidReference(f"{out_root}: {len(found)} published snapshots, not one ({[p.name for p in found]})")
    return found[0]


def set_status(snapshot: str | Path, status: str) -> None:
    """A snapshot's status in its manifest: `published` (every other published one then says it was superseded)
    or `not published: <why, in one line>`; the index is written again."""
    snapshot = Path(snapshot)
    if status != PUBLISHED and not status.startswith("not published: "):
        raise ValueError(f"a status is {PUBLISHED!r} or 'not published: <why>', not {status!r}")
    for path in _manifests(snapshot.parent):
        m = json.loads(path.read_text())
        if path.parent == snapshot:
            m["status"] = status
        elif status == PUBLISHED and m.get("status") == PUBLISHED:
            m["status"] = f"not published: superseded by {snapshot.name}"
        else:
            continue
        path.write_text(json.dumps(m, indent=1) + "\n")
    write_index(snapshot.parent)


def write_index(out_root: Path) -> None:
    """out_root/README.md: every snapshot, newest first, with whether it is published (and why not), its preset,
    commit, wall time and yardstick."""
    rows = []
    for path in _manifests(out_root):
        m = json.loads(path.read_text())
        commit = (m.get("git") or {}).get("commit", "unknown")
        status = m.get("status", UNREVIEWED)
        rows.append({"snapshot": f"[{m['date']}]({m['date']}/report.md)",
                     "published": "**yes**" if status == PUBLISHED else f"no: {status.removeprefix('not published: ')}",
                     "preset": f"`{m['preset']}`",
                     "measured at commit": f"`{str(commit)[:10]}`", "wall time": f"{m['wall_seconds'] / 60:.0f} min",
                     "yardstick": f"{m['yardstick_ms']:.2f} ms" if m.get("yardstick_ms") else "not recorded"})
    write_text(out_root / INDEX, "\n".join([
        "# Reference results", "",
        "Dated snapshots of whole runs (`make reference`): the report, its figures, the run summary and the "
        "environment, each file checked against the run's results bundle (`manifest.json`; "
        "tests/test_reference.py; a snapshot whose claims were judged again by later rules says so, "
        "report/rerender.py). One is published: the result to trust, which the README summarises; each other "
        "says why not (`python -m jaxpitfalls.report.reference publish|withhold`). `yardstick`: a fixed Python and "
        "numpy workload timed every round "
        "(harness/yardstick.py), the median over the run's timing jobs of each one's median: the machine's speed. "
        "A run longer than another by about its yardstick's ratio was slowed by the machine; beyond that ratio, "
        "by something else (snapshots before it was kept: not recorded).", "",
        pd.DataFrame(rows).to_markdown(index=False), ""]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    taking = commands.add_parser("snapshot", help="a finished run's dated snapshot (not published yet)")
    taking.add_argument("run", help="the run's directory (snakemake --directory)")
    taking.add_argument("out_root", help="where dated snapshots go (docs/reference)")
    taking.add_argument("--preset", required=True, help="the preset the run used, as the index shows it")
    publishing = commands.add_parser("publish", help="make a snapshot the published one (the README's)")
    publishing.add_argument("snapshot")
    withhold = commands.add_parser("withhold", help="say in one line why a snapshot is not published")
    withhold.add_argument("snapshot")
    withhold.add_argument("reason", help="e.g. 'a VM 2-3.5x slower for Python (yardstick 0.6 ms against 0.26)'")
    args = parser.parse_args()
    if args.command == "snapshot":
        print(snapshot(args.run, args.out_root, args.preset))
    else:
        set_status(args.snapshot, PUBLISHED if args.command == "publish" else f"not published: {args.reason}")


if __name__ == "__main__":
    main()
