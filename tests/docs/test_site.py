"""The documentation site builds strict (a broken link, a missing page or a stale reference fails it), and its
generated CLI reference holds every command and flag of `clawrec --help` (the role tests/test_readme.py had)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path

import click
import pytest

from clawrec.cli import cli

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site as `make docs` builds it (strict: any warning fails), into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{log}"
    assert "WARNING" not in log, log
    return out


def _commands() -> list[tuple[str, click.Command]]:
    """Every command `clawrec --help` lists, groups and their subcommands, as (path, command)."""
    out: list[tuple[str, click.Command]] = []

    def walk(cmd: click.Command, ctx: click.Context, path: str) -> None:
        out.append((path, cmd))
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                assert sub is not None, f"{path} {name}: listed but cannot be loaded"
                if not sub.hidden:
                    walk(sub, click.Context(sub, info_name=name, parent=ctx), f"{path} {name}")

    walk(cli, click.Context(cli, info_name="clawrec"), "clawrec")
    return out


def _section(html: str, path: str) -> str:
    """The part of the reference page under the heading of command `path`, up to the next command's heading."""
    anchor = path.replace(" ", "-")
    m = re.search(rf'<h(\d) id="{re.escape(anchor)}">', html)
    assert m, f"the generated CLI reference has no section for `{path}`"
    rest = html[m.end():]
    nxt = re.search(r'<h[1-4] id="clawrec[-"]', rest)
    return rest[: nxt.start()] if nxt else rest


def test_every_command_and_flag_of_the_cli_is_in_the_generated_reference(site: Path) -> None:
    html = (site / "reference" / "cli.html").read_text()
    commands = _commands()
    assert len(commands) > 20
    for path, cmd in commands:
        section = unescape(re.sub(r"<[^>]+>", " ", _section(html, path)))
        first_line = (cmd.help or "").strip().splitlines()[0] if cmd.help else ""
        words = " ".join(re.findall(r"\w+", first_line))  # Markdown turned `x` into <code>x</code>
        assert words in " ".join(re.findall(r"\w+", section)), f"`{path}`: its help text is missing"
        for param in cmd.params:
            if isinstance(param, click.Option) and param.hidden:
                continue
            for opt in [*param.opts, *getattr(param, "secondary_opts", [])] if isinstance(param, click.Option) else []:
                assert re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", section), f"`{path}`: {opt} is missing"


def test_every_page_of_the_nav_was_built(site: Path) -> None:
    """The nav names only pages that exist (strict fails otherwise) and each became HTML."""
    nav = re.findall(r":\s(\S+\.md)$", (ROOT / "mkdocs.yml").read_text(), re.M)
    assert len(nav) > 20
    for page in nav:
        built = site / (page[: -len("README.md")] + "index.html" if page.endswith("README.md") else page[:-3] + ".html")
        assert built.is_file(), f"{page} was not built"


def test_every_environment_variable_of_the_code_is_on_the_env_page() -> None:
    """Each CLAWREC_* name the product code reads or sets is documented (docs/reference/env.md)."""
    page = (ROOT / "docs" / "reference" / "env.md").read_text()
    packages = ["clawrec", "taskspec", "rundir", "archive", "interceptor", "recorder", "evaluator", "factory", "sites"]
    names = {name for pkg in packages for path in (ROOT / pkg).rglob("*.py")
             for name in re.findall(r"\bCLAWREC_[A-Z0-9_]*[A-Z0-9]\b", path.read_text())}
    assert len(names) > 20
    missing = sorted(n for n in names if not re.search(rf"`{n}`", page))
    assert not missing, f"docs/reference/env.md does not document {missing}"


def test_the_site_loads_nothing_from_the_network(site: Path) -> None:
    """Pages, scripts and styles come from the site itself (no font CDN, the search shim vendored), so the site works
    offline, also from disk."""
    tag = re.compile(r'<(?:link|script|img|iframe)\b[^>]*\b(?:href|src)="(https?://[^"]+)"')
    external = {m for page in site.rglob("*.html") for m in tag.findall(page.read_text())}
    assert not external, external


def test_every_generated_section_was_generated(site: Path) -> None:
    """A page's `<!-- clawrec:… -->` marker is replaced by its hook; one left in the HTML is a hook not listed."""
    left = [str(p.relative_to(site)) for p in site.rglob("*.html") if "<!-- clawrec:" in p.read_text()]
    assert not left, left
    assert "clawrec.api.run_task" in (site / "reference" / "api.html").read_text()  # mkdocstrings rendered it
    rundir = (site / "reference" / "rundir.html").read_text()
    assert "interceptions.jsonl" in rundir and "HttpRecord" in rundir
    assert "intercept[].url_regex" in (site / "reference" / "spec.html").read_text()
