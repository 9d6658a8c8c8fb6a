"""Issue 16: `files:` stay inside the spec's folder unless --allow-outside-files; a rule matching the start page is
named before any browser starts (taskspec/check_reach.py)."""

from __future__ import annotations

from clawrec.cli import main

HEAD = "version: 1\nid: {id}\ninstruction: x\nstart_url: {start}\n"


def write(folder, ident: str, body: str, start: str = "http://127.0.0.1:9/shop/"):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{ident}.yaml"
    path.write_text(HEAD.format(id=ident, start=start) + body)
    return path


def test_files_outside_the_spec_folder_are_refused_unless_allowed(tmp_path, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_text("not for the agent")
    (tmp_path / "specs" / "files").mkdir(parents=True)
    (tmp_path / "specs" / "files" / "link.txt").symlink_to(secret)  # inside by name, outside once resolved
    (tmp_path / "specs" / "files" / "ok.txt").write_text("fine")
    path = write(tmp_path / "specs", "t", "files: [files/ok.txt, ../secret.txt, files/link.txt]\n")
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert [line.split(": ", 2)[:2] for line in err] == [[f"{path}:5", "files.1"], [f"{path}:5", "files.2"]]
    assert "resolves outside the spec's folder" in err[0] and "--allow-outside-files" in err[0]
    runs = tmp_path / "runs"
    assert main(["run", str(path), "--agent", "command", "--agent-cmd", "true", "--runs-dir", str(runs)]) == 2
    assert capsys.readouterr().err.splitlines()[0].startswith(f"clawrec: {path}:5: files.1: '../secret.txt' resolves")
    assert not runs.exists() or not any(runs.iterdir())
    assert main(["validate", "--allow-outside-files", str(path)]) == 0


def test_rule_matching_the_start_page_is_named(tmp_path, capsys):
    """Before: `clawrec: could not prepare the browser: CDPError: … net::ERR_BLOCKED_BY_CLIENT`, exit 1."""
    path = write(tmp_path, "t", "intercept:\n  - url: '**'\n")
    expected = (f"{path}:6: intercept.0.url: intercept[0] matches the start page (GET http://127.0.0.1:9/shop/): "
                "the browser could not open it; narrow the rule (a method such as POST, or a longer URL)")
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [expected]
    runs = tmp_path / "runs"
    assert main(["run", str(path), "--agent", "command", "--agent-cmd", "true", "--runs-dir", str(runs)]) == 2
    assert capsys.readouterr().err.splitlines() == ["clawrec: " + expected]
    assert not runs.exists()


def test_rules_that_spare_the_start_page_pass(tmp_path, capsys):
    ok = {"post": ("http://127.0.0.1:9/shop/", "  - url: '**'\n    method: POST\n"),
          "query": ("http://127.0.0.1:9/shop/", "  - url: 'http://127.0.0.1:9/shop/'\n    query: {buy: 1}\n"),
          "other-site": ("'{sites.travel}'", "  - url: '{sites.shop}**'\n"),
          "blank": ("about:blank", "  - url: '**'\n")}
    for ident, (start, rule) in ok.items():
        write(tmp_path, ident, "intercept:\n" + rule, start=start)
    assert main(["validate", str(tmp_path)]) == 0, capsys.readouterr().err
