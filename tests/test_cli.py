import subprocess
import sys

from clawrec.cli import COMMANDS, main


def test_help_lists_commands(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert "Usage" in out


def test_unknown_command_is_one_line_exit_2(capsys):
    assert main(["no-such-command"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("clawrec: ")


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "clawrec.cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "clawrec" in out.stdout
