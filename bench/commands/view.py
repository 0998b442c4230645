"""``bench view``: watch solutions and browse a run in the browser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from bench.commands.solve import solve_options, solve_state, summary_text
from core.errors import InputError


@click.command("view")
@click.argument("target", metavar="RUN_DIR|PUZZLE")
@click.argument("state", required=False)
@solve_options
@click.option("--compare", "compare", multiple=True, metavar="H",
              help="PUZZLE STATE: also plot heuristic H (default options) along the path "
                   "(repeatable)")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="port to listen on [default: a free port]")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="address to listen on (another than this machine's loopback shares the "
                   "viewer on the network)")
@click.option("--no-browser", is_flag=True,
              help="do not open the system browser (it opens when there is a display)")
def view_cmd(target: str, state: str | None, moves: str | None, goal: str | None,
             heuristic_name: str | None, solver_name: str | None, time_limit: str | None,
             node_limit: str | None, memory_limit: str | None, compare: tuple[str, ...],
             port: int, host: str, no_browser: bool, **options: str | None) -> None:
    """Serve a local page that replays solutions.

    RUN_DIR (a folder of `bench run suite`, or a results folder with results.csv): the run's
    summary table, its figures and a replay of every row, with the heuristic values of the
    run's heuristics along the path. PUZZLE STATE (or PUZZLE --scramble MOVES): solve as
    `bench solve` does and replay the solution.
    """
    from bench.view import server
    from bench.view.sources import RunSource, SolveSource

    given: dict[str, Any] = {"moves": moves, "goal": goal, "heuristic_name": heuristic_name,
                             "solver_name": solver_name, "time_limit": time_limit,
                             "node_limit": node_limit, "memory_limit": memory_limit,
                             **options}
    run_dir = Path(target)
    source: Any
    if run_dir.is_dir():
        extra = [k for k, v in given.items() if v is not None]
        if state is not None:
            raise InputError(f"STATE: {target} is a run folder; a state goes with a puzzle name")
        if extra or compare:
            flag = "--compare" if not extra else _flag(extra[0])
            raise InputError(f"{flag}: applies to 'bench view PUZZLE STATE', not to a run folder")
        source = RunSource(run_dir)
        figures: Path | None = run_dir
        click.echo(f"{run_dir}: {len(source.rows)} rows, {len(source.figures)} figures")
    else:
        from core import registry

        if "/" in target or target.startswith(".") or Path(target).exists():
            raise InputError(f"RUN_DIR: {target} is not a folder")
        try:
            registry.puzzle_entry(target)
        except InputError as exc:
            raise InputError(f"RUN_DIR|PUZZLE: {target!r} is neither a folder nor a puzzle "
                             f"name ({exc})") from None
        for name in compare:
            registry.heuristic_entry(name)
        solved = solve_state(target, state, moves, goal, heuristic_name, solver_name,
                             time_limit, node_limit, memory_limit, options)
        text = summary_text(solved.puzzle, solved.state, solved.result)
        click.echo(text)
        source = SolveSource(solved, text, compare)
        figures = None
    app = server.create_app(source, figures)
    server.serve(app, host, port, not no_browser, click.echo)


def _flag(name: str) -> str:
    return {"moves": "--scramble", "heuristic_name": "--heuristic",
            "solver_name": "--solver"}.get(name, "--" + name.replace("_", "-"))
