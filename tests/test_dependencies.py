"""The dependency rule, checked on every run of the suite:
`taskspec`, `rundir`, `archive` ← `interceptor`, `recorder`, `evaluator` ← `clawrec`; `factory` uses `taskspec` and
`sites` and is used only by clawrec's CLI (clawrec/commands/).

Every module of the product is imported (so a broken import fails here), and every `import` statement in its
source (module level or inside functions) is read with `ast` and held against the rule."""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("taskspec", "rundir", "archive", "interceptor", "recorder", "evaluator", "clawrec", "sites", "factory")
# what each package may import of ours (itself always)
ALLOWED = {
    "rundir": set(),
    "archive": set(),  # web archives: pure data + I/O (warcio, wacz), nothing of ours
    "taskspec": {"rundir"},  # authoring (annotate) reads recorded runs
    "interceptor": {"taskspec", "rundir", "archive"},
    "recorder": {"taskspec", "rundir", "interceptor.cdp"},  # the one CDP client (its transport only)
    "evaluator": {"taskspec", "rundir"},
    "sites": {"taskspec"},  # the {sites.NAME} filler
    "clawrec": {"taskspec", "rundir", "archive", "interceptor", "recorder", "evaluator", "sites", "factory"},
    "factory": {"taskspec", "sites"},  # the web factory: specs and field paths; sites/' server machinery
}
BROWSER_LIBS = ("playwright", "patchright", "websockets", "aiohttp", "ffmpeg", "anthropic")
PURE = ("taskspec", "rundir", "archive")


def _modules(package: str) -> list[Path]:
    return sorted(p for p in (ROOT / package).rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
    return out


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_dependency_rule(package: str) -> None:
    bad = []
    for path in _modules(package):
        for line, name in _imports(path):
            top = name.split(".")[0]
            if top in OURS and top != package and top not in ALLOWED[package] and name not in ALLOWED[package]:
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports {name}")
            if package in PURE and top in BROWSER_LIBS:
                bad.append(f"{path.relative_to(ROOT)}:{line}: imports browser library {name}")
    assert not bad, "dependency rule broken:\n" + "\n".join(bad)


def test_factory_is_used_only_by_the_cli() -> None:
    """Only clawrec's commands import factory (it runs clawrec through its CLI, never as a library)."""
    bad = [f"{path.relative_to(ROOT)}:{line}: imports {name}" for path in _modules("clawrec")
           if "commands" not in path.relative_to(ROOT).parts
           for line, name in _imports(path) if name.split(".")[0] == "factory"]
    assert not bad, "factory imported outside clawrec/commands:\n" + "\n".join(bad)


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_every_module_imports(package: str) -> None:
    for path in _modules(package):
        rel = path.relative_to(ROOT).with_suffix("")
        if rel.name == "__main__":
            continue
        importlib.import_module(".".join(rel.parts).removesuffix(".__init__"))


def test_pure_packages_load_no_browser_library() -> None:
    """Importing all of taskspec and rundir in a fresh interpreter loads none of the browser/network libraries."""
    import subprocess

    mods = [".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
            for pkg in PURE for p in _modules(pkg)]
    code = ("import sys\n" + "".join(f"import {m}\n" for m in mods)
            + f"print(','.join(m for m in {BROWSER_LIBS!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
