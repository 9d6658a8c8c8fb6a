"""$CLAWREC_APPS_PATH: a user's own application, kept outside this repository, joins the corpus by its folder."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clawrec.apps import corpus
from clawrec.errors import UsageError

REPO = Path(__file__).resolve().parents[2]


def _write(folder: Path, name: str) -> None:
    (folder / name).mkdir(parents=True)
    doc = {"name": name, "kind": "django", "python": ["x==1"], "settings": "s", "database": "db.sqlite3"}
    (folder / name / "app.json").write_text(json.dumps(doc))


def test_an_app_outside_the_repository_is_listed_by_the_cli(tmp_path):
    _write(tmp_path / "mine", "mywiki")
    env = {**os.environ, corpus.PATH_ENV: str(tmp_path / "mine")}
    out = subprocess.run([sys.executable, "-m", "clawrec.cli", "apps", "list"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "mywiki" in out.stdout and "oscar" in out.stdout


def test_a_name_defined_twice_names_both_files(tmp_path, monkeypatch):
    _write(tmp_path / "a", "oscar")
    monkeypatch.setenv(corpus.PATH_ENV, str(tmp_path / "a"))
    with pytest.raises(UsageError, match=r"a/oscar/app.json: name: app 'oscar' is already defined in .*apps/oscar"):
        corpus.apps()


def test_a_missing_folder_is_one_cli_line(tmp_path):
    env = {**os.environ, corpus.PATH_ENV: str(tmp_path / "nowhere")}
    out = subprocess.run([sys.executable, "-m", "clawrec.cli", "apps", "list"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert out.stderr.strip().splitlines() == [f"clawrec: {corpus.PATH_ENV}: {tmp_path / 'nowhere'}: not a folder"]


def test_a_command_app_whose_setup_makes_its_own_data_tree_installs(tmp_path, monkeypatch):
    """Trac's `trac-admin ENV initenv` refuses a folder that exists: the uploads folder inside it (`env/files`) is made
    after the setup, not before (it was made before: the held-out trial's install failed)."""
    from clawrec.apps import install

    folder = tmp_path / "mine" / "tracker"
    folder.mkdir(parents=True)
    doc = {"name": "tracker", "kind": "command", "ports": ["http"], "url": "http://127.0.0.1:{port:http}/",
           "setup": [["sh", "-c", "mkdir {data}/env && : > {data}/env/db.sqlite3"]],
           "start": [["true"]], "database": "env/db.sqlite3", "uploads": "env/files", "mail": "mail"}
    (folder / "app.json").write_text(json.dumps(doc))
    monkeypatch.setenv(corpus.PATH_ENV, str(tmp_path / "mine"))
    monkeypatch.setenv(corpus.HOME_ENV, str(tmp_path / "home"))
    app = corpus.get("tracker")
    assert install.install(app, say=lambda _line: None)
    assert (app.snapshot / "env" / "db.sqlite3").is_file()
    assert (app.snapshot / "env" / "files").is_dir() and (app.snapshot / "mail").is_dir()
    assert app.installed()
