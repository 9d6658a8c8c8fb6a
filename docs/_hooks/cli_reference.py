"""MkDocs hook: the CLI reference, generated at build time from the click definitions (clawrec/cli.py and
clawrec/commands/), so it says exactly what `clawrec COMMAND --help` says and cannot drift.

A page holds the marker `<!-- clawrec:cli-reference -->`; the hook replaces it with one section per command
(usage, help text, a table of every option as click's own help formats it). Ours rather than mkdocs-click 0.9.0:
that one renders click >= 8.3's UNSET default as `Sentinel.UNSET` and cuts help text at a `|`; this one asks click
for each option's help record (`Option.get_help_record`), the same call `--help` makes.
"""

from __future__ import annotations

import inspect

import click

MARKER = "<!-- clawrec:cli-reference -->"


def _literal(text: str) -> str:
    """Help text as Markdown that shows it as written: a `<id>` outside backticks is text, not an HTML tag."""
    parts = text.split("`")
    return "`".join(p if i % 2 else p.replace("&", "&amp;").replace("<", "&lt;") for i, p in enumerate(parts))


def _cell(text: str) -> str:
    """Text safe inside one Markdown table cell."""
    return _literal(" ".join(text.split())).replace("|", "\\|")


def _help_text(cmd: click.Command) -> str:
    """The command's help as Markdown paragraphs (click's `\\b` no-rewrap markers dropped)."""
    text = inspect.cleandoc(cmd.help or cmd.short_help or "")
    return _literal("\n".join(line for line in text.splitlines() if line.strip() != "\b"))


def _section(cmd: click.Command, ctx: click.Context, path: str, level: int) -> list[str]:
    """Markdown of one command and, for a group, its subcommands one level down."""
    out = [f"{'#' * level} `{path}`", ""]
    usage = " ".join([path, *cmd.collect_usage_pieces(ctx)])
    out += ["```", usage, "```", "", _help_text(cmd), ""]
    options = [p for p in cmd.get_params(ctx) if isinstance(p, click.Option)]  # arguments are in the usage line
    rows = [rec for p in options if (rec := p.get_help_record(ctx)) is not None]  # None: a hidden option
    if rows:
        out += ["| option | meaning |", "|---|---|"]
        out += [f"| `{' '.join(opts.split())}` | {_cell(help_) or '–'} |" for opts, help_ in rows]
        out.append("")
    if isinstance(cmd, click.Group):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                sub_ctx = click.Context(sub, info_name=name, parent=ctx)
                out += _section(sub, sub_ctx, f"{path} {name}", level + 1)
    return out


def cli_reference_markdown() -> str:
    """Every command of `clawrec`, in `clawrec --help` order, as Markdown."""
    from clawrec.cli import cli

    root = click.Context(cli, info_name="clawrec")
    lines = _section(cli, root, "clawrec", 2)
    return "\n".join(lines)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (the MkDocs hook signature)
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, cli_reference_markdown())
    return markdown
