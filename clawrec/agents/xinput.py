"""The X display as a person sees and drives it: a PNG of the whole screen (ffmpeg x11grab) and real input events
(xdotool), for the `computer-use` agent.

Why X and not CDP: input that goes through the X server reaches Chromium as a person's would (`isTrusted` events,
true screen coordinates, no Input.dispatch* in the page's debugger), and the screenshot shows the whole screen with
the browser's own chrome, as the model's computer tool expects. Each call is a short subprocess bounded by a timeout.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from dataclasses import dataclass

TIMEOUT_S = 15.0
TYPE_DELAY_MS = 12
SCROLL_BUTTONS = {"up": "4", "down": "5", "left": "6", "right": "7"}
MOUSE_BUTTONS = {"left_click": "1", "middle_click": "2", "right_click": "3"}


class InputError(Exception):
    """An action the display refused or a malformed action: the model sees the message as a tool error."""


@dataclass
class XDisplay:
    name: str                  # ":99"
    width: int
    height: int

    @property
    def number(self) -> int:
        return int(self.name.lstrip(":").split(".")[0] or 0)

    async def _run(self, *argv: str, stdin: bytes | None = None) -> bytes:
        env = {**os.environ, "DISPLAY": self.name}
        proc = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env)
        try:
            out, err = await asyncio.wait_for(proc.communicate(stdin), TIMEOUT_S)
        except BaseException:  # a timeout or the run's cancellation: the helper process never outlives the call
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
            raise
        if proc.returncode != 0:
            raise InputError(f"{argv[0]} failed ({proc.returncode}): {err.decode(errors='replace').strip()[:200]}")
        return out

    async def screenshot(self) -> bytes:
        """The whole screen as PNG bytes."""
        return await self._run("ffmpeg", "-nostdin", "-loglevel", "error", "-f", "x11grab", "-video_size",
                               f"{self.width}x{self.height}", "-i", self.name, "-frames:v", "1", "-f", "image2pipe",
                               "-vcodec", "png", "-")

    async def xdotool(self, *args: str) -> str:
        return (await self._run("xdotool", *args)).decode(errors="replace").strip()

    def point(self, coordinate: object) -> tuple[str, str]:
        """[x, y] on the screen, checked against its size."""
        if (not isinstance(coordinate, (list, tuple)) or len(coordinate) != 2
                or not all(isinstance(v, (int, float)) for v in coordinate)):
            raise InputError(f"coordinate must be [x, y], got {coordinate!r}")
        x, y = int(coordinate[0]), int(coordinate[1])
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise InputError(f"coordinate ({x}, {y}) is outside the {self.width}x{self.height} screen")
        return str(x), str(y)

    async def act(self, action: str, params: dict) -> str:
        """Do one computer-tool action (Anthropic's computer_20250124 set); returns a short text result."""
        coordinate = params.get("coordinate")
        move = ["mousemove", "--sync", *self.point(coordinate)] if coordinate is not None else []
        text = params.get("text")
        if action in MOUSE_BUTTONS or action in ("double_click", "triple_click"):
            repeat = {"double_click": "2", "triple_click": "3"}.get(action, "1")
            hold = ["keydown", text] if text else []  # a modifier held during the click ("shift")
            release = ["keyup", text] if text else []
            await self.xdotool(*move, *hold, "click", "--repeat", repeat, "--delay", "80",
                               MOUSE_BUTTONS.get(action, "1"), *release)
        elif action == "mouse_move":
            await self.xdotool(*self._need(move, action))
        elif action in ("left_mouse_down", "left_mouse_up"):
            await self.xdotool(*move, "mousedown" if action.endswith("down") else "mouseup", "1")
        elif action == "left_click_drag":
            start = ["mousemove", "--sync", *self.point(params.get("start_coordinate"))]
            await self.xdotool(*start, "mousedown", "1", *self._need(move, action), "mouseup", "1")
        elif action == "type":
            await self.xdotool("type", "--delay", str(TYPE_DELAY_MS), "--", self._text(text, action))
        elif action == "key":
            await self.xdotool("key", "--", *self._text(text, action).split())
        elif action == "hold_key":
            keys = self._text(text, action).split()
            await self.xdotool("keydown", *keys)
            await asyncio.sleep(min(float(params.get("duration") or 0.5), 10.0))
            await self.xdotool("keyup", *keys)
        elif action == "scroll":
            direction = params.get("scroll_direction") or "down"
            if direction not in SCROLL_BUTTONS:
                raise InputError(f"scroll_direction must be one of {', '.join(SCROLL_BUTTONS)}")
            amount = max(1, min(int(params.get("scroll_amount") or 3), 30))
            await self.xdotool(*move, "click", "--repeat", str(amount), "--delay", "30", SCROLL_BUTTONS[direction])
        elif action == "wait":
            await asyncio.sleep(min(float(params.get("duration") or 1.0), 10.0))
        elif action == "cursor_position":
            out = await self.xdotool("getmouselocation", "--shell")
            pos = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
            return f"X={pos.get('X')},Y={pos.get('Y')}"
        elif action != "screenshot":
            raise InputError(f"unknown action {action!r}")
        return "done"

    @staticmethod
    def _need(move: list[str], action: str) -> list[str]:
        if not move:
            raise InputError(f"{action} needs a coordinate")
        return move

    @staticmethod
    def _text(text: object, action: str) -> str:
        if not isinstance(text, str) or not text:
            raise InputError(f"{action} needs text")
        return text


def missing_tools() -> list[str]:
    return [tool for tool in ("xdotool", "ffmpeg") if shutil.which(tool) is None]
