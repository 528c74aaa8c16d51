"""The built-in check types. Importing this package registers every one of them in
``benchmark.packs.registry.CHECK_TYPES``; each module holds one role:

* ``static``: ``compiles`` and the structural ``ast.*`` types (defines, signature, imports,
  type hints, main guard, docstrings);
* ``quality``: habits read from the tree (exceptions, names, files, logging, loops);
* ``tools``: ``bandit.*`` and ``radon.*``;
* ``runs``: ``exec.*`` over script runs, and the per-run loop ``output.*`` shares;
* ``outputs``/``accuracy``: ``output.*`` against expected values;
* ``cases``: ``cases.*`` over function calls;
* ``documents``: ``parse.*`` over submitted YAML/JSON.
"""

from . import accuracy, cases, documents, outputs, quality, runs, static, tools  # noqa: F401

__all__ = ["accuracy", "cases", "documents", "outputs", "quality", "runs", "static", "tools"]
