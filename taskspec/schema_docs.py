"""What each key of a task spec means, and an example value: the prose half of the spec's JSON Schema
(taskspec/schema.py builds the structure from the model). Keyed by the key's place: `intercept[].url` is the `url`
of an intercept rule. tests/docs/test_schema.py fails when a key of the format has no entry here."""

from __future__ import annotations

from typing import Any

_MATCHER = {
    "url": "URL glob matched against the whole URL: `*` within one path segment, `**` across segments; without `?` "
           "the query string is ignored; `{sites.NAME}` stands for a local site's base URL. Exactly one of `url` "
           "and `url_regex`.",
    "url_regex": "Python regex matched against the whole URL (re.fullmatch semantics, run on RE2: no lookaround or "
                 "backreferences). Exactly one of `url` and `url_regex`.",
    "method": "HTTP method or list of methods (any case); left out = any method. A WebSocket rule (ws://, wss://) "
              "takes none.",
    "fields": "Dotted payload field paths that must all be present for the rule to match (`passengers.0.email`; "
              "form keys `a[b][0]` = `a.b.0`; GraphQL `variables` looked up too).",
    "nonempty": "Dotted payload field paths whose values must all be present and not empty (empty: \"\", null, [] "
                "or {}). Tells a reply from a take that posts the same form with the text left empty, where no "
                "`equals` value fits.",
    "equals": "Payload fields that must equal these values (loose: `5` equals \"5\", forms carry strings).",
    "query": "Query parameters that must equal these values (a list: any of them).",
}

DOCS: dict[str, str] = {
    "$": "A clawrec task spec (YAML, version 1): what the agent is asked to do, where it starts, and which request "
         "is the task's final submission (caught and blocked by the interceptor).",
    "version": "Format version; always 1.",
    "id": "Unique id of the task; the file must be named `<id>.yaml`.",
    "category": "The task's category (ClawBench's paper groups), used by `clawrec bench`'s tables.",
    "instruction": "What the agent is asked to do, in plain words.",
    "start_url": "The page the run opens before handing the browser to the agent: http(s) URL, `about:blank`, or "
                 "`{sites.NAME}` (a local site's base URL, filled in at run time).",
    "user": "The user's details the agent may use (free-form). A value written `{env: NAME}` is read from the "
            "environment at run time and never written to a run file.",
    "files": "User documents handed to the agent, paths relative to the spec's folder (and inside it, unless "
             "`--allow-outside-files`).",
    "limits": "Time and step limits of a run.",
    "limits.time_s": "Seconds before the run is stopped (`timeout`).",
    "limits.steps": "Agent steps before the run is stopped.",
    "intercept": "The terminal submission rules: a request matching any of them is caught and blocked (or answered "
                 "with `respond`). Empty = nothing is blocked (a person's `clawrec record` then holds each write).",
    **{f"intercept[].{k}": v for k, v in _MATCHER.items()},
    "intercept[].respond": "What a caught request gets: `block` (the default: the request fails) or a fake answer "
                           "`{status, json | body, headers}`. A WebSocket rule can only block.",
    "intercept[].respond.status": "HTTP status of the fake answer (100-599).",
    "intercept[].respond.json": "JSON body of the fake answer (not with `body`).",
    "intercept[].respond.body": "Text body of the fake answer (not with `json`).",
    "intercept[].respond.headers": "Response headers of the fake answer.",
    "intercept[].salesforce": "Rule helper for Lightning: expands to the save rules of every shape (Aura, UI API) "
                              "of the named object(s) only.",
    "intercept[].salesforce.save": "sObject API name(s) whose save is the terminal request (`Lead`, `Custom__c`).",
    "writes": "Writes that carry the task's values to the site BEFORE the final request (an address form, a basket "
              "update). Never caught: the payload judge reads the last matching request that reached the site "
              "before the terminal interception, and judges its `expect` like the final request's.",
    **{f"writes[].{k}": v for k, v in _MATCHER.items()},
    "writes[].expect": "The values the site must hold after this write (dotted field paths; not empty).",
    "writes[].name": "A short label for verdicts and reports (default: the method and the URL's path).",
    "verify": "Conditions the LLM judge checks, in plain words.",
    "expect": "Payload values the payload judge compares with the caught request (dotted field paths).",
    "volatile": "Payload fields that differ between correct runs (tokens, nonces): never compared.",
    "exact": "Payload fields compared verbatim (no case, whitespace, date or phone normalization).",
    "reference": "The human reference run directory, relative to the spec's folder (judges compare with it).",
    "environment": "Where the task runs: `{kind: live}` (the default), `{kind: salesforce-scratch, …}` or "
                   "`{kind: app, app: NAME, …}` (a real application on loopback).",
    "environment.kind": "The environment kind.",
    "environment.pool": "salesforce-scratch: the scratch-org pool to lease from.",
    "environment.path": "salesforce-scratch: the org path the agent starts on (`/lightning/o/Lead/new`).",
    "environment.api_version": "salesforce-scratch: REST API version (`\"62.0\"`).",
    "environment.definition": "salesforce-scratch: a scratch-org definition file (relative path); the org is "
                              "created when the pool has none free.",
    "environment.dev_hub": "salesforce-scratch: the Dev Hub that creates orgs (with `definition`).",
    "environment.days": "salesforce-scratch: lifetime of a created org, 1-30 days (with `definition`).",
    "environment.wait_min": "salesforce-scratch: minutes to wait for a created org, at least 2 (with `definition`).",
    "environment.seed": "salesforce-scratch: records seeded before the run (`sf data import tree` records with "
                        "`attributes: {type, referenceId}`, or a plan file).",
    "environment.track": "salesforce-scratch: sObjects whose record-level changes are recorded.",
    "environment.checks": "salesforce-scratch: state checks run before the reset, read by the state judge: "
                          "`{soql, count?, fields?, name?}`.",
    "environment.checks[].name": "A label for the check in verdicts.",
    "environment.checks[].soql": "The SOQL query (`SELECT …`); `'@ref'` names a seeded record.",
    "environment.checks[].count": "The number of rows the query must return.",
    "environment.checks[].fields": "Field values the returned row must hold (`\"@ref\"`: a seeded record's id).",
    "app:environment.app": "app: the application of the corpus (`apps/NAME/`), e.g. `oscar`.",
    "app:environment.checks": "app: end-state checks run before the reset, read by the state judge: exactly one "
                              "of `sql`, `mail`, `files`, with `count` and/or `fields`.",
    "app:environment.checks[].name": "A label for the check in verdicts.",
    "app:environment.checks[].sql": "A read-only query on the application's database (`SELECT …` or `WITH …`).",
    "app:environment.checks[].mail": "The application's outgoing mail matching `{to, subject, body}`.",
    "app:environment.checks[].files": "A glob over the application's uploads.",
    "app:environment.checks[].count": "How many rows, mails or files there must be.",
    "app:environment.checks[].fields": "Expected values (strings, numbers, booleans or null).",
    "judge_context": "Extra text for the LLM judge (e.g. a rubric), name -> text.",
    "clawbench": "Provenance of a task imported from ClawBench (kept as imported).",
    "secrets": "Dotted `user` paths whose values never reach a run file in clear.",
    "answer": "Answer mode: the agent submits a free-text answer on a page clawrec serves; the `rubric` judge "
              "scores it.",
    "answer.rubric": "How the answer is scored.",
    "answer.reference": "A reference answer for the judge.",
    "answer.url": "The submit page the instruction names; clawrec serves its own page in its place.",
    "terminal": "`block`: the terminal request is caught and blocked; `land`: it is recorded and reaches the site "
                "(a state judge decides).",
}

EXAMPLES: dict[str, Any] = {
    "version": 1,
    "id": "travel-flight-oneway",
    "category": "travel",
    "instruction": "Book a one-way economy flight from JFK to LAX on December 31, 2026.",
    "start_url": "{sites.travel}",
    "user": {"first_name": "Alex", "email": "alex@example.com", "password": {"env": "SHOP_PASSWORD"}},
    "files": ["files/resume.pdf"],
    "limits": {"time_s": 900, "steps": 60},
    "intercept": [{"url": "{sites.travel}api/bookings", "method": "POST", "fields": ["passengers.0.email"],
                   "equals": {"cabin": "economy"}}],
    "intercept[].url": "https://shop.example/api/orders/*",
    "intercept[].url_regex": r"https://shop\.example/api/orders/\d+",
    "intercept[].method": ["POST", "PUT"],
    "intercept[].fields": ["origin", "passengers.0.email"],
    "intercept[].nonempty": ["comment"],
    "intercept[].equals": {"trip_type": "one_way"},
    "intercept[].query": {"commit": "1"},
    "intercept[].respond": {"status": 200, "json": {"ok": True}},
    "intercept[].salesforce": {"save": "Lead"},
    "writes": [{"url": "{sites.shop}api/basket", "method": "PATCH", "expect": {"items.0.qty": 2}, "name": "basket"}],
    "writes[].expect": {"street": "12 Main St"},
    "writes[].name": "address",
    "verify": ["The trip is one-way", "The cabin class is economy"],
    "expect": {"origin": "JFK", "passengers.0.last_name": "Doe"},
    "volatile": ["csrf_token"],
    "exact": ["promo_code"],
    "reference": "../../runs/reference/travel-flight-oneway",
    "environment": {"kind": "live"},
    "judge_context": {"rubric": "PASS when the review names the beer and gives 4 stars."},
    "secrets": ["password", "card.number"],
    "answer": {"rubric": "Names the CVE id and the fixed version.", "url": "http://127.0.0.1:7878/submit"},
    "terminal": "block",
}
