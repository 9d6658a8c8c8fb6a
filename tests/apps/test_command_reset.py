"""A command app's reset without a restart (issue 34: reset <= 2 s): start commands marked {"keep": true} keep running
through a reset, the manifest's "reset" commands run after the snapshot is copied back over every data entry but its
"keep_data" ones; the other processes are restarted. A tiny app of two `python -m http.server` processes, installed
and served through the real corpus, install and instance code (apps/_command/serve.py)."""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

import pytest

from clawrec.apps import corpus, install
from clawrec.apps.instance import AppInstance
from clawrec.errors import UsageError

SERVER = f"{sys.executable} -m http.server --bind 127.0.0.1"


def _manifest(folder: Path, **extra) -> Path:
    (folder / "tiny").mkdir(parents=True)
    doc = {"name": "tiny", "kind": "command", "ports": ["kept", "other"], "url": "http://127.0.0.1:{port:kept}/",
           "setup": [["sh", "-c", "echo seed > {data}/db.txt && mkdir {data}/cluster && echo seed > {data}/cluster/f"]],
           "start": [{"argv": ["sh", "-c", f"echo $$ >> kept.pids; exec {SERVER} {{port:kept}}"], "keep": True},
                     ["sh", "-c", f"echo $$ >> other.pids; exec {SERVER} {{port:other}}"]],
           "reset": {"run": [["sh", "-c", "echo ran >> {data}/hook.txt"]], "keep_data": ["cluster"]},
           "database": "db.txt", **extra}
    (folder / "tiny" / "app.json").write_text(json.dumps(doc))
    return folder / "tiny" / "app.json"


def test_a_reset_keeps_the_kept_process_and_data_and_runs_its_hook(tmp_path, monkeypatch):
    _manifest(tmp_path / "mine")
    monkeypatch.setenv(corpus.PATH_ENV, str(tmp_path / "mine"))
    monkeypatch.setenv(corpus.HOME_ENV, str(tmp_path / "home"))
    app = corpus.get("tiny")
    assert (app.keep, app.reset, app.keep_data) == ((0,), (("sh", "-c", "echo ran >> {data}/hook.txt"),), ("cluster",))
    app.python_bin.parent.mkdir(parents=True)
    app.python_bin.symlink_to(sys.executable)  # no python packages: the install's venv is not what is tested
    install.install(app, say=lambda _: None)
    inst = AppInstance(app)
    try:
        inst.start()
        (inst.data / "db.txt").write_text("a write\n")
        (inst.data / "cluster" / "f").write_text("the kept process's own state\n")
        (inst.data / "new.txt").write_text("a new file\n")
        inst.reset()
        assert (inst.data / "db.txt").read_text() == "seed\n"  # copied back
        assert not (inst.data / "new.txt").exists()
        assert (inst.data / "cluster" / "f").read_text() == "the kept process's own state\n"  # left to the hook
        assert (inst.data / "hook.txt").read_text() == "ran\n"  # the hook ran after the copy
        kept = (app.source / "kept.pids").read_text().split()
        other = (app.source / "other.pids").read_text().split()
        assert len(kept) == 1 and len(other) == 2, (kept, other)  # only the process not kept was restarted
        assert urllib.request.urlopen(inst.url, timeout=10).status == 200
    finally:
        inst.stop()


@pytest.mark.parametrize("field,value", [("reset", {"run": "sh x.sh"}), ("reset", {"keep": ["pg"]}),
                                         ("start", [{"cmd": ["true"]}]), ("start", [{"argv": ["true"], "keep": 1}])])
def test_a_malformed_reset_or_start_names_the_file_and_field(tmp_path, monkeypatch, field, value):
    path = _manifest(tmp_path / "mine", **{field: value})
    monkeypatch.setenv(corpus.PATH_ENV, str(tmp_path / "mine"))
    with pytest.raises(UsageError, match=f"^{path}: {field}: "):
        corpus.get("tiny")
