"""The sentence a user reads for an exception a coroutine or slot raised (the main window's and the quick
prompt's error display): our own errors already say what happened and what to do; anything else is named and
points to the log."""

from __future__ import annotations


def describe_exception(exc: BaseException) -> str:
    """A user-facing sentence for an exception: our own errors already say what to do."""
    from desktop_app.runtime.errors import SwitchboardError  # json and the redaction's patterns: not before paint

    if isinstance(exc, SwitchboardError):
        return str(exc)
    return f"Something went wrong ({type(exc).__name__}: {exc}). See the log for details and try again."
