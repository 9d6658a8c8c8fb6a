"""`clawrec sop RUN [--out SOP.md] [--json] [--llm]`: a standard operating procedure from a run (evaluator/sop.py)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from clawrec.errors import ClawrecError, UsageError, check_creatable
from clawrec.unfinished import finalize_if_dead
from evaluator.errors import EvaluatorError, JudgeError, RunDirError

WRITABLE = (".md", ".markdown", ".txt", ".json")


@click.command("sop")
@click.argument("run_dir", metavar="RUN", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the SOP here (.md, .txt or .json) instead of printing it.")
@click.option("--json", "as_json", is_flag=True,
              help="The steps as JSON, each with its element's signature (role, accessible name, label, stable "
                   "attributes: the critical-element configuration), its value and placeholders, and `terminal`.")
@click.option("--llm", is_flag=True,
              help="Rewrite the deterministic draft with the Anthropic Messages API (ANTHROPIC_API_KEY, "
                   "ANTHROPIC_BASE_URL, CLAWREC_SOP_MODEL): intent inferred, every necessary step and placeholder "
                   "kept, no site-specific ids; cached by input in $CLAWREC_SOP_CACHE (~/.cache/clawrec/sop).")
def sop(run_dir: Path, out: Path | None, as_json: bool, llm: bool) -> int:
    """An SOP from RUN (usually a person's reference run): numbered steps from the run's aligned steps (open the
    site, click the element named by role and accessible name, type a value into a field, choose, upload, submit),
    the task's values as placeholders ({user.first_name}, {files.resume}, {quoted.1}; {sites.NAME} for local
    sites), incidental actions dropped (scrolls, focus, repeated or retried clicks, clicks on plain text), and the
    step that sent the terminal request marked. Deterministic without --llm. `clawrec run/bench --sop` hands it
    to an agent."""
    from evaluator.sop import write_sop
    from rundir.reader import RunDir

    if out is not None:
        check_creatable(out, f"--out {out}")
        if out.suffix.lower() not in WRITABLE:
            raise UsageError(f"--out {out}: give a .md, .txt or .json file (refusing to write {out.suffix or 'it'})")
        if out.is_dir():
            raise UsageError(f"--out {out}: is a folder")
    try:
        finalize_if_dead(run_dir, "sop")
        run = RunDir(run_dir)
        draft = write_sop(run)
        if not draft.steps:
            raise UsageError(f"{run.path}: no browser step recorded (actions.jsonl): nothing to write an SOP from")
        if llm:
            from evaluator.sop_llm import rewrite

            draft = rewrite(draft)
    except JudgeError as exc:
        raise ClawrecError(str(exc)) from None
    except (EvaluatorError, RunDirError) as exc:
        raise UsageError(str(exc)) from None
    text = json.dumps(draft.to_dict(), indent=2, ensure_ascii=False) + "\n" if as_json else draft.markdown()
    if out is None:
        click.echo(text, nl=False)
        for note in draft.notes:
            click.echo(f"clawrec: note: {note}", err=True)
        return 0
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write ({exc.strerror or exc})") from None
    click.echo(str(out))
    return 0
