"""The statistics of several samples per model (docs/statistics.md): pass@k, a bootstrap
interval for a model's total, and a paired test of whether two models differ.

Scores come as a matrix per model: one row per sample (a complete submission of the model), one
column per task, each cell the points the sample earned on the task; ``maxima`` gives each
task's points. A model's total is the mean over its samples of its points summed over the
tasks, as a percentage of the tasks' points: with one sample, exactly its percentage today.

Every estimate is exact when the distinct resamples are few (at most ``RESAMPLES``): a bootstrap
over up to 7 tasks or samples counts every distinct draw with its probability, in plain Python;
a permutation test over few deals counts every deal. Otherwise it draws ``RESAMPLES`` with numpy
(one vectorised draw per estimate) from a ``numpy.random.Generator`` seeded by the caller. Either
way the same scores and seed give the same figures on every machine. numpy is imported here
only, on first use: a run of the core pack with one sample per model never needs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from math import comb, factorial, prod
from typing import Any

RESAMPLES = 4000  # draws per estimate: an end of the interval moves by a standard deviation of 0.55
# points between seeds at 30 tasks, 0.15 at 150 (measured), well inside the interval itself
LEVEL = 0.95


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimate of pass@k from ``n`` samples of which ``c`` passed (Chen et al.,
    2021, "Evaluating Large Language Models Trained on Code", eq. 1): the chance that at least
    one of ``k`` samples drawn without replacement from the ``n`` passes, 1 - C(n-c, k) / C(n, k),
    in exact integer arithmetic. ``k`` must be at most ``n``."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    return 1.0 - comb(n - c, k) / comb(n, k)


@dataclass(frozen=True, slots=True)
class Interval:
    """A model's total (percentage) and the ends of its bootstrap interval."""
    mean: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


@dataclass(frozen=True, slots=True)
class Difference:
    """Model A's total minus model B's on their shared tasks, its interval, and the two-sided
    p-value of "no difference"; ``significant`` at the level the test was asked for."""
    diff: float
    low: float
    high: float
    p_value: float
    significant: bool


def _numpy() -> Any:
    import numpy  # (about 0.1 s to import: only when a figure is asked for)

    return numpy


def _rows(scores: Sequence[Sequence[float]], maxima: Sequence[float]) -> list[list[float]]:
    """``scores`` checked to be samples x tasks with one maximum per task, as floats."""
    rows = [[float(value) for value in row] for row in scores]
    if not rows or not maxima or any(len(row) != len(maxima) for row in rows):
        raise ValueError(f"scores must be samples x tasks with one maximum per task "
                         f"({len(rows)} rows of {sorted({len(r) for r in rows})} for {len(maxima)} maxima)")
    return rows


def _matrix(scores: Sequence[Sequence[float]], maxima: Sequence[float]) -> Any:
    return _numpy().asarray(_rows(scores, maxima), dtype=float)


def _task_means(rows: list[list[float]]) -> list[float]:
    return [sum(column) / len(rows) for column in zip(*rows)]


def total(scores: Sequence[Sequence[float]], maxima: Sequence[float]) -> float:
    """A model's total: the mean over samples of its points on every task, as a percentage."""
    return 100.0 * sum(_task_means(_rows(scores, maxima))) / sum(maxima)


@lru_cache(maxsize=16)
def _multisets(size: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every distinct draw of ``size`` items from ``size`` with replacement, as how many times
    each item is drawn, with its probability (the multinomial's)."""
    found = []
    for picked in combinations_with_replacement(range(size), size):
        counts = [0] * size
        for item in picked:
            counts[item] += 1
        found.append((tuple(counts), factorial(size) / prod(map(factorial, counts)) / size ** size))
    return tuple(found)


def _exact(size: int, resamples: int) -> bool:
    """Whether a bootstrap of ``size`` items has at most ``resamples`` distinct draws (7 items
    have 1,716; 8 have 6,435)."""
    return comb(2 * size - 1, size) <= resamples


def _exact_ends(values: Sequence[float], weights: Sequence[float], level: float,
                scale: float) -> tuple[float, float]:
    """The ends of the exact percentile bootstrap interval of ``scale * sum(values) /
    sum(weights)`` over the items drawn with replacement: every distinct draw's figure with its
    probability, sorted; each end is the first figure whose cumulative probability reaches its
    tail (the inverse of that distribution)."""
    found = sorted((scale * sum(c * v for c, v in zip(counts, values)) / sum(c * w for c, w in zip(counts, weights)),
                    chance) for counts, chance in _multisets(len(values)))
    tail = (1 - level) / 2

    def reach(share: float) -> float:
        seen = 0.0
        for figure, chance in found:
            seen += chance
            if seen >= share - 1e-12:
                return figure
        return found[-1][0]

    return reach(tail), reach(1 - tail)


def _percentile(np: Any, draws: Any, level: float) -> tuple[float, float]:
    tail = (1 - level) / 2
    low, high = np.quantile(draws, [tail, 1 - tail])
    return float(low), float(high)


def _task_draws(np: Any, per_draw, weights: Any, rng: Any, resamples: int) -> Any:
    """``resamples`` percentages, each over the tasks drawn with replacement: ``per_draw(picked)``
    gives each draw's points on each drawn task (a total's, or a difference's); the first stage
    of the bootstrap of ``interval`` and ``compare``."""
    picked = rng.integers(0, weights.size, size=(resamples, weights.size))
    return 100.0 * per_draw(picked).sum(axis=1) / weights[picked].sum(axis=1)


def _nested(np: Any, matrix: Any, picked: Any, rng: Any) -> Any:
    """Per draw and drawn task, the mean of the model's samples on it drawn again with
    replacement (the second stage of the two-stage bootstrap); ``picked``: draws x tasks."""
    samples = matrix.shape[0]
    if samples == 1:
        return matrix[0][picked]
    again = rng.integers(0, samples, size=(*picked.shape, samples))
    return matrix[again, picked[..., None]].mean(axis=-1)


def interval(scores: Sequence[Sequence[float]], maxima: Sequence[float], seed: int,
             level: float = LEVEL, resamples: int = RESAMPLES) -> Interval:
    """The total and its percentile bootstrap interval at ``level``, over tasks and samples:
    the two-stage bootstrap of a nested design (Davison and Hinkley 1997, section 3.8) draws
    the tasks with replacement, then for each drawn task as many of the model's answers to it
    as it gave, with replacement, and takes the total of those. It covers both how the total
    depends on which tasks were asked and how it depends on which answers the model happened
    to give. With one sample the second stage draws nothing new: the interval is over tasks,
    exact up to 7 tasks (every distinct draw counted); otherwise ``resamples`` draws."""
    rows = _rows(scores, maxima)
    mean = total(scores, maxima)
    if len(rows) == 1 and _exact(len(maxima), resamples):
        return Interval(mean, *_exact_ends(rows[0], [float(m) for m in maxima], level, 100.0))
    np = _numpy()
    matrix, weights, rng = np.asarray(rows), np.asarray(maxima, dtype=float), np.random.default_rng(seed)
    draws = _task_draws(np, lambda picked: _nested(np, matrix, picked, rng), weights, rng, resamples)
    return Interval(mean, *_percentile(np, draws, level))


def _masks(np: Any, tasks: int, n_a: int, n_b: int, rng: Any, resamples: int) -> tuple[Any, bool]:
    """Ways to deal each task's ``n_a + n_b`` pooled answers back to the two models, as
    boolean masks (draws x tasks x answers; True: dealt to A): every way when there are at most
    ``resamples`` (the exact test), else ``resamples`` drawn at random. One answer each: the
    2**tasks sign patterns of the sign-flip test."""
    from itertools import combinations, product

    pooled = n_a + n_b
    per_task = comb(pooled, n_a)
    if per_task ** tasks <= resamples:
        deals = np.zeros((per_task, pooled), dtype=bool)
        for row, chosen in enumerate(combinations(range(pooled), n_a)):
            deals[row, list(chosen)] = True
        picks = np.array(list(product(range(per_task), repeat=tasks)), dtype=int).reshape(-1, tasks)
        return deals[picks], True
    keys = rng.random((resamples, tasks, pooled))
    return keys <= np.sort(keys, axis=-1)[..., n_a - 1:n_a], False


def _p_value(np: Any, left: Any, right: Any, masks: Any, exact: bool) -> float:
    """The two-sided p-value of "A and B answer each task alike": the share of the deals in
    ``masks`` whose summed per-task difference of means is at least as far from zero as the
    observed one; drawn deals count the observed one too (Phipson and Smyth 2010)."""
    n_a, n_b = left.shape[0], right.shape[0]
    pooled = np.concatenate([left, right], axis=0).T  # tasks x answers
    observed = abs(float((left.mean(axis=0) - right.mean(axis=0)).sum()))
    dealt = np.einsum("rtm,tm->r", masks, pooled)
    stat = dealt * (1 / n_a + 1 / n_b) - pooled.sum() / n_b
    extreme = int((np.abs(stat) >= observed - 1e-9).sum())
    return extreme / len(masks) if exact else (extreme + 1) / (len(masks) + 1)


def compare(a: Sequence[Sequence[float]], b: Sequence[Sequence[float]], maxima: Sequence[float], seed: int,
            alpha: float = 1 - LEVEL, resamples: int = RESAMPLES) -> Difference:
    """Whether model A's total differs from model B's on the same tasks. The p-value is a
    stratified permutation test (each task a stratum): were the two models alike, the answers
    each gave to a task would be exchangeable, so the p-value is the share of the ways of
    dealing each task's pooled answers back (as many to each model as it gave) whose summed
    difference of means is at least as far from zero as the observed one (exact when there are
    at most ``resamples`` ways, else drawn at random, with the observed one counted: Phipson
    and Smyth 2010). With one answer each this is the paired sign-flip test over tasks: four
    tasks, all won, give p = 2/16 = 0.125, so four single answers cannot tell two models apart
    at 0.05; several samples per task can. The interval is ``interval``'s two-stage bootstrap
    of the difference, paired over tasks (the same tasks drawn for both), at 1 - ``alpha``."""
    np = _numpy()
    left, right = _matrix(a, maxima), _matrix(b, maxima)
    if left.shape[1] != right.shape[1]:
        raise ValueError("both models must be scored on the same tasks")
    weights = np.asarray(maxima, dtype=float)
    rng = np.random.default_rng(seed)
    masks, exact = _masks(np, weights.size, left.shape[0], right.shape[0], rng, resamples)
    p_value = _p_value(np, left, right, masks, exact)
    differences = left.mean(axis=0) - right.mean(axis=0)
    if left.shape[0] == right.shape[0] == 1 and _exact(weights.size, resamples):
        low, high = _exact_ends([float(d) for d in differences], [float(m) for m in maxima], 1 - alpha, 100.0)
    else:  # the same tasks drawn for both, each model's answers drawn again on its own
        draws = _task_draws(np, lambda picked: _nested(np, left, picked, rng) - _nested(np, right, picked, rng),
                            weights, rng, resamples)
        low, high = _percentile(np, draws, 1 - alpha)
    diff = total(a, maxima) - total(b, maxima)
    return Difference(diff, low, high, min(1.0, p_value), p_value < alpha)


def sample_interval(values: Sequence[float], seed: int, level: float = LEVEL,
                    resamples: int = RESAMPLES) -> Interval:
    """One task's mean over a model's samples and its percentile bootstrap interval over those
    samples (drawn with replacement). One sample, or samples that all scored alike, have no
    spread: the interval is the mean itself. Up to 7 samples it is the exact bootstrap's."""
    scores = [float(value) for value in values]
    if not scores:
        raise ValueError("a task's scores are one number per sample, at least one")
    mean = sum(scores) / len(scores)
    if len(set(scores)) == 1:
        return Interval(mean, mean, mean)
    if _exact(len(scores), resamples):
        return Interval(mean, *_exact_ends(scores, [1.0] * len(scores), level, 1.0))
    np = _numpy()
    array = np.asarray(scores)
    draws = array[np.random.default_rng(seed).integers(0, array.size, size=(resamples, array.size))].mean(axis=1)
    return Interval(mean, *_percentile(np, draws, level))


def ranks(models: Sequence[Sequence[Sequence[float]]], maxima: Sequence[float], seed: int,
          alpha: float = 1 - LEVEL, resamples: int = RESAMPLES) -> list[int]:
    """Each model's rank when only real differences count: 1 + the number of models whose
    total is significantly higher (``compare``'s test at ``alpha``, on the same tasks). Models
    no other beats share rank 1; two models that cannot be told apart may share a rank even
    if their totals differ, and a rank says how many models are surely better, not the order
    of the totals (which the leaderboard keeps). Every pair is tested on the same deals,
    drawn once from ``seed`` for each pair of sample counts. A pair whose exact test cannot
    reach ``alpha`` at all (one sample each on up to 5 tasks: p is at least 2/2**tasks) is not
    computed."""
    rows = [_rows(scores, maxima) for scores in models]
    totals = [sum(_task_means(r)) for r in rows]
    sizes = {len(r) for r in rows}
    reachable = {(a, b) for a in sizes for b in sizes if _least_p(len(maxima), a, b, resamples) < alpha}
    if not reachable:  # (the core pack with one sample each: no pair can differ, so none is tested)
        return [1] * len(rows)
    np = _numpy()
    rng = np.random.default_rng(seed)
    deals: dict[tuple[int, int], tuple[Any, bool]] = {}  # per pair of sample counts, on first need
    found = []
    for index, mine in enumerate(rows):
        beaten_by = 0
        for other, theirs in enumerate(rows):
            shape = (len(theirs), len(mine))
            if totals[other] <= totals[index] + 1e-9 or shape not in reachable:
                continue
            if shape not in deals:
                deals[shape] = _masks(np, len(maxima), *shape, rng, resamples)
            beaten_by += _p_value(np, np.asarray(theirs), np.asarray(mine), *deals[shape]) < alpha
        found.append(1 + beaten_by)
    return found


def _least_p(tasks: int, n_a: int, n_b: int, resamples: int) -> float:
    """The smallest p-value the test can give: an exact test's share of one deal (two when the
    models gave as many answers each: a deal and its mirror are as extreme), a drawn one's."""
    deals = comb(n_a + n_b, n_a) ** tasks
    if deals > resamples:
        return 1 / (resamples + 1)
    return (2 if n_a == n_b else 1) / deals
