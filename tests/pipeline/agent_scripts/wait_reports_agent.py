"""A `command` agent that only waits: until the run's http.jsonl holds a POST /report from every reporter named in
argv[1:] (the determinism page reports by itself), at most 120 s. It never touches the browser."""

import json
import os
import sys
import time
from pathlib import Path

log = Path(os.environ["CLAWREC_RUN_DIR"]) / "http.jsonl"
want = set(sys.argv[1:])
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    seen = set()
    for line in log.read_text().splitlines() if log.exists() else []:
        r = json.loads(line)
        if r.get("method") == "POST" and "/report?who=" in str(r.get("url")):
            seen.add(str(r["url"]).rsplit("=", 1)[1])
    if want <= seen:
        break
    time.sleep(0.1)
