"""MkDocs hook: the task spec reference, generated at build time from the spec's JSON Schema (taskspec/schema.py,
itself generated from the model and the checker), so every key, its type, default, meaning and example on the page
is the code's. A page holds `<!-- clawrec:spec-reference -->`; the hook puts one table row per key there."""

from __future__ import annotations

import json
from typing import Any, Iterator

MARKER = "<!-- clawrec:spec-reference -->"


def _children(node: dict[str, Any], path: str, tag: str = "") -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(dotted path, tag, schema) of every key below `node`: object properties, list items (`[]`), the branches of
    a `oneOf` or `if/then/else` that are objects; keys of one environment kind are tagged with it."""
    for key, sub in node.get("properties", {}).items():
        where = f"{path}.{key}" if path else key
        yield where, tag, sub
        yield from _children(sub, where, tag)
    items = node.get("items")
    if isinstance(items, dict):
        for branch in (items, items.get("else"), items.get("then")):
            if isinstance(branch, dict):
                yield from _children(branch, f"{path}[]", tag)
    for alt in node.get("oneOf", []):
        if alt.get("type") == "object":
            yield from _children(alt, path, tag)
    for cond in node.get("allOf", []):  # per-kind keys (environment)
        kind = cond.get("if", {}).get("properties", {}).get("kind", {}).get("const")
        if isinstance(cond.get("then"), dict) and kind:
            yield from _children(cond["then"], path, f"`kind: {kind}`")


def _type(node: dict[str, Any]) -> str:
    if "const" in node:
        return f"`{json.dumps(node['const'])}`"
    if "enum" in node:
        return " \\| ".join(f"`{v}`" for v in node["enum"])
    if "oneOf" in node and "type" not in node:
        return " or ".join(_type(alt) for alt in node["oneOf"])
    kind = node.get("type", "any")
    if kind == "array":
        items = node.get("items", {})
        return "list of rules" if "else" in items or "expect" in items.get("properties", {}) else \
            f"list of {_type(items)}"
    if kind == "object" and "propertyNames" in node:
        return "mapping of field paths"
    return " or ".join(kind) if isinstance(kind, list) else kind


def _code(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return f"`{text}`".replace("|", "\\|")


def spec_reference_markdown() -> str:
    from taskspec.schema import spec_schema

    schema = spec_schema()
    required = set(schema["required"])
    rows = ["| key | type | default | meaning | example |", "|---|---|---|---|---|"]
    seen: set[tuple[str, str]] = set()
    for path, tag, node in _children(schema, ""):
        if (path, tag) in seen or "description" not in node:  # a key restated by a condition
            continue
        seen.add((path, tag))
        name = f"`{path}`" + (" (required)" if path in required else "") + (f" ({tag})" if tag else "")
        default = _code(node["default"]) if "default" in node else "–"
        example = _code(node["examples"][0]) if "examples" in node else "–"
        meaning = node.get("description", "").replace("|", "\\|")
        rows.append(f"| {name} | {_type(node)} | {default} | {meaning} | {example} |")
    return "\n".join(rows)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (the MkDocs hook signature)
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, spec_reference_markdown())
    return markdown
