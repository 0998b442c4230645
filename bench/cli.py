"""The ``bench`` command line. Subcommands live in ``bench.commands.*`` and load lazily."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

from core.errors import InputError

# command name -> "module:attribute" of a click command or group
COMMANDS: dict[str, tuple[str, str]] = {
    "list": ("bench.commands.info:list_cmd", "list puzzles, heuristics, solvers, models"),
    "show": ("bench.commands.info:show_cmd", "validate and pretty-print a state"),
    "scramble": ("bench.commands.info:scramble_cmd", "print seeded random states"),
    "pdb": ("bench.commands.pdb:pdb_group", "build and inspect pattern databases"),
    "h": ("bench.commands.pdb:h_cmd", "print heuristic values of states"),
    "macro": ("bench.commands.macro:macro_group", "show and build macro-operator tables"),
    "solve": ("bench.commands.solve:solve_cmd", "solve one state"),
    "view": ("bench.commands.view:view_cmd", "replay solutions and browse a run in the browser"),
    "train": ("bench.commands.train_models:train_group", "train learned heuristics"),
    "models": ("bench.commands.models:models_group",
               "list shipped and trained models, export them as ONNX, time them"),
    "run": ("bench.commands.suite:run_group", "run a benchmark suite"),
    "suite": ("bench.commands.suite:suite_group", "list and import suites"),
    "report": ("bench.commands.report:report_cmd", "tables and figures of a run"),
    "quality": ("bench.commands.report:quality_cmd", "heuristic quality against true distances"),
    "paper": ("bench.commands.paper:paper_cmd", "regenerate a published table"),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when invoked (fast ``--help``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        target = COMMANDS[name][0]
        module, _, attr = target.partition(":")
        try:
            return getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:  # a command not built yet
            reason = str(exc)

            @click.command(name, help=COMMANDS[name][1])
            def unavailable() -> None:
                raise click.ClickException(f"'{name}' is not available: {reason}")

            return unavailable

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_) for name, (_, help_) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


def _version() -> str:
    """The installed distribution's version, or the checkout's ``pyproject.toml`` version."""
    from importlib import metadata

    try:
        return metadata.version("heuristic-bench")
    except metadata.PackageNotFoundError:
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
        try:
            version = tomllib.loads(pyproject.read_text())["project"]["version"]
        except (OSError, KeyError, tomllib.TOMLDecodeError):
            return "unknown (not installed)"
        return f"{version} (checkout, not installed)"


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"bench {_version()}")
        ctx.exit()


@click.group(cls=LazyGroup)
@click.option("--version", is_flag=True, expose_value=False, is_eager=True,
              callback=_print_version, help="Show the version and exit.")
def cli() -> None:
    """heuristic-bench: pattern databases against learned heuristics, under interchangeable solvers."""


def _warn_plugins() -> None:
    """One line on stderr per plugin declaration left out (``core.plugins``)."""
    from core import registry

    for problem in registry.PLUGINS.problems:
        click.echo(f"warning: {problem}", err=True)


def _only_help_or_version(args: list[str]) -> bool:
    """Whether ``args`` ask for ``bench``'s own help or version (or nothing): answered
    without loading the registry, so no installed plugin's code runs."""
    return not args or args[0] in ("--help", "-h", "--version")


def main(argv: list[str] | None = None) -> Any:
    """Entry point: bad input becomes one line on stderr and exit status 2, never a traceback."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        if not _only_help_or_version(args):  # the group's own help loads no plugin
            _warn_plugins()
        return cli.main(args=argv, prog_name="bench", standalone_mode=False)
    except InputError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.exceptions.NoArgsIsHelpError as exc:  # a group named alone: its help
        if exc.ctx is not None:
            click.echo(exc.ctx.get_help())
        sys.exit(0)
    except click.UsageError as exc:  # bad option values, unknown options, missing arguments
        where = exc.ctx.command_path if exc.ctx is not None else "bench"
        message = " ".join(exc.format_message().split()).rstrip(".")
        click.echo(f"error: {message} (see '{where} --help')", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except (PermissionError, FileExistsError, IsADirectoryError, NotADirectoryError) as exc:
        # a read-only or odd output or cache folder: the path and the reason, no traceback
        where = f"{exc.filename}: " if exc.filename else ""
        click.echo(f"error: {where}{exc.strerror or exc}", err=True)
        sys.exit(2)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except MemoryError as exc:  # an allocation that a check did not foresee: no traceback
        text = " ".join(str(exc).split())
        click.echo(f"error: out of memory ({text or 'MemoryError'}); ask for less (a smaller "
                   "depth, width, batch or count) or give --memory-limit where the command "
                   "takes one", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    except OSError as exc:
        from core.safe_write import DISK_ERRNOS

        if exc.errno not in DISK_ERRNOS:
            raise
        # a full or read-only disk where no writer turned it into an InputError: one line
        where = f"{exc.filename}: " if exc.filename else ""
        click.echo(f"error: {where}cannot write ({exc.strerror or exc})", err=True)
        sys.exit(2)


if __name__ == "__main__":
    main()
