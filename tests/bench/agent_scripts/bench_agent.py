"""A `command` agent for the bench tests: `bench_agent.py MODE[,MODE…]`, one mode per bench trial
($CLAWREC_BENCH_TRIAL; the last one repeats). Modes:
  drive  complete the demo task with the sites' own driver (sites.drivers.SPEC_TASKS by task id)
  idle   do nothing for a second, exit 0 (the run ends without a submission)
  crash  exit 3 at once (an agent failure: an outcome)
  hang   stop the `clawrec run` process itself (SIGSTOP): a wedged run only the bench's deadline can end
  hold   on attempts 1-4 ($CLAWREC_BENCH_ATTEMPT) wait to be stopped (600 s); later, exit 0 at once: a run that is
         in flight until the test stops (or kills) the bench, then completes on a resume
"""

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path


def mode() -> str:
    modes = sys.argv[1].split(",")
    trial = int(os.environ.get("CLAWREC_BENCH_TRIAL", "1"))
    return modes[min(trial, len(modes)) - 1]


async def drive() -> None:
    from playwright.async_api import async_playwright

    from sites.drivers import SPEC_TASKS, drive as drive_site

    task = json.load(open(os.environ["CLAWREC_TASK"]))
    urls = json.loads(os.environ["CLAWREC_SITES"])
    files = {Path(f).name: f for f in task["files"]}
    async with async_playwright() as p:
        browser = await p.chromium.connect_over_cdp(os.environ["CLAWREC_CDP_URL"])
        context = browser.contexts[0]
        page = context.pages[0] if context.pages else await context.new_page()
        await drive_site(SPEC_TASKS[task["id"]], page, urls, task["user"], files)


m = mode()
if m == "drive":
    asyncio.run(drive())
elif m == "idle":
    time.sleep(1)
elif m == "hold":
    if int(os.environ.get("CLAWREC_BENCH_ATTEMPT", "1")) < 5:
        time.sleep(600)
elif m == "crash":
    print("bench_agent: crashing on purpose", file=sys.stderr)
    sys.exit(3)
elif m == "hang":
    pid = os.getppid()  # /bin/sh (or, if it exec'd us, `clawrec run` itself): stop the nearest `clawrec run` ancestor
    while b"clawrec.cli\x00run" not in Path(f"/proc/{pid}/cmdline").read_bytes():
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    os.kill(pid, signal.SIGSTOP)
    time.sleep(600)
else:
    sys.exit(f"bench_agent: unknown mode {m}")
