"""A command agent that closes every tab (Target.closeTarget), says so, and ends: the agent's own doing."""

import asyncio
import json
import os
import urllib.request

import websockets


async def main() -> None:
    cdp = os.environ["CLAWREC_CDP_URL"]
    ws_url = json.load(urllib.request.urlopen(f"{cdp}/json/version", timeout=10))["webSocketDebuggerUrl"]
    async with websockets.connect(ws_url, max_size=None) as ws:
        await ws.send(json.dumps({"id": 1, "method": "Target.getTargets"}))
        targets = json.loads(await ws.recv())["result"]["targetInfos"]
        pages = [t for t in targets if t["type"] == "page" and not t["url"].startswith("chrome-extension://")]
        for i, page in enumerate(pages):
            await ws.send(json.dumps({"id": 2 + i, "method": "Target.closeTarget",
                                      "params": {"targetId": page["targetId"]}}))
            while json.loads(await ws.recv()).get("id") != 2 + i:
                pass
    await asyncio.sleep(2)  # a browser that quits with its last window would be gone by now
    print(f"closed {len(pages)} tab(s)", flush=True)


asyncio.run(main())
