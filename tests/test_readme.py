"""README.md is the five-minute page: the two commands, and links into the docs that lead somewhere. The CLI
reference it used to hold is generated from the code now (docs/reference/cli.md; tests/docs/test_site.py keeps it
complete)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_readme_has_the_two_commands():
    assert "make demo" in README and "make test" in README


def test_every_relative_link_and_picture_of_the_readme_exists():
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [t for t in targets if not re.match(r"[a-z]+://", t)]
    assert local, "the README links into the docs"
    for target in local:
        assert (ROOT / target).exists(), f"README links to {target}, which does not exist"


def test_the_readme_is_a_five_minute_page():
    assert len(README.splitlines()) <= 150


def test_the_first_screen_runs_the_demo_opens_the_report_and_points_at_the_tutorial():
    first_screen = "\n".join(README.splitlines()[:25])
    assert "make demo" in first_screen and "report.html" in first_screen
    assert "(docs/tutorials/first-task.md)" in first_screen
