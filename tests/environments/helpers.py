"""Spec files for scratch-org tests (the shipped task with other environment options)."""

from __future__ import annotations

from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SPEC = REPO / "specs" / "salesforce" / "sf-create-lead.yaml"


def write_spec(folder: Path, name: str = "sf-create-lead", **env: object) -> Path:
    """The shipped spec, renamed, with `env` merged into its environment (None removes a key)."""
    doc = yaml.safe_load(SPEC.read_text())
    doc["id"] = name
    for key, value in env.items():
        if value is None:
            doc["environment"].pop(key, None)
        else:
            doc["environment"][key] = value
    path = Path(folder) / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path
