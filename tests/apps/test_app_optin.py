"""An app whose manifest says "default": false (an install too long for `make test`) is installed only when named."""

import json
from pathlib import Path

import pytest

from clawrec.apps import corpus
from clawrec.errors import UsageError


def _write(folder: Path, name: str, **extra) -> None:
    (folder / name).mkdir()
    doc = {"name": name, "kind": "django", "python": ["x==1"], "settings": "s", "database": "db.sqlite3", **extra}
    (folder / name / "app.json").write_text(json.dumps(doc))


def test_default_false_is_left_out_of_a_bare_install(tmp_path, monkeypatch):
    _write(tmp_path, "quick")
    _write(tmp_path, "slow", default=False)
    monkeypatch.setattr(corpus, "CORPUS", tmp_path)
    assert [a.name for a in corpus.defaults()] == ["quick"]
    assert corpus.get("slow").default is False  # still installable by name
    assert sorted(corpus.apps()) == ["quick", "slow"]


def test_default_must_be_a_boolean(tmp_path, monkeypatch):
    _write(tmp_path, "bad", default="no")
    monkeypatch.setattr(corpus, "CORPUS", tmp_path)
    with pytest.raises(UsageError, match=r"app.json: default: must be true or false"):
        corpus.apps()


def test_a_bare_apps_install_installs_only_the_default_apps(tmp_path, monkeypatch):
    """`clawrec apps install` (what `make apps` runs) with no names skips an opt-in app; named, it installs it."""
    from clawrec.cli import main
    from clawrec.commands import apps as apps_command

    _write(tmp_path, "quick")
    _write(tmp_path, "slow", default=False)
    monkeypatch.setattr(corpus, "CORPUS", tmp_path)
    installed: list[str] = []
    monkeypatch.setattr(apps_command, "install_app", lambda app, say: installed.append(app.name))
    assert main(["apps", "install"]) == 0 and installed == ["quick"]
    assert main(["apps", "install", "slow"]) == 0 and installed == ["quick", "slow"]
