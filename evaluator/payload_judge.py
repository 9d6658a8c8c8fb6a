"""The deterministic payload judge: no model, same input → same verdict.

It takes the agent's first caught terminal request (the one that would have had the side effect on the live site)
and checks, field by field with normalization: the endpoint (same rule, method and URL path as the reference), the
rule's `fields` against the reference payload (minus volatile ones, minus free text unless `expect` or `exact` names
it), every `expect` value, and the length of a list `expect` pins element by element. The spec's `exact` fields
are compared verbatim (case and whitespace count) and always compared; other text folds case and whitespace (a
message's \r\n or an extra blank line is the same text). Each condition points at the interceptions.jsonl line it
was read from.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urlsplit

from taskspec.model import Rule, Spec
from taskspec.payload import Body
from rundir import records as R
from taskspec import terminal, volatile
from taskspec.fieldpath import MISSING, decoded, leaf_paths, lookup
from taskspec.salesforce_save import org_specific, record_value, saved_record
from evaluator.normalize import same
from evaluator.same_site import canonical_url, same_site
from rundir.reader import HttpRecord, Interception, RunDir
from evaluator.verdict import Condition, Evidence, Verdict

FREE_TEXT_WORDS = 7  # a string with this many words or more is free text (compared only when `expect` names it)


def catch_value(catch: Interception, path: str) -> Any:
    """A field of a caught request: from the decoded body, else from the query string (GET rules)."""
    v = lookup(catch.body, path)
    if v is MISSING and isinstance(catch.query, dict):
        v = lookup(catch.query, path)
    if v is MISSING:  # a Salesforce record field (`FirstName`) of whichever save shape was caught
        v = record_value(catch.body, path)
    return v


def _is_free_text(v: Any) -> bool:
    return isinstance(v, str) and len(v.split()) >= FREE_TEXT_WORDS


def _path_shape(url: str) -> tuple[str, str, list[str]]:
    """origin, path, and the path's segments with generated-id segments wildcarded (…/carts/<id>/checkout)."""
    parts = urlsplit(url)
    if url.startswith("{sites."):
        origin, _, path = url.partition("}")
        origin, path = origin + "}", urlsplit(path).path
    else:
        origin, path = f"{parts.scheme}://{parts.netloc}", parts.path
    segs = [("*" if volatile.value_reason(s) or re.fullmatch(r"\d{6,}", s) else s) for s in path.split("/")]
    return origin, path, segs


def _show(v: Any) -> str:
    s = json.dumps(v, ensure_ascii=False, default=str) if v is not MISSING else "(missing)"
    return s if len(s) <= 80 else s[:77] + "..."


def sites_of(run: RunDir | None) -> dict[str, str]:
    sites = run.manifest.get("sites") if run is not None else None
    return {str(k): str(v) for k, v in sites.items()} if isinstance(sites, dict) else {}


def find_rule(spec: Spec | None, catch: Interception, run: RunDir | None = None,
              filled_for: RunDir | None = None) -> Rule | None:
    """The spec's rule that catches `catch` (a request recorded in `run`), decided by taskspec.match on the recorded
    request (taskspec/terminal.py), never by the rule name the recorder wrote: a person's hold-mode block has none.
    `filled_for`: the run the spec's `{sites.NAME}` were filled for, when it is not `run`. Only a body the
    interceptor could not read (it held such a request back by its first rule) falls back to the recorded rule; a
    request the rule does not catch (a field missing) is tied to the rule whose URL and method it was sent to."""
    if spec is None:
        return None
    rule = terminal.rule_of(spec.intercept, catch, sites_of(run),
                            sites_of(filled_for) if filled_for is not None else None, endpoint=True)
    if rule is None and (catch.undecidable or catch.decode) and catch.rule_index is not None:
        rule = next((r for r in spec.intercept if r.index == catch.rule_index), None)
    return rule


class PayloadJudge:
    """One judgement: agent run vs (optional) reference run vs (optional) spec. Call `.judge()` once."""

    def __init__(self, run: RunDir, spec: Spec | None = None, reference: RunDir | None = None) -> None:
        self.run, self.spec, self.ref = run, spec, reference
        self.conditions: list[Condition] = []
        self.skipped: list[dict[str, str]] = []
        self.notes: list[str] = []
        self.diffs: list[tuple[str, Any, Any]] = []  # (field, agent value, wanted value) of failed comparisons
        self.writes: list[dict[str, Any]] = []  # verdict.json `writes` (specs with `writes:`)
        self.write_divergence: dict[str, Any] | None = None

    def _ev(self, who: str, catch: Interception | None, field: str | None = None) -> Evidence:
        return Evidence(run=who, file=R.INTERCEPTIONS, line=catch.line if catch else None, field=field)

    def judge(self) -> Verdict:
        run, ref = self.run, self.ref
        catches = list(run.interceptions)
        ref_catch, ref_rule = None, None
        if ref is not None:
            ref_catches = list(ref.interceptions)
            if not ref_catches:
                self.notes.append(f"reference {ref.path} has no caught payload: judged against expect only")
                ref = self.ref = None
            else:
                ref_catch, ref_rule = terminal.terminal(ref_catches)[0], None
                if self.spec is not None:
                    ref_catch, ref_rule = terminal.terminal(ref_catches, self.spec.intercept, sites_of(ref),
                                                            sites_of(run), endpoint=True)
        elif self.spec is None or not self.spec.expect:
            self.notes.append("no reference run and no expect: only the endpoint and required fields are checked")
        else:
            self.notes.append("no reference run: judged against the spec's expect only")
        if not catches:
            reason = "terminal request never sent"
            why = ", ".join(filter(None, [f"status {run.status}" if run.status else None,
                                          f"stop reason: {run.stop_reason}" if run.stop_reason else None]))
            ev = [Evidence("agent", R.INTERCEPTIONS if run.interceptions.present else R.MANIFEST)]
            detail = reason + (f" ({why})" if why else "")
            for h in self._near_misses()[:1]:
                ev.append(Evidence("agent", R.HTTP, line=h.line))
                detail += (f"; {h.method} {h.url} was sent (http.jsonl line {h.line}) but did not satisfy the "
                           "rule's fields/equals, so it is not the task's terminal request")
            self.conditions.append(Condition("Terminal request sent", False, ev, detail))
            self._writes(None)
            return self._verdict(reason)
        catch = terminal.terminal_order(catches)[0]
        if len(catches) > 1:
            self.notes.append(f"{len(catches)} catches in the agent run; the first (line {catch.line}) is judged "
                              "(it is the one that would have reached the site)")
        rule = find_rule(self.spec, catch, run)
        if ref_catch is not None and rule is not None and ref_rule is not rule:  # the reference's request to it
            same = [c for c in terminal.terminal_order(list(ref.interceptions))
                    if find_rule(self.spec, c, ref, run) is rule]
            ref_catch, ref_rule = (same[0], rule) if same else (ref_catch, ref_rule)
        if ref_catch is not None and self.spec is not None and ref_rule is None:
            self.notes.append(f"the reference's terminal request ({R.INTERCEPTIONS} line {ref_catch.line}) matches "
                              "none of the spec's rules: check the spec with `clawrec check-spec`")
        self._endpoint(catch, ref_catch, rule, ref_rule)
        self._fields(catch, ref_catch, rule)
        self._expect(catch)
        self._lengths(catch, ref_catch)
        self._writes(catch)
        failed = [c for c in self.conditions if not c.met]
        return self._verdict("; ".join(f"{c.condition}: {c.detail}" for c in failed) if failed else
                             f"payload matches ({len(self.conditions)} conditions)")

    def _near_misses(self) -> list[HttpRecord]:
        """Requests a rule's URL and method match that it did not catch, but whose payload could be its submission
        (taskspec.terminal.could_be_terminal: a page's own GraphQL read, say, cannot): sent with a wrong value."""
        if self.spec is None:
            return []
        rules = [terminal.filled(r, sites_of(self.run)) for r in self.spec.intercept]
        out = []
        for h in self.run.http:
            body = h.body if isinstance(h.body, dict) else {}
            sent = Body(str(body.get("kind") or "empty"), body.get("value"))
            if h.type != "request" or h.intercepted or not h.url:
                continue
            try:
                if any(terminal.could_be_terminal(r, h.method, h.url, sent) for r in rules):
                    out.append(h)
            except (ValueError, re.error):  # a URL pattern that does not compile once filled: nothing to compare
                continue
        return out

    def _endpoint(self, catch: Interception, ref_catch: Interception | None, rule: Rule | None,
                  ref_rule: Rule | None = None) -> None:
        if ref_catch is None:
            ok = self.spec is None or rule is not None
            self.conditions.append(Condition(
                "Terminal request sent to a spec endpoint", ok, [self._ev("agent", catch)],
                f"{catch.method} {catch.url}" + (f" ({rule.name})" if rule else "") if ok else
                f"{catch.method} {catch.url} matches none of the spec's rules"))
            return
        ca, cr = canonical_url(catch.url, self.run), canonical_url(ref_catch.url, self.ref)
        if ca.startswith("{sites.") != cr.startswith("{sites."):  # only one run knows its sites: compare raw
            ca, cr = catch.url, ref_catch.url
        a, r = _path_shape(ca), _path_shape(cr)
        problems = []
        same_origin, note = same_site(a[0], r[0])
        if note:
            self.notes.append(note)
        if self.spec is not None and ref_rule is not None and rule is not ref_rule:
            problems.append(f"{rule.name if rule else 'no rule of the spec'} vs reference {ref_rule.name}")
        if catch.method.upper() != ref_catch.method.upper():
            problems.append(f"method {catch.method} vs reference {ref_catch.method}")
        if not same_origin or a[2] != r[2]:
            problems.append(f"URL {a[0]}{a[1]} vs reference {r[0]}{r[1]}")
        self.conditions.append(Condition(
            "Terminal request sent to the reference's endpoint", not problems,
            [self._ev("agent", catch), self._ev("reference", ref_catch)],
            "; ".join(problems) if problems else f"{catch.method} {a[0]}{a[1]}"))

    def _skip(self, path: str, reason: str) -> None:
        if not any(s["field"] == path for s in self.skipped):
            self.skipped.append({"field": path, "reason": reason})

    def _fields(self, catch: Interception, ref_catch: Interception | None, rule: Rule | None) -> None:
        expect = self.spec.expect if self.spec else {}
        declared = set(self.spec.volatile) if self.spec else set()
        exact_order = self.spec.exact if self.spec else ()
        exact = set(exact_order)
        if rule is not None and rule.fields and rule.each is None:  # `each` rules: paths within one action
            paths = list(rule.fields)
        elif ref_catch is not None:
            saved = saved_record(ref_catch.body)
            paths = list(saved[1]) if saved else leaf_paths(ref_catch.body) + [
                p for p in leaf_paths(ref_catch.query) if p not in leaf_paths(ref_catch.body)]
            self.notes.append("no rule fields in the spec: compared every field of the reference's saved record"
                              if saved else "no rule fields in the spec: compared every field of the reference payload")
        else:
            paths = []
        paths += [p for p in exact_order if p not in paths]
        if ref_catch is not None:
            paths = _into_json_strings(paths, ref_catch, declared)
        for path in paths:
            if path in expect:
                continue  # checked against expect (which is authoritative) below
            a = catch_value(catch, path)
            if a is MISSING:
                self.conditions.append(Condition(f"Field {path} present", False,
                                                 [self._ev("agent", catch, path)], "field missing from payload"))
                continue
            if path in declared:
                self._skip(path, "volatile in spec")
                continue
            if path not in exact and (reason := volatile.name_reason(path)):
                self._skip(path, reason)
                continue
            if ref_catch is None:
                self.conditions.append(Condition(f"Field {path} present", True, [self._ev("agent", catch, path)],
                                                 f"{_show(a)} (no reference to compare with)"))
                continue
            b = catch_value(ref_catch, path)
            if b is MISSING:
                self.notes.append(f"field {path} is not in the reference payload; not compared")
                continue
            if (_is_free_text(a) or _is_free_text(b)) and path not in exact:
                self._skip(path, "free text (compared only when expect or exact names it)")
                continue
            ok, how = same(a, b, exact=path in exact)
            if not ok and path not in exact and (reason := volatile.value_reason(a, path)
                                                 or volatile.value_reason(b, path) or org_specific(path, a, b)):
                self._skip(path, reason)
                continue
            if not ok:
                self.diffs.append((path, a, b))
            self.conditions.append(Condition(
                f"Field {path} matches the reference{' exactly' if path in exact else ''}", ok,
                [self._ev("agent", catch, path), self._ev("reference", ref_catch, path)],
                f"{_show(a)} ~ {_show(b)} ({how})" if ok else
                f"{_show(a)} vs reference {_show(b)}" + (f" ({how})" if path in exact else "")))

    def _expect(self, catch: Interception) -> None:
        exact = set(self.spec.exact) if self.spec else set()
        for path, want in (self.spec.expect if self.spec else {}).items():
            got = catch_value(catch, path)
            exactly = " exactly" if path in exact else ""
            if got is MISSING:
                self.conditions.append(Condition(f"Field {path} equals {_show(want)}{exactly}", False,
                                                 [self._ev("agent", catch, path)], "field missing from payload"))
                continue
            ok, how = same(got, want, exact=path in exact)
            if not ok:
                self.diffs.append((path, got, want))
            detail = f"{_show(got)} ({how})" if ok else f"got {_show(got)}" + (f" ({how})" if exactly else "")
            self.conditions.append(Condition(f"Field {path} equals {_show(want)}{exactly}", ok,
                                             [self._ev("agent", catch, path)], detail))

    def _lengths(self, catch: Interception, ref_catch: Interception | None) -> None:
        """A list `expect` pins element by element (every index of the reference's list: a poll vote's choices, a
        JSON list body) must have the reference's length: `expect: {'0': choice}` alone lets a vote for that choice
        AND another one pass."""
        if ref_catch is None or self.spec is None:
            return
        lists: dict[str, set[int]] = {}
        for path in self.spec.expect:
            parent, _, last = path.rpartition(".")
            if last.isdigit():
                lists.setdefault(parent, set()).add(int(last))
        for parent, indexes in lists.items():
            want = catch_value(ref_catch, parent)
            if not isinstance(want, list) or indexes != set(range(len(want))):
                continue
            got = catch_value(catch, parent)
            n = 0 if got is MISSING else len(got) if isinstance(got, list) else 1
            self.conditions.append(Condition(
                f"Field {parent or '(the payload list)'} has {len(want)} element(s) as in the reference",
                n == len(want), [self._ev("agent", catch, parent or None)],
                f"{n} element(s)" + ("" if n == len(want) else f": {_show(got)}")))

    def _writes(self, catch: Interception | None) -> None:
        """The spec's `writes:` as the site held them before the final request (evaluator/writes_judge.py); each
        judged field, the final request's too, says which request and step it came from."""
        if self.spec is None or not self.spec.writes:
            return
        from evaluator import writes_judge

        if catch is not None:
            source = writes_judge.final_source(self.run, catch)
            for c in self.conditions:
                if any(e.run == "agent" and e.file == R.INTERCEPTIONS for e in c.evidence):
                    c.source = {**source, "field": next((e.field for e in c.evidence if e.field), None)}
        conditions, helds, diffs = writes_judge.judge_writes(self.run, self.spec)
        self.conditions += conditions
        self.writes = writes_judge.writes_summary(helds, conditions)
        self.write_divergence = writes_judge.divergence(self.run, diffs)

    def _divergence(self) -> dict[str, Any] | None:
        """The first wrong field, and the agent action that typed the wrong value when one did (its seq); a wrong
        value of an earlier write when the final request has none."""
        if not self.diffs:
            return self.write_divergence
        path, got, want = self.diffs[0]
        typed = [a for a in self.run.actions if a.type in ("input", "change") and isinstance(a.value, (str, int))
                 and same(a.value, got)[0]]
        return {"step": typed[0].seq if typed else None, "agent": f"{path} = {_show(got)}",
                "reference": f"{path} = {_show(want)}"}

    def _verdict(self, justification: str) -> Verdict:
        passed = bool(self.conditions) and all(c.met for c in self.conditions)
        notes = [*self.run.problems, *self.notes]
        if self.ref is not None:
            notes += [f"reference: {p}" for p in self.ref.problems]
        return Verdict(
            verdict="PASS" if passed else "FAIL", judge="payload", conditions=self.conditions,
            justification=justification, divergence=self._divergence(), skipped_fields=self.skipped, notes=notes,
            writes=self.writes,
            run=str(self.run.path), reference=str(self.ref.path) if self.ref else None,
            task_id=self.run.task_id or (self.spec.id if self.spec else None),
            spec_sha256=self.run.spec_sha256 or (self.spec.sha256 if self.spec else None),
            usage={"model_calls": 0})


def judge_payload(run: RunDir, spec: Spec | None = None, reference: RunDir | None = None) -> Verdict:
    """Judge one run's caught payload; see the module docstring."""
    run.load_all()
    if reference is not None:
        reference.load_all()
    return PayloadJudge(run, spec, reference).judge()


def _into_json_strings(paths: list[str], ref_catch: Interception, declared: set[str]) -> list[str]:
    """A field holding JSON in a string (Wagtail's Draft.js `body`) with a volatile part declared inside it
    (`body.blocks.0.key`) is compared by its parts, so the volatile one is skipped and the others are still compared;
    compared whole, the string differed on every run by that part alone."""
    out: list[str] = []
    for path in paths:
        inner = decoded(catch_value(ref_catch, path)) if path not in declared else None
        if isinstance(inner, (dict, list)) and any(d.startswith(path + ".") for d in declared):
            out += [f"{path}.{sub}" for sub in leaf_paths(inner) if f"{path}.{sub}" not in paths]
        else:
            out.append(path)
    return out

