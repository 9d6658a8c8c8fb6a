"""bench: the frozen-web flags (issue 22) are passed through to each run."""

from __future__ import annotations


def test_bench_passes_the_site_flags_to_each_run(tmp_path):
    """`clawrec bench --archive --archive-cap --site-from` reach every `clawrec run` child, spelled as run's flags."""
    from clawrec.bench.child import build_argv
    from clawrec.bench.plan import AgentEntry, Slot, SpecEntry

    slot = Slot(SpecEntry("t", str(tmp_path / "t.yaml"), "0" * 64, "daily", 60.0), AgentEntry("replay"), 1)
    argv = build_argv(slot, tmp_path / "run", {"archive": True, "archive_cap": 5.0, "site_from": "reference"})
    assert "--archive" in argv and argv[argv.index("--archive-cap") + 1] == "5.0"
    assert argv[argv.index("--site-from") + 1] == "reference"
    assert "--archive" not in build_argv(slot, tmp_path / "run", {})
