"""A `command` agent that only waits: until the file named by its argument exists (the test creates it once the
detector page has reported), at most 120 s. It never touches the browser, so what the page sees is clawrec's own."""

import sys
import time
from pathlib import Path

deadline = time.monotonic() + 120
while not Path(sys.argv[1]).exists() and time.monotonic() < deadline:
    time.sleep(0.1)
