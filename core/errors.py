"""The error every layer raises for bad user input."""

from __future__ import annotations


class InputError(ValueError):
    """Bad user input. The message is one line that names the argument and the fault.

    The CLI prints ``error: <message>`` on stderr and exits with status 2.
    """
