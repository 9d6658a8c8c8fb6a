"""The task/oracle model of one generated site: its fields (widgets, steps, values), its terminal channel and the
ground truth compiled from them (oracle payload, intercept rule, subgoals, distractors). Pure data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

CHANNELS = ("form_post", "multipart", "fetch_json", "xhr", "graphql", "get_form", "beacon", "websocket",
            "service_worker", "payment_iframe", "popup", "aura_field", "rest_method", "session_steps")
DISTRACTORS = ("autosave_draft", "analytics_beacon", "validation_ping", "dry_run_preview", "csrf_refresh",
               "transient_500_retry", "graphql_search")


@dataclass
class SiteField:
    key: str               # payload key and the user's info key
    label: str
    kind: str              # families.FieldDef kinds
    widget: str            # input | select | listbox | typeahead | picker | date_text | textarea | checkbox | file
    step: int              # 0-based wizard step
    options: list[str] = field(default_factory=list)
    frame: str = ""        # "payment": inside the cross-origin payment iframe
    value: str = ""        # the user's value
    alt: str = ""          # the alternate user's value (a second, different valid run)


@dataclass
class Site:
    id: str
    family: str
    channel: str
    title: str
    noun: str
    submit: str
    instruction: str
    axes: dict[str, Any]
    fields: list[SiteField]
    record_id: str = ""    # rest_method: the record the PUT/PATCH/DELETE names

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def steps(self) -> int:
        return 1 + max(f.step for f in self.fields)

    def user(self, alt: bool = False) -> dict[str, str]:
        return {f.key: (f.alt if alt else f.value) for f in self.fields}
