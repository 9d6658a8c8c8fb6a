"""ClawBench as cloned from git: v1-lite's tasks are symlinks to v1's (a task.json, an extra_info file, here also a
whole task folder), and each keeps its own suite in its id (v1-lite-…), so the whole test-cases folder imports with
exit 0. The shared corpus (its links stored as text) is imported whole by test_import_corpus.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

from clawrec.cli import main
from taskspec.load import load_spec


def _task(n: int, platform: str, extra: str | None = None) -> dict:
    task = {"metadata": {"task_id": n, "metaclass": "daily-life", "class": "food", "platform": platform,
                         "sites_involved": [f"{platform}.example"]},
            "instruction": f"On {platform}, order lunch for the team.",
            "eval_schema": {"url_pattern": rf"{platform}\.example/api/orders", "method": "POST"}, "time_limit": 10}
    if extra:
        task["extra_info"] = [{"path": f"extra_info/{extra}", "description": "the team's orders"}]
    return task


def _corpus(root: Path) -> Path:
    """test-cases/ with v1 (three tasks) and v1-lite linking to them three ways: a symlinked task.json beside a
    symlinked extra_info file, a symlinked task folder, and a link checked out as text (git without symlinks)."""
    cases = root / "test-cases"
    names = {2: "002-daily-life-food-doordash", 7: "007-daily-life-food-instacart", 91: "091-daily-life-food-grubhub"}
    for n, name in names.items():
        folder = cases / "v1" / name
        (folder / "extra_info").mkdir(parents=True)
        (folder / "extra_info" / "orders.json").write_text('{"orders": ["soup"]}\n')
        (folder / "task.json").write_text(json.dumps(_task(n, name.rsplit("-", 1)[1], "orders.json"), indent=2))
    lite = cases / "v1-lite"
    (lite / names[2] / "extra_info").mkdir(parents=True)
    os.symlink(f"../../v1/{names[2]}/task.json", lite / names[2] / "task.json")
    os.symlink(f"../../../v1/{names[2]}/extra_info/orders.json", lite / names[2] / "extra_info" / "orders.json")
    os.symlink(f"../v1/{names[91]}", lite / names[91])
    (lite / names[7]).mkdir()
    (lite / names[7] / "task.json").write_text(f"../../v1/{names[7]}/task.json")
    os.symlink("..", lite / "up")  # a link up the tree: not walked forever
    return cases


def test_lite_links_keep_their_suite_and_all_import(tmp_path, capsys):
    cases = _corpus(tmp_path)
    out = tmp_path / "out"
    assert main(["import-clawbench", str(cases), str(out)]) == 0
    io = capsys.readouterr()
    assert io.out == f"clawrec: imported 6 of 6 ClawBench tasks into {out}\n", io.err
    ids = sorted(p.stem for p in out.glob("*.yaml"))
    assert ids == ["v1-002-daily-life-food-doordash", "v1-007-daily-life-food-instacart",
                   "v1-091-daily-life-food-grubhub", "v1-lite-002-daily-life-food-doordash",
                   "v1-lite-007-daily-life-food-instacart", "v1-lite-091-daily-life-food-grubhub"]
    lite = load_spec(out / "v1-lite-002-daily-life-food-doordash.yaml")
    assert lite.clawbench["source"] == "v1-lite/002-daily-life-food-doordash/task.json"
    assert "v1-lite/002-daily-life-food-doordash/task.json is a link to task.json in 002-daily-life-food-doordash/" \
        in lite.clawbench["notes"]
    assert [f.read_text() for f in lite.files] == ['{"orders": ["soup"]}\n']  # the linked file's content
    assert main(["import-clawbench", str(cases), str(out), "--suite", "v1-lite"]) == 0
    assert capsys.readouterr().out == f"clawrec: imported 3 of 3 ClawBench tasks into {out}\n"
