"""Fixtures: a Salesforce stand-in (orgs + Dev Hub) with the fake `sf` CLI and a pool file, selected through the
same environment variables a real setup uses (CLAWREC_SF_BIN, CLAWREC_SF_POOL)."""

from __future__ import annotations

import pytest

from tests.support.salesforce_server import SalesforceStandIn


@pytest.fixture
def sf(tmp_path, monkeypatch):
    with SalesforceStandIn(tmp_path / "sf", orgs=["pool1", "pool2"]) as standin:
        for key, value in standin.env.items():
            monkeypatch.setenv(key, value)
        pool = standin.pool_file(tmp_path / "pool.json")
        monkeypatch.setenv("CLAWREC_SF_POOL", str(pool))
        standin.pool_path = pool
        yield standin
