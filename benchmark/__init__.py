"""RubricBench: a sandboxed grader for pre-generated, LLM-written code."""

__version__ = "0.1.0"


def missing_dependency(exc: ModuleNotFoundError) -> str | None:
    """What to run when ``exc`` says a package the grader needs is not installed for this
    Python (standard library only: said where importing the grader itself failed), or None
    when the missing module is the grader's own (a bug, to raise)."""
    import sys

    if not exc.name or exc.name.split(".")[0] == __name__:
        return None
    return (f"the grader's dependency {exc.name!r} is not installed for {sys.executable}: run `make setup` "
            f"and then `.venv/bin/python run_benchmark.py ...`, or `pip install .` (docs: README.md)")
