"""The fixtures of the CLI bad-input tests: a damageable copy of one recorded run, and a server that is no browser."""

from __future__ import annotations

import http.server
import shutil
import threading
from pathlib import Path

import pytest

from tests.cli_bad_input.helpers import REAL, REF, RUN


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A copy of one travel run, its reference and the specs (the spec's `reference: ../travel/reference`
    resolves); small, because every case hashes the whole tree twice."""
    for part in (RUN, REF, "real/specs"):
        shutil.copytree(REAL.parent / part, tmp_path / part)
    return tmp_path


@pytest.fixture(scope="module")
def http_server():
    """A real HTTP server that is not a browser (404 for /json/version)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
