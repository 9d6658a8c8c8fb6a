"""The scripted solver: a `command` agent program (`python -m factory.solver PLAN.json`) that completes a
generated site through its UI as a person would: by labels, placeholders, titles and roles, with the values of
the user's info in CLAWREC_TASK (never the oracle). `--set KEY=VALUE` changes one user value (the perturbed
solver); `--user FILE` replaces the user's info (the alternate run annotate's spec must also catch); `--files
DIR` supplies the user's files when the task lists none (an annotated spec has no `files:`).

It attaches with Playwright's connect_over_cdp to CLAWREC_CDP_URL and ends a few seconds after the final
click; the run usually stops it first, on the catch."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

TIMEOUT_MS = 10_000
SETTLE_S = 8.0
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def long_date(iso: str) -> str:
    y, m, d = (int(x) for x in iso.split("-"))
    return f"{MONTHS[m - 1]} {d}, {y}"


async def find(root: Any, label: str) -> Any:
    """The control a person would take for `label`: its <label>/aria-label, else a placeholder, else a title."""
    for how in (root.get_by_label, root.get_by_placeholder, root.get_by_title):
        loc = how(label, exact=True)
        if await loc.count() == 1:
            return loc
    raise LookupError(f"no control labelled {label!r}")


async def fill(root: Any, step: dict[str, Any], value: str, files: dict[str, str]) -> None:
    w, label = step["widget"], step["label"]
    if w == "listbox":
        await root.get_by_role("combobox", name=label, exact=True).click(timeout=TIMEOUT_MS)
        await root.get_by_role("option", name=value, exact=True).click(timeout=TIMEOUT_MS)
    elif w == "picker":
        await root.get_by_role("button", name=f"Choose {label}", exact=True).click(timeout=TIMEOUT_MS)
        await root.get_by_role("button", name=long_date(value), exact=True).click(timeout=TIMEOUT_MS)
    elif w == "typeahead":
        box = await find(root, label)
        await box.fill("", timeout=TIMEOUT_MS)
        await box.press_sequentially(value[:3], timeout=TIMEOUT_MS)
        await root.get_by_role("option", name=value, exact=True).click(timeout=TIMEOUT_MS)
    elif w == "select":
        await (await find(root, label)).select_option(label=value, timeout=TIMEOUT_MS)
    elif w == "checkbox":
        await (await find(root, label)).set_checked(value == "yes", timeout=TIMEOUT_MS)
    elif w == "file":
        await (await find(root, label)).set_input_files(files[value], timeout=TIMEOUT_MS)
    else:
        await (await find(root, label)).fill(value, timeout=TIMEOUT_MS)


async def solve(plan: dict[str, Any], user: dict[str, Any], files: dict[str, str], cdp: str) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(cdp)
        context = browser.contexts[0]
        page = next((p for p in context.pages if p.url.startswith("http")), None) or context.pages[0]
        await page.wait_for_load_state("domcontentloaded")
        for step in plan["steps"]:
            root = page.frame_locator(f'iframe[title="{step["frame"]}"]') if step.get("frame") else page
            if step["do"] == "click":
                await root.get_by_role(step["role"], name=step["name"], exact=True).click(timeout=TIMEOUT_MS)
            elif step["do"] == "field":
                await fill(root, step, str(user[step["user"]]), files)
            elif step["do"] == "popup":
                async with page.expect_popup(timeout=TIMEOUT_MS) as info:
                    await page.get_by_role("button", name=step["open"], exact=True).click(timeout=TIMEOUT_MS)
                popup = await info.value
                await popup.get_by_role("button", name=step["name"], exact=True).click(timeout=TIMEOUT_MS)
            log({"role": "tool_call", "tool": step["do"], "content": step.get("label") or step.get("name")})
        await asyncio.sleep(SETTLE_S)


def log(record: dict[str, Any]) -> None:
    path = os.environ.get("CLAWREC_AGENT_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m factory.solver", description=__doc__.split("\n\n")[0])
    parser.add_argument("plan", type=Path)
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--user", type=Path, help="JSON file replacing the task's user info")
    parser.add_argument("--files", type=Path, help="folder with the user's files when the task lists none")
    args = parser.parse_args(argv)
    task = json.loads(Path(os.environ["CLAWREC_TASK"]).read_text(encoding="utf-8"))
    user = dict(task.get("user") or {})
    if args.user:
        user.update(json.loads(args.user.read_text(encoding="utf-8")))
    for item in args.sets:
        key, _, value = item.partition("=")
        user[key] = value
    files = {p.name: str(p) for p in sorted(args.files.iterdir())} if args.files and args.files.is_dir() else {}
    files.update({Path(f).name: str(f) for f in task.get("files") or []})
    plan = json.loads(args.plan.read_text(encoding="utf-8"))
    try:
        asyncio.run(solve(plan, user, files, os.environ["CLAWREC_CDP_URL"]))
    except Exception as exc:  # the run records it (agent_error); one line for the log
        print(f"factory.solver: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
