"""Bad input to `clawrec run`: one line `clawrec: …` on stderr, exit 2, no run started."""

from __future__ import annotations

import pytest

from tests.pipeline.helpers import run_cli, signup_cmd
from tests.pipeline.tinysite import TinySite, write_spec


@pytest.fixture
def spec(tmp_path):
    with TinySite() as site:
        yield write_spec(tmp_path, site)


def assert_one_line(code, out, err, *needles):
    assert code == 2, (out, err)
    assert len(err) == 1 and err[0].startswith("clawrec: "), err
    for needle in needles:
        assert needle in err[0], err[0]


def test_unknown_agent(spec, tmp_path, capsys):
    code, out, err = run_cli([str(spec), "--agent", "no-such-agent", "--runs-dir", str(tmp_path / "runs")], capsys)
    assert_one_line(code, out, err, "unknown agent 'no-such-agent'", "command")
    assert not (tmp_path / "runs").exists()


def test_missing_agent_cmd(spec, tmp_path, capsys):
    code, out, err = run_cli([str(spec), "--agent", "command", "--runs-dir", str(tmp_path / "runs")], capsys)
    assert_one_line(code, out, err, "--agent-cmd")
    assert not (tmp_path / "runs").exists()


def test_unreadable_spec(tmp_path, capsys):
    missing = tmp_path / "nope.yaml"
    code, out, err = run_cli([str(missing), "--agent", "command", "--agent-cmd", "true"], capsys)
    assert_one_line(code, out, err, str(missing))


def test_invalid_spec_names_file_line_and_field(tmp_path, capsys):
    bad = tmp_path / "bad-task.yaml"
    bad.write_text("version: 1\nid: bad-task\ninstruction: x\nstart_url: http://127.0.0.1:9/\nlimits: {time_s: -3}\n")
    code, out, err = run_cli([str(bad), "--agent", "command", "--agent-cmd", "true"], capsys)
    assert_one_line(code, out, err, f"{bad}:5", "limits")


def test_openclaw_not_installed(spec, tmp_path, capsys, monkeypatch):
    empty = tmp_path / "no-openclaw"
    empty.mkdir()
    monkeypatch.setenv("CLAWREC_OPENCLAW_DIR", str(empty))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    code, out, err = run_cli([str(spec), "--agent", "openclaw", "--model", "anthropic/claude-test",
                              "--runs-dir", str(tmp_path / "runs")], capsys)
    assert_one_line(code, out, err, "OpenClaw")
    assert not (tmp_path / "runs").exists()


def test_replay_without_from(spec, tmp_path, capsys):
    code, out, err = run_cli([str(spec), "--agent", "replay"], capsys)
    assert_one_line(code, out, err, "--from")


def test_claude_without_key(spec, tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    code, out, err = run_cli([str(spec), "--agent", "claude"], capsys)
    assert_one_line(code, out, err, "ANTHROPIC_API_KEY")


def test_placeholders_without_sites(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CLAWREC_SITES", raising=False)
    spec = tmp_path / "ph-task.yaml"
    spec.write_text("version: 1\nid: ph-task\ninstruction: x\nstart_url: '{sites.travel}'\n")
    code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd", signup_cmd()], capsys)
    assert_one_line(code, out, err, "--serve-sites", "CLAWREC_SITES")
