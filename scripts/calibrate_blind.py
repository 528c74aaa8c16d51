"""Hold the grader to blind expert ratings: grade every answer of ``tests/calibration/blind/``
and compare each prompt's score with the rating an expert wrote before any grading.

The corpus: one folder per answer set (``answers/<model>/``, written from the prompt texts
alone by writers who never read the grader), ``ratings.json`` (per model and prompt: the
rating out of 25, whether the rater found the answer correct and clean, and the defects the
rater confirmed), ``amendments.json`` (ratings made again by a rater blind to the grader
where a prompt's text changed after the first rating: the rating under the text graded today,
the one it replaces, and why) and ``second_look.json`` (answers the rater called correct and
clean that score under 95 %, each with the defect the grader names and the rater's verdict on
it after a second look). ``notes/`` holds the writers' own notes (planted defects) and the raters'
methods, for people; nothing here reads them.

Figures:
- Spearman's rank correlation between scores and ratings (average ranks for ties), over the
  models' totals (the ranking a user reads) and over every (model, prompt) pair;
- per prompt, the mean absolute difference between score and rating, in points of 25;
- every difference over 5 points, largest first;
- every answer rated correct and clean that scores under 95 % of its prompt.

    .venv/bin/python scripts/calibrate_blind.py            # the table, as Markdown
    .venv/bin/python scripts/calibrate_blind.py --json     # the figures, as JSON
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmark.engine.grading import GradeOptions, grade_model  # noqa: E402

CORPUS = ROOT / "tests" / "calibration" / "blind"
PROMPTS = ("prompt_1", "prompt_2", "prompt_3", "prompt_4")
TARGET_SPEARMAN = 0.95  # the target (#27), met or not: the note says which
# what tests/test_calibration_blind.py holds the grader to: the levels reached when it was
# last calibrated (docs/calibration.md), a little below them for timing jitter, so a change that
# makes the grader agree less with the rater fails
FLOOR_MODELS = 0.93
FLOOR_PAIRS = 0.87
TARGET_MEAN_ABS = 3.0
NAMED_OVER = 5.0  # a difference above this many points is listed by name
CLEAN_FLOOR = 0.95  # an answer rated correct and clean should keep this share of its points


@dataclass(frozen=True)
class Pair:
    model: str
    prompt: str
    score: float
    rating: float
    clean: bool
    rationale: str  # the checks that lost points, shortest first (for the table)
    first_rating: float | None = None  # the rating before an amendment (None: not amended)

    @property
    def difference(self) -> float:
        return self.score - self.rating


def ranks(values: list[float]) -> list[float]:
    """1-based ranks, ties sharing the mean of the ranks they span."""
    order = sorted(range(len(values)), key=values.__getitem__)
    result = [0.0] * len(values)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and values[order[end + 1]] == values[order[start]]:
            end += 1
        for index in order[start:end + 1]:
            result[index] = (start + end) / 2 + 1
        start = end + 1
    return result


def spearman(xs: list[float], ys: list[float]) -> float:
    """Pearson's correlation of the ranks (Spearman's rho with ties handled)."""
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / (vx * vy) ** 0.5 if vx and vy else 0.0


def _lost_points(prompt) -> str:
    lost = [(c.points - c.earned, c.id) for cat in prompt.categories for c in cat.checks
            if c.earned < c.points - 1e-9]
    return ", ".join(f"{check} -{points:.2f}" for points, check in sorted(lost, reverse=True)[:6])


def load_ratings(corpus: Path = CORPUS) -> dict[str, dict[str, dict]]:
    """``ratings.json`` with ``amendments.json`` applied: an amended (model, prompt) takes the
    amendment's rating and verdict, and keeps the first rating as ``first_rating``."""
    ratings = json.loads((corpus / "ratings.json").read_text(encoding="utf-8"))
    path = corpus / "amendments.json"
    amendments = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    for key, amended in amendments.items():
        model, prompt_id = key.split("/")
        entry = ratings[model][prompt_id]
        ratings[model][prompt_id] = {**entry, "first_rating": entry["rating"],
                                     "rating": amended["rating"],
                                     "correct_and_clean": amended["correct_and_clean"]}
    return ratings


def grade_corpus(corpus: Path = CORPUS) -> list[Pair]:
    ratings = load_ratings(corpus)
    models = sorted(ratings)
    test_data = ROOT / "test_data"

    def grade(model: str):
        return grade_model(corpus / "answers" / model, "blind", test_data=test_data,
                           options=GradeOptions())

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(models, pool.map(grade, models)))
    pairs = []
    for model in models:
        prompts = {p.prompt_id: p for p in results[model].prompts}
        for prompt_id in PROMPTS:
            rated = ratings[model][prompt_id]
            graded = prompts[prompt_id]
            pairs.append(Pair(model, prompt_id, round(graded.score, 2), float(rated["rating"]),
                              bool(rated.get("correct_and_clean")), _lost_points(graded),
                              rated.get("first_rating")))
    return pairs


def figures(pairs: list[Pair], corpus: Path = CORPUS) -> dict:
    second_look = {}
    path = corpus / "second_look.json"
    if path.exists():
        second_look = json.loads(path.read_text(encoding="utf-8"))
    per_prompt = {}
    for prompt_id in PROMPTS:
        mine = [p for p in pairs if p.prompt == prompt_id]
        per_prompt[prompt_id] = {
            "mean_abs_difference": round(sum(abs(p.difference) for p in mine) / len(mine), 2),
            "spearman": round(spearman([p.score for p in mine], [p.rating for p in mine]), 3),
        }
    under = [p for p in pairs if p.clean and p.score < CLEAN_FLOOR * 25 - 1e-9]
    totals: dict[str, list[float]] = {}
    for p in pairs:
        totals.setdefault(p.model, [0.0, 0.0])
        totals[p.model][0] += p.score
        totals[p.model][1] += p.rating
    first: dict[str, float] = {}
    for p in pairs:
        first[p.model] = first.get(p.model, 0.0) + (p.rating if p.first_rating is None else p.first_rating)
    return {
        "pairs": len(pairs),
        "models": len(totals),
        "amended": sum(p.first_rating is not None for p in pairs),
        "spearman_models": round(spearman([t[0] for t in totals.values()],
                                          [t[1] for t in totals.values()]), 3),
        "spearman_models_first_ratings": round(spearman([t[0] for t in totals.values()],
                                                        [first[m] for m in totals]), 3),
        "spearman": round(spearman([p.score for p in pairs], [p.rating for p in pairs]), 3),
        "per_prompt": per_prompt,
        "over_named": [asdict(p) | {"difference": round(p.difference, 2)}
                       for p in sorted(pairs, key=lambda p: -abs(p.difference))
                       if abs(p.difference) > NAMED_OVER],
        "clean_under_floor": [asdict(p) | {"second_look": second_look.get(f"{p.model}/{p.prompt}")}
                              for p in under],
    }


def markdown(pairs: list[Pair], found: dict) -> str:
    lines = [f"Spearman over the {found['models']} models' totals: **{found['spearman_models']}**; "
             f"over the {found['pairs']} (model, prompt) pairs: **{found['spearman']}** "
             f"(target >= {TARGET_SPEARMAN}); {found['amended']} ratings amended for a prompt text "
             f"changed since the first rating (amendments.json; over the totals with the first "
             f"ratings: {found['spearman_models_first_ratings']})", "",
             "| prompt | mean abs difference (target <= 3) | Spearman |", "|---|---|---|"]
    lines += [f"| {k} | {v['mean_abs_difference']} | {v['spearman']} |"
              for k, v in found["per_prompt"].items()]
    lines += ["", "| model | " + " | ".join(f"{p} score / rating" for p in PROMPTS) + " | total |",
              "|---|" + "---|" * (len(PROMPTS) + 1)]
    by_model: dict[str, dict[str, Pair]] = {}
    for pair in pairs:
        by_model.setdefault(pair.model, {})[pair.prompt] = pair
    for model, row in sorted(by_model.items()):
        cells = [f"{row[p].score:.2f} / {row[p].rating:g}"
                 + ("" if row[p].first_rating is None else f" (was {row[p].first_rating:g})")
                 for p in PROMPTS]
        total = (f"{sum(row[p].score for p in PROMPTS):.2f} / "
                 f"{sum(row[p].rating for p in PROMPTS):.1f}")
        lines.append(f"| {model} | " + " | ".join(cells) + f" | {total} |")
    lines += ["", f"Differences over {NAMED_OVER:g} points:"]
    lines += [f"- {d['model']} {d['prompt']}: {d['score']} vs {d['rating']} ({d['difference']:+}); "
              f"lost: {d['rationale'] or 'nothing'}" for d in found["over_named"]] or ["- none"]
    lines += ["", "Rated correct and clean, scored under 95 %:"]
    lines += [f"- {d['model']} {d['prompt']}: {d['score']} (lost: {d['rationale']}); second look: "
              f"{d['second_look'] or 'none recorded'}" for d in found["clean_under_floor"]] or ["- none"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    pairs = grade_corpus()
    found = figures(pairs)
    if args.json:
        print(json.dumps(found | {"scores": [asdict(p) for p in pairs]}, indent=2))
    else:
        print(markdown(pairs, found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
