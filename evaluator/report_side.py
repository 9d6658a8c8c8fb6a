"""Side by side with the reference (`clawrec view RUN --reference REF`): the aligned steps of both runs, the same
alignment diagnose uses, with each side's screenshot after that step and the divergence that explains the failure
marked. Also the diagnosis banner (category, cause, self-report gap) that sits on top of the report."""

from __future__ import annotations

from typing import Any

from evaluator.report_html import esc, short
from evaluator.report_media import Media
from evaluator.trajectory import Trajectory


def banner(d: dict[str, Any] | None) -> str:
    """Category + cause on top (from a Diagnosis.to_dict() or diagnosis.json)."""
    if not isinstance(d, dict):
        return ""
    cause = d.get("cause") if isinstance(d.get("cause"), dict) else {}
    cat, label = d.get("category"), d.get("category_label") or d.get("category")
    step = cause.get("step")
    link = f" <a class=go href='#agent-step-{int(step)}'>go to step {int(step)}</a>" if isinstance(step, int) else ""
    gap = d.get("self_report_gap")
    gap_html = (f"<p class=gap><b>self-report gap</b>: the agent said <q>{short(gap.get('claimed'), 300)}</q> but no "
                "terminal request was sent</p>" if isinstance(gap, dict) else "")
    if cat is None and "cause" in d:
        return f"<section class='diag pass' id=diagnosis><h2>Diagnosis: passed</h2>{gap_html}</section>"
    if "cause" not in d:  # a diagnosis.json from before categories existed
        div = d.get("first_divergence") if isinstance(d.get("first_divergence"), dict) else {}
        return (f"<section class=diag id=diagnosis><h2>Diagnosis</h2><p>{short(div.get('summary', ''), 400)}</p>"
                "</section>")
    return (f"<section class=diag id=diagnosis><h2>Failure: <span class=cat data-category='{esc(cat)}'>{esc(label)}"
            f"</span></h2><p class=cause>{short(cause.get('summary'), 600)}{link}</p>{gap_html}</section>")


def aligned(d: dict[str, Any] | None, tr: Trajectory, ref: Trajectory | None, media: Media) -> str:
    """The aligned-steps table (both screenshots at each aligned step), the relevant divergence marked."""
    if not isinstance(d, dict) or not isinstance(d.get("aligned"), list):
        return ""
    first = d.get("first_divergence") if isinstance(d.get("first_divergence"), dict) else {}
    relevant_row = first.get("row") if first.get("relevant") else None

    def thumb(trj: Trajectory | None, n: Any, who: str) -> str:
        """The page after the step; a run that kept no screenshot there (a reference keeps few) shows the last one
        kept before it, labelled so, rather than nothing."""
        st = trj.step(n) if trj is not None and isinstance(n, int) else None
        if st is None:
            return ""
        i = trj.steps.index(st)
        for j in range(i, -1, -1):
            for shot in reversed(trj.steps[j].screenshots):
                key = media.key(trj.run.screenshot_file(shot))
                if key:
                    return (f"<img class=thumb data-m='{key}' alt='{who} step {n}'>" + (
                        "" if j == i else "<br><span class=muted>last screenshot before this step</span>"))
        return "<span class=muted>no screenshot</span>"

    rows = []
    for r in d["aligned"]:
        if not isinstance(r, dict):
            continue
        a, b = r.get("agent") or {}, r.get("reference") or {}
        an, bn = r.get("agent_step"), r.get("reference_step")
        mark = r.get("row") == relevant_row
        a_cell = (f"<a class=go href='#agent-step-{int(an)}'>step {int(an)}</a> " if isinstance(an, int) else "") + \
            short(a.get("text", ""), 200) + (f" <span class=muted>seq {esc(a.get('seq'))}</span>" if a else "")
        b_cell = (f"step {esc(bn)} " if bn is not None else "") + short(b.get("text", ""), 200)
        rows.append(f"<tr class='{esc(r.get('status'))}{' relevant' if mark else ''}' id='row-{esc(r.get('row'))}'>"
                    f"<td>{'▶' if mark else ''}</td><td class={esc(r.get('status'))}>"
                    f"{esc(r.get('status'))}</td><td>{a_cell}<br>{thumb(tr, an, 'agent')}</td>"
                    f"<td>{b_cell}<br>{thumb(ref, bn, 'reference')}</td></tr>")
    why = (f"<p><b>▶ the divergence that explains the failure</b>: {short(first.get('summary'), 400)}</p>"
           if relevant_row else "")
    # no row index column: steps are numbered one way everywhere (each run's own step, the action seq beside it)
    return (f"<section id=side><h2>Side by side with the reference <span class=muted>{short(d.get('reference'), 200)}"
            f"</span></h2>{why}<details open><summary>{len(rows)} aligned steps (the alignment `clawrec diagnose` "
            "uses)</summary><table class=side><tr><th></th><th>status</th><th>agent</th><th>reference</th></tr>"
            f"{''.join(rows)}</table></details></section>")
