"""Run the ``bench`` command line in-process: ``run_cli(capsys, *args) -> (exit code, out, err)``."""

from __future__ import annotations

from bench.cli import main


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err
