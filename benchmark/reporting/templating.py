"""The Jinja2 environment the HTML reporters share, and the page's Content-Security-Policy.

Autoescaping is on for every template, so anything taken from a results document (model
names, rationales, evidence notes, source excerpts) is escaped; undefined names raise. The
stylesheet is inlined and allowed by its sha256 in the CSP, which forbids everything else:
no images, fonts, frames or connections, so an opened report fetches nothing. A page may
carry scripts of ours (report.html: ``templates/leaderboard.js``, the leaderboard's search,
sort and filter), inlined and each allowed by the sha256 of its exact text; any other script,
inline or fetched, is refused, and there is no 'unsafe-inline'. A page without one has
``script-src 'none'``.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from importlib import resources
from typing import Any

from markupsafe import Markup

from .common import fixed, maximum, num
from .svg import pct_text

STYLESHEET = "report.css"
LEADERBOARD_SCRIPT = "leaderboard.js"


@lru_cache(maxsize=1)
def environment() -> Any:
    """The Jinja2 environment (jinja2 is imported on first use; see ``benchmark.engine.warmup``)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    class _Environment(Environment):
        """``x.name`` on a plain dict looks the key up first. Jinja2 tries the attribute first,
        and the failed attribute lookup (an exception) costs more than the rest of rendering
        a check row; view models and results are plain dicts, so the outcome is the same."""

        def getattr(self, obj: Any, attribute: str) -> Any:
            if type(obj) is dict and attribute in obj:
                return obj[attribute]
            return super().getattr(obj, attribute)

    env = _Environment(
        loader=PackageLoader("benchmark", "reporting/templates"),
        bytecode_cache=_bytecode_cache(),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(fixed=fixed, maximum=maximum, num=num, pct=pct_text)
    return env


def _bytecode_cache() -> Any:
    """Jinja2's own cache of compiled templates, in the private per-user folder it creates and
    checks (``/tmp/_jinja2-cache-<uid>``: ours, mode 0700, not a link), keyed by each
    template's source checksum and Jinja2's version. Compiling report.html.j2 costs about
    17 ms a run without it. A folder it cannot use, or a write that fails, costs only that."""
    from jinja2 import FileSystemBytecodeCache

    class _Cache(FileSystemBytecodeCache):
        def dump_bytecode(self, bucket: Any) -> None:
            try:
                super().dump_bytecode(bucket)
            except OSError:
                pass

    try:
        return _Cache()
    except (OSError, RuntimeError):
        return None


def _template_text(name: str) -> str:
    return resources.files("benchmark").joinpath("reporting", "templates", name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def stylesheet() -> str:
    return _template_text(STYLESHEET)


@lru_cache(maxsize=1)
def leaderboard_script() -> str:
    return _template_text(LEADERBOARD_SCRIPT)


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


def content_security_policy(css: str, scripts: tuple[str, ...] = ()) -> str:
    """Everything denied except the one inline stylesheet and the given inline scripts, each
    by the hash of its exact text (no script at all when there is none)."""
    script_src = " ".join(_sha256(script) for script in scripts) or "'none'"
    return (f"default-src 'none'; script-src {script_src}; connect-src 'none'; img-src 'none'; "
            "font-src 'none'; media-src 'none'; object-src 'none'; frame-src 'none'; "
            "worker-src 'none'; manifest-src 'none'; form-action 'none'; base-uri 'none'; "
            f"style-src {_sha256(css)}")


def render_page(template: str, scripts: tuple[str, ...] = (), **context: Any) -> str:
    """Render ``template`` with the shared stylesheet, ``scripts`` (our own inline scripts,
    written by ``_page.html.j2`` at the end of the body) and the CSP allowing exactly them in
    ``page``."""
    css = stylesheet()
    page = {"css": Markup(css), "csp": content_security_policy(css, scripts),
            "scripts": [Markup(script) for script in scripts]}
    return environment().get_template(template).render(page=page, **context)
