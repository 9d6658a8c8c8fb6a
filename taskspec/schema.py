"""The JSON Schema (draft-07) of a task spec, generated from the spec model, for editors that validate and complete
YAML as it is typed (`# yaml-language-server: $schema=…`, see taskspec/dump.py) and for the docs' spec reference.

Why generated: the keys of each level come from the checker's key lists (taskspec/check.py TOP_KEYS, RULE_KEYS,
RESPOND_KEYS; check_writes, check_answer, check_salesforce), types and defaults from the dataclasses of
taskspec/model.py, allowed values from its constants, so a key added to the format appears here by itself (and
tests/docs/test_schema.py fails until it has a description). What only `clawrec validate` can check (files on disk,
the id against the file name, regex syntax, a rule matching the start page, cross-field rules) stays there; the
schema accepts those specs and the test lists each such case.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from pathlib import Path
from typing import Any

from taskspec import model
from taskspec.check import REQUIRED, RESPOND_KEYS, RULE_KEYS, TERMINAL, TOP_KEYS
from taskspec.check_answer import ANSWER_KEYS
from taskspec.check_app import APP_KEYS, MAIL_KEYS
from taskspec.check_app import CHECK_KEYS as APP_CHECK_KEYS
from taskspec.check_salesforce import CHECK_KEYS, SAVE_KEYS, SF_KEYS
from taskspec.check_writes import DEFAULT_METHODS, MATCHER_KEYS, WRITE_KEYS
from taskspec.schema_docs import DOCS, EXAMPLES

TEXT = {"type": "string", "pattern": r"\S"}  # the checker's `string`: not empty, not only spaces
SEGMENT = r"[^.\s](?:[^.]*[^.\s])?"
DOTTED = {"type": "string", "pattern": rf"^{SEGMENT}(?:\.{SEGMENT})*$"}  # check.py `_is_dotted`
PLACEHOLDER = r"\{sites\.[A-Za-z0-9_]+\}"  # taskspec/placeholders.py: a local site's base URL, filled at run time


def _case_free(word: str) -> str:
    """`GET` -> `[Gg][Ee][Tt]`: the checker upper-cases methods, and ECMA-262 patterns have no (?i)."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else re.escape(c) for c in word)


def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls, vars(model))


def _json_type(hint: Any) -> dict[str, Any]:
    """A model type hint as a JSON Schema type."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return _json_type(next(a for a in args if a is not type(None)))
    if origin is tuple:
        return {"type": "array", "items": _json_type(args[0])}
    if origin is dict:
        return {"type": "object"} | ({"additionalProperties": {"type": "string"}} if args[1] is str else {})
    simple = {str: TEXT, Path: TEXT, bool: {"type": "boolean"}, int: {"type": "integer"}, float: {"type": "number"}}
    return dict(simple.get(hint, {}))


def _default(cls: type, attr: str) -> Any:
    """The model's default of `cls.attr` as JSON, or dataclasses.MISSING (required, or not a plain value)."""
    f = next(f for f in dataclasses.fields(cls) if f.name == attr)
    value = f.default if f.default is not dataclasses.MISSING else (
        f.default_factory() if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING)
    if isinstance(value, tuple):
        value = list(value)
    if value is None or dataclasses.is_dataclass(value):
        return dataclasses.MISSING
    return value


def _field(where: str, cls: type | None = None, attr: str | None = None, **extra: Any) -> dict[str, Any]:
    """The schema of the key at `where` (a DOCS path): the model's type and default for `cls.attr` when the model
    has that field, then `extra` (the checker's constraints), its description and example."""
    out: dict[str, Any] = {}
    if cls is not None:
        name = attr or where.rsplit(".", 1)[-1].removesuffix("[]")
        out |= _json_type(_hints(cls)[name])
        default = _default(cls, name)
        if default is not dataclasses.MISSING:
            out["default"] = default
    out |= extra
    out["description"] = DOCS.get(where, "")
    if where in EXAMPLES:
        out["examples"] = [EXAMPLES[where]]
    return out


def _methods(where: str, default: tuple[str, ...] = ()) -> dict[str, Any]:
    one = {"type": "string", "pattern": "^(?:" + "|".join(_case_free(m) for m in model.HTTP_METHODS) + ")$"}
    extra = {"default": list(default)} if default else {}
    return _field(where, oneOf=[one, {"type": "array", "items": one, "minItems": 1}], **extra)


def _matcher(prefix: str, keys: tuple[str, ...]) -> dict[str, dict[str, Any]]:
    """The matcher keys of an intercept or write rule (taskspec/check.py `check_rule`)."""
    glob = rf"^(?!.*\*\*\*)(?:https?://|wss?://|\*|{PLACEHOLDER})\S*$"
    scalar = {"type": ["string", "number", "boolean"]}
    props = {
        "url": _field(f"{prefix}.url", model.Rule, type="string", pattern=glob),
        "url_regex": _field(f"{prefix}.url_regex", model.Rule),
        "method": _methods(f"{prefix}.method", DEFAULT_METHODS if prefix.startswith("writes") else ()),
        "fields": _field(f"{prefix}.fields", model.Rule, items=DOTTED),
        "nonempty": _field(f"{prefix}.nonempty", model.Rule, items=DOTTED),
        "equals": _field(f"{prefix}.equals", model.Rule, propertyNames=DOTTED),
        "query": _field(f"{prefix}.query", model.Rule, additionalProperties={
            "oneOf": [scalar, {"type": "array", "items": scalar, "minItems": 1}]}),
        "respond": _field(f"{prefix}.respond", oneOf=[{"const": "block"}, _respond()]),
    }
    return {k: props[k] for k in keys}


def _respond() -> dict[str, Any]:
    props = {
        "status": _field("intercept[].respond.status", model.Respond, minimum=100, maximum=599),
        "json": _field("intercept[].respond.json"),
        "body": _field("intercept[].respond.body", type="string"),
        "headers": _field("intercept[].respond.headers", model.Respond),
    }
    return {"type": "object", "properties": {k: props[k] for k in RESPOND_KEYS}, "additionalProperties": False,
            "not": {"required": ["json", "body"]}}


WEBSOCKET = "^(?:" + "|".join(re.escape(p) for p in model.WEBSOCKET_PREFIXES) + ")"


def _websocket_if(url_key: str) -> dict[str, Any]:
    return {"required": [url_key], "properties": {url_key: {"type": "string", "pattern": WEBSOCKET}}}


def _rule() -> dict[str, Any]:
    """An intercept rule; a WebSocket rule takes no method and can only block."""
    ws_then = {"not": {"required": ["method"]},
               "properties": {"respond": {"const": "block"}}}
    return {"type": "object", "properties": _matcher("intercept[]", RULE_KEYS), "additionalProperties": False,
            "oneOf": [{"required": ["url"]}, {"required": ["url_regex"]}],
            "allOf": [{"if": _websocket_if(k), "then": ws_then} for k in ("url", "url_regex")]}


def _salesforce_rule() -> dict[str, Any]:
    save = {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_]*$"}
    helper = {"type": "object", "additionalProperties": False, "required": list(SAVE_KEYS),
              "properties": {"save": _field("intercept[].salesforce.save",
                                            oneOf=[save, {"type": "array", "items": save, "minItems": 1}])}}
    return {"type": "object", "required": ["salesforce"], "additionalProperties": False,
            "properties": {"salesforce": _field("intercept[].salesforce", **helper),
                           "respond": _matcher("intercept[]", ("respond",))["respond"]}}


def _write() -> dict[str, Any]:
    props = _matcher("writes[]", MATCHER_KEYS) | {
        "expect": _field("writes[].expect", model.Write, minProperties=1, propertyNames=DOTTED),
        "name": _field("writes[].name", **TEXT),
    }
    http = {"not": {"pattern": WEBSOCKET}}
    props["url"] = props["url"] | {"allOf": [http]}
    props["url_regex"] = props["url_regex"] | {"allOf": [http]}
    return {"type": "object", "properties": {k: props[k] for k in WRITE_KEYS}, "additionalProperties": False,
            "required": ["expect"], "oneOf": [{"required": ["url"]}, {"required": ["url_regex"]}]}


def _object_of(cls: type, prefix: str, keys: tuple[str, ...], **extra: Any) -> dict[str, Any]:
    """A section whose keys are exactly the fields of a model dataclass (limits, answer)."""
    props = {k: _field(f"{prefix}.{k}", cls, **extra.get(k, {})) for k in keys}
    required = [f.name for f in dataclasses.fields(cls) if f.name in keys and f.default is dataclasses.MISSING
                and f.default_factory is dataclasses.MISSING]
    return {"type": "object", "properties": props, "additionalProperties": False} | (
        {"required": required} if required else {})


def _app_environment() -> dict[str, Any]:
    """The keys of `environment: {kind: app, …}` (taskspec/check_app.py); their meanings are under `app:` in DOCS."""
    scalar = {"type": ["string", "number", "boolean", "null"]}
    check = {k: _field(f"app:environment.checks[].{k}") for k in APP_CHECK_KEYS}
    check["sql"] |= {"type": "string", "pattern": r"^\s*(?:[Ss][Ee][Ll][Ee][Cc][Tt]|[Ww][Ii][Tt][Hh])\s"}
    check["mail"] |= {"type": ["object", "null"], "additionalProperties": False,
                      "properties": {k: {"type": "string"} for k in MAIL_KEYS}}
    check["files"] |= TEXT
    check["name"] |= TEXT
    check["count"] |= {"type": "integer", "minimum": 0}
    check["fields"] |= {"type": "object", "additionalProperties": scalar}
    one_of = [{"required": [k]} for k in ("sql", "mail", "files")]
    items = {"type": "object", "additionalProperties": False, "properties": check, "oneOf": one_of,
             "anyOf": [{"required": ["count"]}, {"required": ["fields"]}]}
    keys = {"app": _field("app:environment.app", type="string", pattern="^[a-z][a-z0-9_-]*$"),
            "checks": _field("app:environment.checks", type="array", items=items)}
    return {k: keys[k] for k in APP_KEYS}


def _environment() -> dict[str, Any]:
    """`kind` and, per kind the schema knows, its keys; another kind's keys are left to `clawrec validate`."""
    sf = {k: _field(f"environment.{k}") for k in SF_KEYS}
    for key in ("pool", "dev_hub", "definition"):
        sf[key] |= TEXT
    sf["api_version"] |= {"type": ["string", "number"]}
    sf["seed"] |= {"type": ["string", "array"]}
    sf["checks"] |= {"type": "array", "items": {"type": "object", "required": ["soql"], "additionalProperties": False,
                                                "properties": {k: _field(f"environment.checks[].{k}")
                                                               for k in CHECK_KEYS}}}
    sf["checks"]["items"]["properties"]["soql"] |= TEXT
    sf["checks"]["items"]["properties"]["count"] |= {"type": "integer", "minimum": 0}
    sf["days"] |= {"type": "integer", "minimum": 1, "maximum": 30}
    sf["wait_min"] |= {"type": "integer", "minimum": 2}
    sf["path"] |= {"type": "string", "pattern": "^/"}
    sf["track"] |= {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_]*$"}}
    kinds: dict[str, dict[str, Any]] = {"live": {}, "salesforce-scratch": sf, "app": _app_environment()}
    return {"type": "object", "required": ["kind"],
            "properties": {"kind": _field("environment.kind", model.EnvironmentSpec,
                                          enum=list(model.ENVIRONMENT_KINDS))},
            "allOf": [{"if": {"properties": {"kind": {"const": kind}}},
                       "then": {"properties": keys, "propertyNames": {"enum": ["kind", *keys]}}
                       | ({"required": ["app"]} if kind == "app" else {})}
                      for kind, keys in kinds.items()]}


def spec_schema() -> dict[str, Any]:
    """The task spec's JSON Schema (draft-07), as `clawrec schema spec` prints it."""
    spec = model.Spec
    start = rf"^(?:https?://[^\s/?#]+\S*|about:blank|{PLACEHOLDER}\S*)$"
    top: dict[str, dict[str, Any]] = {
        "version": _field("version", type="integer", const=model.SPEC_VERSION),
        "id": _field("id", spec, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$"),
        "category": _field("category", spec, enum=list(model.CATEGORIES)),
        "instruction": _field("instruction", spec),
        "start_url": _field("start_url", spec, pattern=start),
        "user": _field("user", spec),
        "files": _field("files", spec),
        "limits": _field("limits") | _object_of(model.Limits, "limits", ("time_s", "steps"), time_s={
            "exclusiveMinimum": 0}, steps={"minimum": 1}),
        "intercept": _field("intercept", spec, items={"if": {"type": "object", "required": ["salesforce"]},
                                                       "then": _salesforce_rule(), "else": _rule()}),
        "verify": _field("verify", spec),
        "expect": _field("expect", spec, propertyNames=DOTTED),
        "volatile": _field("volatile", spec, items=DOTTED),
        "exact": _field("exact", spec, items=DOTTED),
        "reference": _field("reference", spec),
        "environment": _field("environment") | _environment(),
        "judge_context": _field("judge_context", spec),
        "clawbench": _field("clawbench", spec),
        "secrets": _field("secrets", spec, items=DOTTED),
        "answer": _field("answer") | _object_of(model.Answer, "answer", ANSWER_KEYS),
        "terminal": _field("terminal", type="string", enum=list(TERMINAL), default=TERMINAL[0]),
        "writes": _field("writes", spec, items=_write()),
    }
    return {"$schema": "http://json-schema.org/draft-07/schema#", "title": "clawrec task spec",
            "description": DOCS["$"], "type": "object", "required": list(REQUIRED),
            "properties": {k: top[k] for k in TOP_KEYS}, "additionalProperties": False}
