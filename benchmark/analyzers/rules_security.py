"""AST security rules behind ``SecurityAnalyzer``; each returns ``[(line, message)]``.

These complement bandit; they judge names and structure only (never comments or the
contents of strings, apart from a secret's value being a non-empty literal).
"""

from __future__ import annotations

import ast
import re

from .memo import nodes_of
from .normalize import iter_defs
from .resolve import ImportResolver, resolver_for
from .scopes import mentions, names_assigned, scope_map

Finding = tuple[int, str]

# --- SQL built from strings -------------------------------------------------------------
_SQL_SINKS = frozenset({"execute", "executemany", "executescript", "read_sql", "read_sql_query"})


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def builds_string(node: ast.expr, dynamic: set[str] = frozenset()) -> bool:
    """An f-string with fields, ``%``-formatting, ``.format()`` or ``+`` of string and value."""
    if isinstance(node, ast.Name):
        return node.id in dynamic
    if isinstance(node, ast.JoinedStr):
        return any(isinstance(part, ast.FormattedValue) for part in node.values)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Attribute) and node.func.attr == "format"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return _is_str(node.left) or builds_string(node.left, dynamic)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        sides = (node.left, node.right)
        if any(builds_string(side, dynamic) for side in sides):
            return True
        return any(map(_is_str, sides)) and not all(isinstance(s, ast.Constant) for s in sides)
    return False


def _query_argument(call: ast.Call) -> ast.expr | None:
    for item in call.keywords:
        if item.arg in ("sql", "query", "operation"):
            return item.value
    return call.args[0] if call.args else None


def sql_findings(tree: ast.Module) -> list[Finding]:
    """``execute()``-style calls whose query is built from strings (directly or via a name)."""
    owner = scope_map(tree)
    dynamic = names_assigned(tree, owner, builds_string)
    findings = []
    for node in nodes_of(tree, ast.Call):
        if not isinstance(node.func, ast.Attribute):
            continue
        query = _query_argument(node)
        if node.func.attr not in _SQL_SINKS or query is None:
            continue
        if builds_string(query, dynamic.get(id(owner[id(node)]), set())):
            message = f"query passed to .{node.func.attr}() is built by string formatting"
            findings.append((node.lineno, message + "; use parameters"))
    return sorted(findings)


# --- hard-coded secrets -----------------------------------------------------------------
_SECRET_NAME = re.compile(r"passw(or)?d|passwd|pwd|secret|token|api_?key", re.IGNORECASE)
# Names that hold *where* a secret lives, not the secret itself.
_NOT_SECRET = re.compile(
    r"(^|_)(env|var|url|uri|file|path|header|type|name|field|endpoint|prefix|pattern)s?$",
    re.IGNORECASE,
)
_ENV_VAR_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


def _secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name)) and not _NOT_SECRET.search(name)


def _secret_value(node: ast.AST | None) -> bool:
    return _is_str(node) and bool(node.value.strip()) and not _ENV_VAR_NAME.match(node.value)


def _named_values(tree: ast.Module):
    for node in nodes_of(tree, ast.Assign, ast.AnnAssign, ast.Dict):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")
                yield node.lineno, name, node.value
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if _is_str(key):
                    yield key.lineno, key.value, value


def secret_findings(tree: ast.Module) -> list[Finding]:
    """Non-empty string literals bound to secret-looking names (password, token, api_key ...).

    Not reported: names that say where a secret lives (``TOKEN_URL``, ``API_KEY_ENV``) and
    values shaped like an environment variable name (``"OPENAI_API_KEY"``).
    """
    return sorted(
        (line, f"hard-coded secret assigned to '{name}'")
        for line, name, value in _named_values(tree)
        if _secret_name(name) and _secret_value(value)
    )


# --- path traversal ---------------------------------------------------------------------
_SANITIZERS = frozenset({"resolve", "realpath", "abspath", "is_relative_to", "relative_to",
                         "commonpath", "basename", "secure_filename"})
_PATH_SINKS = frozenset({"open", "read_text", "write_text", "read_bytes", "write_bytes"})
_JOINERS = frozenset({"os.path.join", "posixpath.join", "ntpath.join"})
_PATH_TYPES = frozenset({"Path", "pathlib.Path", "PurePath", "pathlib.PurePath"})


def _joins(node: ast.expr, tainted: set[str], resolver: ImportResolver) -> bool:
    """A path expression that joins something onto a tainted (parameter-derived) name."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Add)):
        return bool(mentions(node, tainted))
    if isinstance(node, ast.JoinedStr):
        return bool(mentions(node, tainted))
    if not isinstance(node, ast.Call) or not mentions(node, tainted):
        return False
    names = resolver.resolve(node.func)
    if names & _JOINERS:
        return True
    if names & _PATH_TYPES:
        return len(node.args) >= 2
    return isinstance(node.func, ast.Attribute) and node.func.attr == "joinpath"


def _sanitized(function: ast.AST) -> bool:
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _SANITIZERS:
                return True
    return False


def _sink_target(call: ast.Call) -> ast.expr | None:
    func = call.func
    if isinstance(func, ast.Name) and func.id == "open":
        return call.args[0] if call.args else None
    if isinstance(func, ast.Attribute) and func.attr in _PATH_SINKS:
        return func.value
    return None


def _joined_names(function: ast.AST, params: set[str], resolver: ImportResolver) -> set[str]:
    joined: set[str] = set()
    assigns = [n for n in ast.walk(function) if isinstance(n, ast.Assign)]
    for node in sorted(assigns, key=lambda n: n.lineno):
        names = {t.id for t in node.targets if isinstance(t, ast.Name)}
        if _joins(node.value, params | joined, resolver) or mentions(node.value, joined):
            joined |= names
    return joined


def path_findings(tree: ast.Module) -> list[Finding]:
    """Opens of paths joined from a function's parameters, with no containment check.

    Heuristic: in a function, a path built by ``os.path.join``/``Path(a, b)``/``/``/``+``/
    f-string/``joinpath`` from a parameter (directly or through assigned names) and then
    opened or read/written is reported, unless the function calls any of ``resolve``,
    ``realpath``, ``abspath``, ``is_relative_to``, ``relative_to``, ``commonpath``,
    ``basename`` or ``secure_filename``. A parameter opened as given is the caller's choice
    and is not reported.
    """
    resolver = resolver_for(tree)
    findings = []
    for _, function in iter_defs(tree):
        params = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
        params -= {"self", "cls"}
        if not params or _sanitized(function):
            continue
        joined = _joined_names(function, params, resolver)
        for node in ast.walk(function):
            target = _sink_target(node) if isinstance(node, ast.Call) else None
            if target is not None and (_joins(target, params | joined, resolver)
                                       or mentions(target, joined)):
                findings.append((node.lineno, "file opened on a path joined from a parameter "
                                 "without resolve()/is_relative_to() containment check"))
    return sorted(set(findings))


# --- certificate verification turned off ------------------------------------------------
_UNVERIFIED_CONTEXT = "_create_unverified_context"
_UNVERIFIED = frozenset({_UNVERIFIED_CONTEXT, "CERT_NONE"})
_OFF_SETTINGS = frozenset({"verify", "check_hostname"})  # ``x.verify = False`` and alike


def _false(node: ast.AST | None) -> bool:
    """The literal ``False`` or ``0``: what switches a setting such as ``verify`` off."""
    return isinstance(node, ast.Constant) and type(node.value) in (bool, int) and node.value == 0


def _unverified_names(tree: ast.Module) -> list[Finding]:
    """Uses of ``ssl._create_unverified_context`` (also imported under another name) and
    ``CERT_NONE`` (not comparisons with it); ``cert_reqs="CERT_NONE"`` as a keyword argument
    (urllib3's spelling)."""
    compared = {id(side) for node in nodes_of(tree, ast.Compare)
                for side in (node.left, *node.comparators)}
    found = []
    for node in nodes_of(tree, ast.Attribute, ast.Name, ast.ImportFrom, ast.keyword):
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None) \
            if isinstance(node, ast.Name) else None
        if name in _UNVERIFIED and id(node) not in compared:
            found.append((node.lineno, f"certificate checks disabled ({name})"))
        elif isinstance(node, ast.ImportFrom) and any(a.name == _UNVERIFIED_CONTEXT and a.asname
                                                      for a in node.names):  # renamed on import
            found.append((node.lineno, f"certificate checks disabled ({_UNVERIFIED_CONTEXT})"))
        elif isinstance(node, ast.keyword) and node.arg == "cert_reqs" and \
                isinstance(node.value, ast.Constant) and node.value.value in ("CERT_NONE", "NONE"):
            found.append((node.value.lineno, "certificate checks disabled (cert_reqs='CERT_NONE')"))
    return found


def tls_findings(tree: ast.Module) -> list[Finding]:
    """Code that turns certificate verification off: ``verify=False`` in any call,
    ``session.verify = False`` or ``ctx.check_hostname = False``, ``CERT_NONE``,
    ``ssl._create_unverified_context``. ``urllib3.disable_warnings()`` (which hides the
    warning an unverified request gives) is reported only beside one of those."""
    found = _unverified_names(tree)
    silenced = []
    for node in nodes_of(tree, ast.Call, ast.Assign, ast.AnnAssign, ast.AugAssign):
        if isinstance(node, ast.Call):
            found += [(node.lineno, "certificate checks disabled (verify=False)")
                      for item in node.keywords if item.arg == "verify" and _false(item.value)]
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == "disable_warnings":
                silenced.append((node.lineno, "the insecure-request warning silenced"))
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        value = getattr(node, "value", None)
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in _OFF_SETTINGS and _false(value):
                found.append((node.lineno, f"certificate checks disabled (.{target.attr} = False)"))
    return sorted(set(found + (silenced if found else [])))
