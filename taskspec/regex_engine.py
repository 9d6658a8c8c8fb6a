"""URL regexes on a linear-time engine (RE2): a page cannot stall the event loop with a URL that backtracks.

Python's `re` backtracks: `url_regex: 'http://h/(a+)+$'` against `http://h/aaaa…a!` (29 a's) blocked the CDP
reader loop for tens of seconds (the hardening probe's run with `--time-limit 15` took 41.8 s). RE2 matches in time
linear in the URL. Its syntax differs from Python's in small ways (`{,3}`, `\\Z`, `\\u0041`, Unicode `\\d`/`\\s`),
so a pattern is parsed by Python's own regex parser and re-emitted as RE2 syntax with the same meaning; what RE2
cannot do (lookaround, backreferences, conditionals, atomic groups, possessive repeats, repeats over 1000) is
refused with one clear message (`RegexError`), which `clawrec validate` reports as `FILE:LINE: field: …`.

Known approximation: `\\b`/`\\B` are ASCII word boundaries in RE2 (URLs reach us ASCII: Chrome percent-encodes
paths and queries and punycodes hosts).
"""

from __future__ import annotations

import functools
import re
import warnings
from re import _constants as C, _parser as P  # Python's own regex parser (3.11+ names it privately)
from typing import Any

import re2

__all__ = ["LinearPattern", "RegexError", "compile_regex", "regex_problem", "to_re2"]

MAX_PATTERN_CHARS = 10_000   # a URL pattern longer than this is a mistake (and RE2's program would be large)
MAX_REPEAT = 1000            # RE2's limit for {m,n}
_FLAGS = ((re.IGNORECASE, "i"), (re.MULTILINE, "m"), (re.DOTALL, "s"))
_UNSUPPORTED = {
    C.ASSERT: "lookahead/lookbehind '(?=', '(?!', '(?<=', '(?<!'",
    C.ASSERT_NOT: "lookahead/lookbehind '(?=', '(?!', '(?<=', '(?<!'",
    C.GROUPREF: "backreferences ('\\1', '(?P=name)')",
    C.GROUPREF_EXISTS: "conditional groups '(?(1)…)'",
    C.ATOMIC_GROUP: "atomic groups '(?>…)'",
    C.POSSESSIVE_REPEAT: "possessive repeats ('a*+', 'a++')",
}
# Python's Unicode classes (str patterns), spelled in RE2; `(ascii, unicode)` class bodies.
_CLASS_BODY = {
    C.CATEGORY_DIGIT: ("0-9", r"\p{Nd}"),
    C.CATEGORY_WORD: ("0-9A-Za-z_", r"\p{L}\p{N}_"),
    C.CATEGORY_SPACE: (r"\t\n\x{0b}\f\r \x{1c}-\x{1f}", r"\t\n\x{0b}\f\r \x{1c}-\x{1f}\x{85}\p{Z}"),
}
_NOT = {C.CATEGORY_NOT_DIGIT: C.CATEGORY_DIGIT, C.CATEGORY_NOT_WORD: C.CATEGORY_WORD,
        C.CATEGORY_NOT_SPACE: C.CATEGORY_SPACE}
_AT = {C.AT_BEGINNING: "^", C.AT_BEGINNING_STRING: r"\A", C.AT_END: "$", C.AT_END_STRING: r"\z",
       C.AT_BOUNDARY: r"\b", C.AT_NON_BOUNDARY: r"\B"}


class RegexError(ValueError):
    """A pattern Python cannot parse or RE2 cannot run; the message is one line for the user."""


def _char(code: int) -> str:
    ch = chr(code)
    return ch if ch.isalnum() and code < 128 else f"\\x{{{code:x}}}"


class _Emitter:
    """Walks Python's parse tree (iteratively: a deeply nested pattern cannot overflow the stack) and writes RE2."""

    def __init__(self, ascii_only: bool) -> None:
        self.ascii = ascii_only

    def category(self, cat: Any) -> str:
        if cat in _NOT:
            return f"[^{_CLASS_BODY[_NOT[cat]][0 if self.ascii else 1]}]"
        return f"[{_CLASS_BODY[cat][0 if self.ascii else 1]}]"

    def char_class(self, items: list) -> str:
        negate = bool(items) and items[0][0] is C.NEGATE
        body, extra = [], []
        for op, arg in items[1:] if negate else items:
            if op is C.LITERAL:
                body.append(_char(arg))
            elif op is C.RANGE:
                body.append(f"{_char(arg[0])}-{_char(arg[1])}")
            elif op is C.CATEGORY and arg in _CLASS_BODY:
                body.append(_CLASS_BODY[arg][0 if self.ascii else 1])
            elif op is C.CATEGORY and arg in _NOT:
                if negate:
                    raise RegexError("a negated class with \\D, \\W or \\S inside ('[^\\W…]') is not supported; "
                                     "write the characters out")
                extra.append(self.category(arg))
            else:
                raise RegexError(f"unsupported item in a character class: {op}")
        if not body and not extra:
            return "[^\\x{0}-\\x{10ffff}]" if not negate else "(?s:.)"
        parts = ([f"[{'^' if negate else ''}{''.join(body)}]"] if body else []) + extra
        return parts[0] if len(parts) == 1 else f"(?:{'|'.join(parts)})"

    def emit(self, tree: P.SubPattern) -> str:
        """Python parse tree → RE2 source; an explicit stack of (items, index, closing text)."""
        out: list[str] = []
        stack: list[tuple[list, int, str]] = [(list(tree), 0, "")]
        while stack:
            items, i, close = stack.pop()
            if i >= len(items):
                out.append(close)
                continue
            stack.append((items, i + 1, close))
            op, arg = items[i]
            if op in _UNSUPPORTED:
                raise RegexError(f"{_UNSUPPORTED[op]} are not supported (url_regex runs on RE2, a linear-time "
                                 f"engine)")
            if op is C.LITERAL:
                out.append(_char(arg))
            elif op is C.NOT_LITERAL:
                out.append(f"[^{_char(arg)}]")
            elif op is C.ANY:
                out.append(".")
            elif op is C.IN:
                out.append(self.char_class(arg))
            elif op is C.CATEGORY:
                out.append(self.category(arg))
            elif op is C.AT:
                out.append(_AT[arg])
            elif op is C.BRANCH:
                alternatives = arg[1]
                seq: list = []
                for j, alt in enumerate(alternatives):
                    if j:
                        seq.append(("|", None))
                    seq.extend(alt)
                out.append("(?:")
                stack.append((seq, 0, ")"))
            elif op is C.SUBPATTERN:
                _group, add, delete, sub = arg
                on = "".join(f for flag, f in _FLAGS if add & flag)
                off = "".join(f for flag, f in _FLAGS if delete & flag)
                if (add | delete) & re.ASCII:
                    raise RegexError("a local (?a:…) group is not supported; put (?a) at the start")
                out.append(f"(?{on}{'-' + off if off else ''}:")
                stack.append((list(sub), 0, ")"))
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
                lo, hi, sub = arg
                if lo > MAX_REPEAT or (hi is not C.MAXREPEAT and hi > MAX_REPEAT):
                    raise RegexError(f"a repeat count over {MAX_REPEAT} is not supported")
                bound = {(0, C.MAXREPEAT): "*", (1, C.MAXREPEAT): "+", (0, 1): "?"}.get(
                    (lo, hi), f"{{{lo},}}" if hi is C.MAXREPEAT else f"{{{lo},{hi}}}")
                out.append("(?:")
                stack.append((list(sub), 0, ")" + bound + ("?" if op is C.MIN_REPEAT else "")))
            elif op == "|":
                out.append("|")
            else:
                raise RegexError(f"unsupported regex construct {op}")
        return "".join(out)


def to_re2(pattern: str, flags: int = 0) -> str:
    """The RE2 spelling of a Python regex (same strings match); raises RegexError."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise RegexError(f"longer than {MAX_PATTERN_CHARS} characters")
    try:
        with warnings.catch_warnings():  # "Possible nested set": Python's own future-syntax notice, not for users
            warnings.simplefilter("ignore", FutureWarning)
            tree = P.parse(pattern, flags)
    except re.error as exc:
        raise RegexError(str(exc)) from None
    except (RecursionError, OverflowError, ValueError) as exc:
        raise RegexError(f"cannot be parsed ({type(exc).__name__})") from None
    state = tree.state.flags
    if state & re.VERBOSE:
        state &= ~re.VERBOSE  # the parser already dropped the whitespace and comments
    prefix = "".join(f for flag, f in _FLAGS if state & flag)
    body = _Emitter(bool(state & re.ASCII)).emit(tree)
    return f"(?{prefix}){body}" if prefix else body


class LinearPattern:
    """A compiled URL pattern: `fullmatch`/`search` like `re.Pattern` (truthy result), linear time.
    `pattern` is the Python source it was made from."""

    __slots__ = ("pattern", "re2_source", "_rx")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.re2_source = to_re2(pattern, flags)
        options = re2.Options()
        options.log_errors = False  # RE2 would print its parse errors on stderr
        try:
            self._rx = re2.compile(self.re2_source, options)
        except re2.error as exc:
            message = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) \
                else str(exc)
            raise RegexError(f"not supported by RE2 (the linear-time engine url_regex runs on): {message}") from None

    def fullmatch(self, text: str) -> Any:
        return self._rx.fullmatch(text)

    def search(self, text: str) -> Any:
        return self._rx.search(text)

    def __repr__(self) -> str:
        return f"LinearPattern({self.pattern!r})"


@functools.lru_cache(maxsize=4096)
def compile_regex(pattern: str, flags: int = 0) -> LinearPattern:
    """Compile once per pattern (cached); raises RegexError."""
    return LinearPattern(pattern, flags)


def regex_problem(pattern: str) -> str | None:
    """Why `pattern` cannot be a url_regex (None when it can): Python cannot parse it, or RE2 cannot run it."""
    try:
        compile_regex(pattern)
    except RegexError as exc:
        return str(exc)
    return None
