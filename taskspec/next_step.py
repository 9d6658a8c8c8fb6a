"""The one line that tells a person how to get from a recorded run to a spec check-spec accepts, when `clawrec
annotate` could not: which candidate to `--pick` when the person blocked different submissions, which field to
`--equals` when the rule also catches another request of the run. Pure data (decisions through taskspec.match)."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from taskspec.distinguish import Sent, look_alikes, telling_values
from taskspec.fieldpath import is_graphql, leaves
from taskspec.generalize import GRAPHQL_SKIP, graphql_element
from taskspec.model import Rule
from taskspec.volatile import reason as token_reason


def command(run: Path, out: Path, pick: int | None, equals: tuple[str, ...] = ()) -> str:
    words = ["clawrec", "annotate", str(run), "--out", str(out), "--force"]
    if pick is not None:
        words += ["--pick", str(pick)]
    if equals:
        words += ["--equals", ",".join(equals)]
    return shlex.join(words)


def pick_one(run: Path, out: Path, top: int, others: list[int], kinds: int) -> str:
    """`kinds` different submissions blocked by the person (candidates `top` and `others`): name the final one."""
    names = ", ".join(str(n) for n in sorted([top, *others]))
    return (f"the person blocked {kinds} different submissions (candidates {names}): say which one is the "
            f"task's final submission, e.g. the last one blocked: {command(run, out, top)}")


def _pairs(payload: Any) -> list[tuple[str, Any]]:
    body = graphql_element(payload) if isinstance(payload, list) else payload
    if is_graphql(body):
        return [(p, v) for p, v in leaves(body) if p.split(".", 1)[0] not in GRAPHQL_SKIP]
    return leaves(body) if isinstance(body, (dict, list)) else []


def fix_rule(run: Path, out: Path, pick: int | None, equals: tuple[str, ...], rule: Rule, target: Sent,
             others: list[Sent], target_at: str, terminal_at: str | None) -> str:
    """check-spec failed on the annotated run: the candidate to pick when the one written is not the run's terminal
    request; the `--equals` that tells the terminal request from the run's other requests the rule catches, when one
    does; else what to look at."""
    if terminal_at is not None and target_at != terminal_at:
        return (f"candidate {pick or 1} ({target_at}) is not the run's terminal request ({terminal_at}), which "
                f"check-spec takes as the reference's: {command(run, out, None, equals)} writes the spec for that one")
    left = look_alikes(rule, target, others)
    pairs = [(p, v) for p, v in _pairs(target.value) if not token_reason(p, v) and p not in equals]
    telling = telling_values(rule, target, left, pairs) if left else []
    if telling:
        return (f"the rule also catches {len(left)} other request(s) of the run; the value of {telling[0]} tells "
                f"them apart: {command(run, out, pick, (*equals, telling[0]))}")
    return (f"edit the rule in {out} (see the matches above), then run: "
            f"{shlex.join(['clawrec', 'check-spec', str(out)])}; or pick another candidate with --pick N")
