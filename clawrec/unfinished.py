"""Runs whose clawrec process died (kill -9, a power cut): finalized by the next command that reads them.

Why in the commands and not in the reader: finalizing joins the video segments (ffmpeg, recorder/) and rewrites the
manifest, which the pure reader (rundir/) and the judges (evaluator/) must not do. A run is unfinished when its
manifest still says `running`; if its lock's holder is alive (rundir/lock.py) it is still being recorded and is
left alone, else it is finalized once: status `interrupted`, video joined, agent inbox copied, torn JSONL tails
cut, manifest counts and hashes. Judges then refuse it (exit 1, one line) unless `--allow-incomplete`.
"""

from __future__ import annotations

from pathlib import Path

import click

from rundir import lock, records

UNFINISHED = ("running", "interrupted")
KILLED = "clawrec was killed before it finalized the run; finalized by `clawrec {command}`"


def manifest_status(run_dir: Path) -> str | None:
    from rundir.manifest import read

    status = read(run_dir).get("status")
    return status if isinstance(status, str) else None


def finalize_if_dead(run_dir: Path, command: str, quiet: bool = False) -> str | None:
    """Finalize `run_dir` if its process died; returns its status afterwards (None: not a recorded run). Prints
    one line when it finalizes (unless `quiet`: the caller says it). A run still being recorded (live lock) is left
    as it is (`running`)."""
    run_dir = Path(run_dir)
    if not (run_dir / records.MANIFEST).is_file():
        return None
    status = manifest_status(run_dir)
    if status != "running" or lock.state(run_dir) == "live":
        return status
    from recorder.manifest import recover

    try:
        data = recover(run_dir, status="interrupted", reason=KILLED.format(command=command))
    except OSError as exc:  # a read-only or full folder: judged as it is, still unfinished
        click.echo(f"clawrec: {run_dir}: unfinished run could not be finalized ({exc.strerror or exc})", err=True)
        return status
    (run_dir / lock.LOCK).unlink(missing_ok=True)  # stale: its holder is dead
    if not quiet:
        notes = data.get("recovered", {}).get("notes") or []
        click.echo(f"clawrec: note: {run_dir}: its clawrec process was killed; finalized it (status interrupted"
                   f"{''.join('; ' + n for n in notes)})", err=True)
    return str(data.get("status"))


def refusal(run_dir: Path, status: str | None) -> str | None:
    """Why a judge must not judge this run without --allow-incomplete (None: it may)."""
    if status == "running":
        return f"{run_dir}: the run is still being recorded (status running); judge it when it has ended"
    if status == "interrupted":
        return (f"{run_dir}: the run did not finish (status interrupted: its clawrec process was killed; "
                "finalized); pass --allow-incomplete to judge what it recorded")
    return None
