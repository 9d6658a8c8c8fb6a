"""Issue 16: a run directory is input too. Records nested deep (a body at the reader's limit, a hostile 50k-deep
line, a 30k-deep WebSocket payload) never raise RecursionError in judge, diagnose, view or annotate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from clawrec.cli import main

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "runs" / "reference" / "travel-flight-oneway"
SPEC = ROOT / "specs" / "demo" / "travel-flight-oneway.yaml"


def nested(n: int) -> object:
    value: object = "x"
    for _ in range(n):
        value = [value]
    return value


def test_deep_records_are_judged_viewed_and_annotated(tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(REFERENCE, run, ignore=shutil.ignore_patterns("video.mp4", "screenshots"))
    catch = json.loads((run / "interceptions.jsonl").read_text().splitlines()[0])
    catch["body"] = {**catch["body"], "deep": nested(115)}
    (run / "interceptions.jsonl").write_text(json.dumps(catch) + "\n" + '{"body": ' + "[" * 50_000 + "]" * 50_000
                                             + "}\n")
    with open(run / "http.jsonl", "a") as fh:
        fh.write('{"type":"websocket","event":"sent","url":"ws://x/","payload":"' + "[" * 30_000 + "]" * 30_000
                 + '"}\n')
        fh.write('{"type":"request","method":"POST","url":"http://x/a","body":{"kind":"json","value":'
                 + "[" * 120 + "]" * 120 + "}}\n")
    assert main(["judge", str(run), "--spec", str(SPEC)]) == 0
    assert main(["diagnose", str(run), "--reference", str(REFERENCE), "--spec", str(SPEC)]) == 0
    assert main(["view", str(run), "--out", str(tmp_path / "report.html")]) == 0
    assert main(["annotate", str(run), "--out", str(tmp_path / "spec" / "x.yaml"), "--id", "x"]) == 2
    out = capsys.readouterr()
    assert "Recursion" not in out.out + out.err and "Traceback" not in out.err
    assert f"{run / 'interceptions.jsonl'}:2: corrupt JSONL line (nested deeper" in out.err
    assert (run / "verdict.json").is_file() and (tmp_path / "report.html").stat().st_size > 1000
