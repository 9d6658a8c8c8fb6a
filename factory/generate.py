"""`clawrec factory generate`: N sites from a seed, each with its files, spec, solver plan and ground truth.

Why seeded per site (`random.Random("clawrec-factory:SEED:INDEX")`): the same seed and generator version give a
byte-identical OUT (string seeds hash the same on every platform), and site i does not depend on the count."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

from factory import GENERATOR_VERSION
from factory.channels import expect, oracle, rule, session_writes, site_name, terminal
from factory.families import FAMILIES, FIRST, LAST, WORDS, FieldDef
from factory.model import CHANNELS, Site, SiteField
from factory.pages import index_html, pay_html, popup_html
from factory.truth import distractors, server_config, solver_plan, subgoals
from taskspec.dump import schema_modeline

ASSETS = Path(__file__).resolve().parent / "assets"
CATEGORY = {"checkout": "daily", "booking": "travel", "account": "daily", "support": "daily", "crm": "work",
            "social": "social", "job": "work", "wizard": "work"}
THEMES, LAYOUTS = ("light", "dark", "contrast"), ("stacked", "grid", "card")
PAYMENT = (FieldDef("cardholder", "Name on card", "text"), FieldDef("billing_zip", "Billing ZIP", "text"))
ATTACHMENT = FieldDef("attachment", "Attachment", "file")


class GenerateError(ValueError):
    """Bad generator input (unknown family or channel, count < 1): one line for the user."""


def _value(rng: random.Random, f: FieldDef) -> str:
    if f.kind in ("choice", "typeahead") or (f.kind == "text" and f.pool):
        return rng.choice(f.pool)
    if f.kind == "email":
        return f"{rng.choice(FIRST).lower()}.{rng.choice(LAST).lower()}{rng.randint(1, 99)}@example.com"
    if f.kind == "tel":
        return f"+1 555 01{rng.randint(0, 99):02d}"
    if f.kind == "number":
        return str(rng.randint(2, 40))
    if f.kind == "textarea":
        return " ".join(rng.choice(WORDS) for _ in range(5)).capitalize() + "."
    if f.kind == "date":
        return f"2026-12-{rng.randint(3, 27):02d}"
    if f.kind == "checkbox":
        return "yes" if f.key == "terms" else rng.choice(("yes", "no"))
    if f.kind == "file":
        return "resume.txt" if f.key == "resume" else "notes.txt"
    if f.key == "billing_zip":
        return f"{rng.randint(10000, 99999)}"
    return f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)}"


def _alt(rng: random.Random, f: FieldDef, value: str) -> str:
    if f.kind == "file" or f.key == "terms":
        return value
    if f.kind == "checkbox":
        return "no" if value == "yes" else "yes"
    for _ in range(50):
        other = _value(rng, f)
        if other != value:
            return other
    return value + "x"


def _widget(rng: random.Random, f: FieldDef) -> str:
    if f.kind == "choice":
        return rng.choice(("select", "listbox"))
    if f.kind == "typeahead":
        return rng.choice(("typeahead", "typeahead", "input"))
    if f.kind == "date":
        return rng.choice(("picker", "date_text"))
    return {"textarea": "textarea", "checkbox": "checkbox", "file": "file"}.get(f.kind, "input")


def make_site(seed: int, index: int, family: str, channel: str) -> Site:
    rng = random.Random(f"clawrec-factory:{seed}:{index}")
    fam = FAMILIES[family]
    defs = list(fam.fields)
    if channel == "multipart" and not any(d.kind == "file" for d in defs):
        defs.append(ATTACHMENT)
    n_steps = rng.randint(2, 4) if family == "wizard" else rng.choice((1, 1, 2))
    fields = []
    for i, d in enumerate(defs):
        value = _value(rng, d)
        fields.append(SiteField(key=d.key, label=d.label, kind=d.kind, widget=_widget(rng, d),
                                step=min(n_steps - 1, i * n_steps // len(defs)), options=list(d.pool)
                                if d.kind in ("choice", "typeahead") else [], value=value, alt=_alt(rng, d, value)))
    if channel == "payment_iframe":
        for d in PAYMENT:
            value = _value(rng, d)
            fields.append(SiteField(key=d.key, label=d.label, kind=d.kind, widget="input", step=n_steps - 1,
                                    frame="payment", value=value, alt=_alt(rng, d, value)))
    brand = rng.choice(("North", "Blue", "Bright", "Swift", "Maple", "Cedar")) + " " + fam.title
    axes = {"theme": rng.choice(THEMES), "layout": rng.choice(LAYOUTS), "steps": n_steps,
            "modal": rng.random() < 0.3, "cookie_banner": rng.random() < 0.5,
            "aria": "good" if rng.random() < 0.7 else "poor", "latency_ms": rng.choice((0, 0, 40, 120)),
            "failures": rng.choice(("none", "none", "validate_503")),
            "widgets": sorted({f.widget for f in fields}),
            "batched": channel == "graphql" and rng.random() < 0.5,
            "rest_method": rng.choice(("PUT", "PATCH", "DELETE")) if channel == "rest_method" else ""}
    sid = f"s{index:03d}_{family}"
    instruction = (f"On {brand}, {fam.verb} for me. Use the details in my user info "
                   f"({', '.join(f.key for f in fields)}).")
    return Site(id=sid, family=family, channel=channel, title=brand, noun=fam.noun, submit=fam.submit,
                instruction=instruction, axes=axes, fields=fields,
                record_id=f"rec{rng.getrandbits(40):010x}" if channel == "rest_method" else "")


def plan(seed: int, count: int, families: list[str] | None, channels: list[str] | None) -> list[Site]:
    fams = families or list(FAMILIES)
    chans = channels or list(CHANNELS)
    for name in fams:
        if name not in FAMILIES:
            raise GenerateError(f"--families: unknown family {name!r} (known: {', '.join(FAMILIES)})")
    for name in chans:
        if name not in CHANNELS:
            raise GenerateError(f"--channels: unknown channel {name!r} (known: {', '.join(CHANNELS)})")
    if count < 1:
        raise GenerateError("--count: must be at least 1")
    return [make_site(seed, i, fams[(i + i // len(chans)) % len(fams)], chans[i % len(chans)]) for i in range(count)]


def _dump(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")


def spec_text(site: Site, files: list[str], path: Path | None = None) -> str:
    """The v1 spec (JSON values are YAML): placeholders for the site's base URLs, the user, the oracle as expect."""
    lines = [schema_modeline(path).rstrip("\n"),
             f"# generated by clawrec factory (generator {GENERATOR_VERSION}); channel {site.channel}",
             "version: 1", f"id: {site.id}", f"category: {CATEGORY[site.family]}",
             f"instruction: {json.dumps(site.instruction)}",
             f"start_url: \"{{sites.{site.id}}}\"", f"user: {json.dumps(site.user(), sort_keys=True)}"]
    if files:
        lines.append(f"files: {json.dumps(files)}")
    lines += ["limits: {time_s: 60, steps: 60}", "intercept:", f"  - {json.dumps(rule(site), sort_keys=True)}",
              f"expect: {json.dumps(expect(site), sort_keys=True)}", "volatile: [csrf_token]"]
    if writes := session_writes(site):  # the values the site holds before the final request
        lines += ["writes:"] + [f"  - {json.dumps(w, sort_keys=True)}" for w in writes]
    return "\n".join(lines) + "\n"


def write_site(out: Path, site: Site) -> dict[str, Any]:
    """Every file of one site; returns its index.json entry."""
    sdir = out / "sites" / site.id
    sdir.mkdir(parents=True)
    config = {"id": site.id, "channel": site.channel, "terminal": terminal(site).to_json(), "noun": site.noun,
              "fields": [{"key": f.key, "widget": f.widget, "step": f.step, "frame": f.frame} for f in site.fields],
              "steps": site.steps(), "pay": site_name(site, "pay"), "latency_ms": site.axes["latency_ms"]}
    (sdir / "index.html").write_text(index_html(site, config), encoding="utf-8")
    for asset in ("app.js", "style.css", "sw.js", "popup.js", "pay.js"):
        shutil.copyfile(ASSETS / asset, sdir / asset)
    if site.channel == "popup":
        (sdir / "popup.html").write_text(popup_html(site), encoding="utf-8")
    if site.channel == "payment_iframe":
        (sdir / "pay.html").write_text(pay_html(site, config), encoding="utf-8")
    _dump(sdir / "server.json", server_config(site))
    files = []
    for f in site.fields:
        if f.widget == "file":
            rel = f"files/{site.id}/{f.value}"
            (out / "specs" / rel).parent.mkdir(parents=True, exist_ok=True)
            (out / "specs" / rel).write_text(f"{f.label} of {site.user().get('full_name', site.id)}\n",
                                              encoding="utf-8")
            files.append(rel)
    (out / "specs").mkdir(exist_ok=True)
    spec_path = out / "specs" / f"{site.id}.yaml"
    spec_path.write_text(spec_text(site, files, spec_path), encoding="utf-8")
    _dump(out / "solvers" / f"{site.id}.json", solver_plan(site))
    return {"id": site.id, "family": site.family, "channel": site.channel, "axes": site.axes,
            "spec": f"specs/{site.id}.yaml", "solver": f"solvers/{site.id}.json",
            "sites": [site.id] + ([site_name(site, "pay")] if site.channel == "payment_iframe" else []),
            "terminal": terminal(site).to_json(), "oracle": oracle(site), "alt_user": site.user(alt=True),
            "alt_expect": expect(site, alt=True), "writes": session_writes(site),
            "subgoals": [s["name"] for s in subgoals(site)],
            "distractors": [d["kind"] for d in distractors(site)], "perturb": perturb_key(site)}


def perturb_key(site: Site) -> dict[str, str]:
    """The field the perturbed solver gets wrong: the first plain text-like field of the main page."""
    f = next(f for f in site.fields if f.widget in ("input", "textarea") and not f.frame)
    from factory.channels import path_of
    return {"key": f.key, "path": path_of(site, f.key), "value": f.alt}


def generate(out: Path, seed: int, count: int, families: list[str] | None = None,
             channels: list[str] | None = None) -> list[dict[str, Any]]:
    """Write OUT (must not exist or be empty) and return the index entries."""
    sites = plan(seed, count, families, channels)
    if out.exists() and any(out.iterdir()):
        raise GenerateError(f"{out}: already exists and is not empty")
    out.mkdir(parents=True, exist_ok=True)
    entries = [write_site(out, s) for s in sites]
    _dump(out / "index.json", {"generator": GENERATOR_VERSION, "seed": seed, "count": count, "sites": entries})
    return entries
