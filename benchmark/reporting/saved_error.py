"""The error of the saved-results commands (``--report-only``, ``--compare``), in a module of
its own so the command line can catch it without importing them (``saved_runs`` is loaded
only when one of them, or ``--fail-under``, is asked for)."""


class SavedRunError(ValueError):
    """A saved results file is missing, unreadable, not JSON or not valid against the schema,
    or what is built from it cannot be written."""
