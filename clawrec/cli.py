"""The `clawrec` command. Each subcommand lives in its own module under clawrec/commands/ and is
imported only when invoked, so `clawrec --help` stays fast and one broken feature cannot break the rest."""

from __future__ import annotations

import errno
import importlib
import sys

import click

from clawrec import __version__
from clawrec.errors import ClawrecError, UsageError

# name -> (module under clawrec.commands, attribute, one-line help). Help is repeated here so that
# `clawrec --help` lists every command without importing it.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "validate": ("validate", "validate", "Check task specs; one line FILE:LINE: field: message per problem."),
    "import-clawbench": ("import_clawbench", "import_clawbench", "Convert ClawBench task.json files into v1 specs."),
    "sites": ("sites", "sites", "Serve the local live-like websites."),
    "factory": ("factory", "factory", "Generate sites with ground truth, serve them, measure clawrec on them."),
    "intercept": ("intercept", "intercept", "Attach to a running browser and block a spec's terminal requests."),
    "run": ("run", "run", "Run one task with an agent in an instrumented browser."),
    "record": ("record", "record", "Record a person doing a task (reference run); --vnc, hold mode."),
    "check-spec": ("check_spec", "check_spec", "Check a spec's rules offline against recorded runs."),
    "judge": ("judge", "judge", "Judge a run (payload and/or LLM judge) against its reference."),
    "annotate": ("annotate", "annotate", "Turn a recorded run into an interception spec (ranked candidates)."),
    "diagnose": ("diagnose", "diagnose", "Align a run's actions with its reference; show where it diverged."),
    "view": ("view", "view", "Render a run as one self-contained report.html (timeline, video, verdict)."),
    "sf-pool": ("sf_pool", "sf_pool", "Manage the Salesforce scratch-org pool (create, list, reap, limits)."),
    "apps": ("apps", "apps", "Real web applications as environments: list, install, serve NAME, reset NAME."),
    "bench": ("bench", "bench", "Run tasks × agents × trials in parallel, resumably; one results table."),
    "judge-agreement": ("judge_agreement", "judge_agreement", "Agreement of judges with human labels (Cohen's κ)."),
    "sop": ("sop", "sop", "Write a standard operating procedure (SOP) from a run, values as placeholders."),
    "consistency": ("consistency", "consistency", "Execution consistency of runs of one task (0-1 per pair)."),
    "consistency-agreement": ("consistency", "consistency_agreement",
                              "Agreement of the consistency score with labelled pairs (accuracy, F1, threshold)."),
    "archive": ("archive", "archive", "Package a run's web archive as WACZ (pywb, ReplayWeb.page open it)."),
    "export": ("export", "export", "Write runs in other tools' formats (export inspect: a bench as an Inspect log)."),
    "schema": ("schema", "schema", "Print the JSON Schema of a file format (spec: the task spec, for editors)."),
}


class LazyGroup(click.Group):
    """A click group whose subcommands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self._available())

    def _available(self) -> dict[str, tuple[str, str, str]]:
        found = {}
        for name, (mod, attr, short) in COMMANDS.items():
            if importlib.util.find_spec(f"clawrec.commands.{mod}") is not None:
                found[name] = (mod, attr, short)
        return found

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        entry = self._available().get(name)
        if entry is None:
            return None
        module = importlib.import_module(f"clawrec.commands.{entry[0]}")
        return getattr(module, entry[1])

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, short) for name, (_m, _a, short) in sorted(self._available().items())]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="clawrec")
def cli() -> None:
    """clawrec: run browser agents on real sites; block only the final submission; record and judge."""


def _interrupted() -> int:
    """Ctrl-C outside a run's own handling (a run finalizes its layers and manifest, and says so, itself)."""
    click.echo("clawrec: interrupted", err=True)
    return 130


def main(argv: list[str] | None = None) -> int:
    """Entry point: expected failures become one line `clawrec: …` and an exit code, never a traceback."""
    try:
        rv = cli.main(args=argv, prog_name="clawrec", standalone_mode=False)
    except click.exceptions.Abort:
        return _interrupted()  # click turns Ctrl-C into Abort
    except click.exceptions.ClickException as exc:
        click.echo(f"clawrec: {exc.format_message()}", err=True)
        return 2
    except UsageError as exc:
        click.echo(f"clawrec: {exc.cli_message()}", err=True)
        return exc.exit_code
    except ClawrecError as exc:
        click.echo(f"clawrec: {exc}", err=True)
        return exc.exit_code
    except KeyboardInterrupt:
        return _interrupted()
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        from rundir.writeguard import describe  # a full disk is the user's to fix: one line naming the file

        click.echo(f"clawrec: {exc.filename or 'a file'}: {describe(exc)}", err=True)
        return 1
    except SystemExit as exc:  # click's --help / --version
        return int(exc.code or 0)
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())
