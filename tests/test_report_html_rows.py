"""The drill-down's category totals, child-run rows and graded-files note, built in Python by
``html_report`` (``_category_spans``, ``_run_row``, ``_graded_files``): the same text as the
template loops they replaced (as ``report.html.j2`` wrote them at f0f205f, rendered here
with the report's own Jinja2 environment; but for a gate's factor, which since issue 30 links
to the page's "How scores are computed" with the formula as its tooltip), for ordinary and
hostile values. Both sides read the same views (``benchmark.reporting.view``): the rows take
them, the loops take the view models the template was given, made from them."""

from __future__ import annotations

import pytest

from benchmark.reporting import templating
from benchmark.reporting.common import CATEGORY_NAMES, fixed, num
from benchmark.reporting.html_report import _category_spans, _graded_files, _run_row
from benchmark.reporting.view import Category, prompt_view

HOSTILE = '</td><script>window.__pwned = 1</script><img src=x onerror="x">&\'"'

# The loops as the template held them; the views as ``html_report`` built them for it.
REFERENCE = r"""
{% macro cats(categories) %}<div class="cats">{% for c in categories %}<span>{{ c.name }} <b>{{ c.earned }}/{{ c.max }}</b>{% if c.factor != "1.00" %} <a class="gate" href="#how-scores" title="{{ c.name }} scaled by how much of the prompt works (w = execution earned / execution maximum)">gate ×{{ c.factor }}</a>{% endif %}</span>{% endfor %}</div>{% endmacro %}

{% macro runs(execution) %}
{% for e in execution %}
<tr><td>{{ e.mode }}</td><td>{{ e.label }}</td><td class="num">{{ e.exit }}</td><td class="num">{{ e.wall }}</td><td class="num">{{ e.cpu }}</td><td class="num">{{ e.peak }}</td><td>{{ e.timed_out }}</td><td>{{ e.killed_by }}</td><td class="num">{{ e.blocked }}</td></tr>
{% endfor %}
{% endmacro %}

{% macro files(files) %}
{% if files %}<p class="note">Graded files: {% for name, digest in files %}<code>{{ name }}</code> <span class="mono">{{ (digest or 'unreadable')[:16] }}</span>{% if not loop.last %} · {% endif %}{% endfor %}</p>{% endif %}
{% endmacro %}
"""


def _reference():
    return templating.environment().from_string(REFERENCE).module


def _categories(detailed):
    """An odd ``detailed_scoring`` as the view's categories: each of the rubric's it names, its
    numbers as the rows read them before the view (``num``: 0 for anything but a number)."""
    def part(name):
        return detailed[name] if isinstance(detailed[name], dict) else {}

    return tuple(Category(name, num(part(name).get("earned")), num(part(name).get("max")),
                          num(part(name).get("factor", 1.0))) for name in CATEGORY_NAMES if name in detailed)


def _category_views(categories):
    return [{"name": c.name, "earned": fixed(c.earned, 2), "max": fixed(c.max, 1), "factor": fixed(c.factor, 2)}
            for c in categories if c.max > 0]


def _runs(entries):
    """Child-run entries as the view reads them (``view.prompt_view``)."""
    prompt = {"passed": False, "score": 0.0, "max_score": 1.0, "status": "ok", "feedback": [],
              "detailed_scoring": {}, "checks": [], "execution": list(entries)}
    return prompt_view("prompt_1", prompt).runs


def _run_view(run):
    """As the template's view was, but for a null, which shows as empty (it showed ``None``)."""
    def blank(value):
        return "" if value is None else value

    return {"mode": blank(run.mode), "label": blank(run.label),
            "exit": "—" if run.returncode is None else run.returncode, "wall": blank(run.wall_s),
            "cpu": blank(run.cpu_s), "peak": blank(run.peak_rss_mb),
            "timed_out": "yes" if run.timed_out else "no", "killed_by": blank(run.killed_by),
            "blocked": run.blocked_events}


DETAILED = [
    {},
    {"syntax": {"earned": 2.0, "max": 2.0, "factor": 1.0}, "security": {"earned": 1.25, "max": 5.0, "factor": 0.5},
     "execution": {"earned": 0.0, "max": 0.0, "factor": 1.0}, "quality": "not a mapping",
     "maintainability": {"earned": float("nan"), "max": 3, "factor": 0.996}, "unknown": {"max": 9}},
    {"performance": {"earned": True, "max": "4", "factor": None}, "structure": {"max": 1e300}},
]

RUNS = [
    {"mode": "script", "label": "fixture", "returncode": 0, "wall_s": 0.0535, "cpu_s": 0.021,
     "peak_rss_mb": 24.3, "timed_out": False, "killed_by": None, "blocked_events": 0},
    {"mode": HOSTILE, "label": HOSTILE, "returncode": None, "wall_s": None, "timed_out": True,
     "killed_by": HOSTILE, "blocked_events": [1, "<b>"]},
    {"label": None, "returncode": True, "cpu_s": float("inf"), "peak_rss_mb": 10 ** 30, "killed_by": 0},
    {},
]

FILES = [{}, {"prompt_1.py": "ab" * 32, HOSTILE: None, "b.yaml": "", "a&b.json": HOSTILE}]


@pytest.mark.parametrize("detailed", DETAILED)
def test_category_totals_are_the_text_the_template_loop_gave(detailed):
    categories = _categories(detailed)
    expected = str(_reference().cats(_category_views(categories)))
    assert f'<div class="cats">{_category_spans(categories)}</div>' == expected


def test_child_run_rows_are_the_text_the_template_loop_gave():
    for runs in ([], RUNS, RUNS[:1]):
        views = _runs(runs)
        assert "".join(_run_row(run) for run in views) == str(_reference().runs([_run_view(r) for r in views]))


def test_a_child_run_without_a_label_or_a_time_shows_empty_cells_not_none():
    row = _run_row(*_runs([{"mode": "call", "label": None, "returncode": 0, "wall_s": None, "cpu_s": None,
                            "peak_rss_mb": None, "blocked_events": None}]))
    assert "None" not in row and row.startswith("<tr><td>call</td><td></td><td class=\"num\">0</td>")


@pytest.mark.parametrize("files", FILES)
def test_the_graded_files_note_is_the_text_the_template_gave(files):
    assert _graded_files(files) == str(_reference().files(sorted(files.items())))
