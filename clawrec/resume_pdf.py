"""A deterministic multi-page text PDF for the imported ClawBench résumé (same bytes for the same lines).

Why hand-written and not a PDF library: a few pages of Helvetica text are all that is needed, and fixed bytes (no
creation date, no random ids) keep `clawrec import-clawbench` idempotent and let a test compare a caught upload's
sha256 with the file. sites/pdf.py is the one-page variant for the demo résumé; this one wraps long lines, breaks
pages and writes WinAnsi (cp1252) text so that dashes and accents survive.
"""

from __future__ import annotations

import textwrap

# style → (font, size, leading); widths are wrapped at ~0.52 em a character (Helvetica's average)
STYLE = {"title": ("F2", 20, 28), "sub": ("F1", 10, 18), "head": ("F2", 12.5, 22), "bold": ("F2", 10, 15),
         "text": ("F1", 9.5, 13), "rule": ("F1", 10, 10)}
LEFT, RIGHT, TOP, BOTTOM = 56, 556, 750, 56


def _esc(text: str) -> bytes:
    raw = text.encode("cp1252", errors="replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def layout(lines: list[tuple[str, str]]) -> list[list[bytes]]:
    """Content-stream operators per page."""
    pages: list[list[bytes]] = [[]]
    y = float(TOP)
    for kind, text in lines:
        font, size, lead = STYLE[kind]
        chunks = [""] if kind == "rule" else textwrap.wrap(text, width=int((RIGHT - LEFT) / (size * 0.52)),
                                                           subsequent_indent="  " if text.startswith("- ") else "")
        for chunk in chunks or [""]:
            if y - lead < BOTTOM or (kind == "head" and y - 3 * lead < BOTTOM):
                pages.append([])
                y = float(TOP)
            if kind == "rule":
                pages[-1].append(b"0.2 0.4 0.3 RG 1 w %d %.1f m %d %.1f l S" % (LEFT, y, RIGHT, y))
            else:
                color = b"0.08 0.33 0.18 rg" if kind in ("title", "head") else b"0.1 0.1 0.1 rg"
                pages[-1].append(b"BT %s /%s %g Tf %d %.1f Td (%s) Tj ET" % (color, font.encode(), size, LEFT, y,
                                                                               _esc(chunk)))
            y -= lead
    return pages


def build_pdf(lines: list[tuple[str, str]], title: str = "Resume") -> bytes:
    """Objects: 1 catalog, 2 page tree, 3-4 fonts, then a (page, content) pair per page."""
    pages = layout(lines)
    kids = " ".join(f"{5 + 2 * i} 0 R" for i in range(len(pages))).encode()
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>",
               b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(pages)),
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
               b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>"]
    for i, ops in enumerate(pages):
        content = b"\n".join(ops)
        objects.append(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents %d 0 R"
                       b" /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> >>" % (6 + 2 * i))
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info << /Title (%s) >> >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, _esc(title), xref)
    return bytes(out)
