"""The webmail's SMTP server on loopback: every message it accepts becomes one .eml file in the mail folder.

Why aiosmtpd and not a Debian MTA: the audit needs only "what reached the SMTP server", which is exactly what an
accepting SMTP endpoint that writes each message to disk shows (the mail check of clawrec/apps/checks.py), and it
starts per instance on a free port with nothing outside the instance's folder (an MTA per instance: not tried yet).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from aiosmtpd.smtp import SMTP, Envelope, Session


class SaveEml:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.count = 0

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.count += 1
        name = self.folder / f"{time.time_ns()}-{self.count}.eml"
        data = envelope.original_content or b""
        tmp = name.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.rename(name)
        return "250 Message accepted for delivery"


async def serve(port: int, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    handler = SaveEml(folder)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: SMTP(handler, hostname="localhost"), "127.0.0.1", port)
    async with server:
        await server.serve_forever()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--dir", type=Path, required=True)
    args = ap.parse_args()
    asyncio.run(serve(args.port, args.dir))


if __name__ == "__main__":
    main()
