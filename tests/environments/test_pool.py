"""The pool file: claims are atomic across processes (never one org twice), a dead holder's lease is free again, a
released org is free, a dirty org is never leased."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from clawrec.environments.sf_pool import OrgPool

REPO = Path(__file__).resolve().parents[2]
CLAIMER = """
import json, os, sys, time
from pathlib import Path
from clawrec.environments.sf_pool import OrgPool
go = Path(sys.argv[2])
while not go.exists():
    time.sleep(0.001)
org = OrgPool(Path(sys.argv[1])).claim("default", f"run{os.getpid()}")
print(json.dumps(org["username"] if org else None), flush=True)
sys.stdin.read()   # hold the lease (a live holder) until the test closes stdin
"""


def write_pool(path: Path, n: int) -> Path:
    path.write_text(json.dumps({"orgs": [{"username": f"u{i}@example.com", "pool": "default"} for i in range(n)]}))
    return path


def test_concurrent_claims_never_share_an_org(tmp_path):
    pool = write_pool(tmp_path / "pool.json", 3)
    go = tmp_path / "go"
    procs = [subprocess.Popen([sys.executable, "-c", CLAIMER, str(pool), str(go)], cwd=REPO, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE) for _ in range(8)]
    try:
        time.sleep(0.5)  # let the interpreters start; they spin on the go file
        go.write_text("")
        got = [json.loads(p.stdout.readline()) for p in procs]
    finally:
        for p in procs:
            p.stdin.close()
        for p in procs:
            p.wait(30)
    leased = [u for u in got if u]
    assert sorted(leased) == ["u0@example.com", "u1@example.com", "u2@example.com"], got
    # Every holder has exited: their leases are stale and the orgs free again.
    assert OrgPool(pool).claim("default", "after") is not None


def test_release_and_dirty(tmp_path):
    pool = OrgPool(write_pool(tmp_path / "pool.json", 2))
    a, b = pool.claim("default", "r1"), pool.claim("default", "r2")
    assert {a["username"], b["username"]} == {"u0@example.com", "u1@example.com"}
    assert pool.claim("default", "r3") is None and pool.claim("other", "r3") is None
    pool.release(a["username"], a["lease"]["holder"])
    pool.release(b["username"], b["lease"]["holder"], dirty="reset failed")
    again = pool.claim("default", "r4")
    assert again["username"] == a["username"] and pool.claim("default", "r5") is None
    assert "1 dirty" in pool.summary("default")
    pool.release(b["username"], "not-the-holder")  # a lease we do not hold is left alone
    doc = json.loads((tmp_path / "pool.json").read_text())
    assert [o["lease"] is None for o in doc["orgs"]] == [False, True]
