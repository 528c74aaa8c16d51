"""The statistics of several samples per model (docs/statistics.md): pass@k, a bootstrap
interval for a model's total, and a paired test of whether two models differ.

Scores come as a matrix per model: one row per sample (a complete submission of the model), one
column per task, each cell the points the sample earned on the task; ``maxima`` gives each
task's points. A model's total is the mean over its samples of its points summed over the
tasks, as a percentage of the tasks' points: with one sample, exactly its percentage today.

Resampling uses numpy (one vectorised draw per estimate) from a ``numpy.random.Generator``
seeded by the caller, so a run's intervals and p-values are reproducible: the same scores and
seed give the same figures on every machine. numpy is imported here only, on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import comb
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


def _matrix(scores: Sequence[Sequence[float]], maxima: Sequence[float]) -> Any:
    np = _numpy()
    matrix = np.asarray(scores, dtype=float)
    if matrix.ndim != 2 or matrix.shape[0] < 1 or matrix.shape[1] != len(maxima) or len(maxima) < 1:
        raise ValueError(f"scores must be samples x tasks with one maximum per task (got {matrix.shape}, "
                         f"{len(maxima)} maxima)")
    return matrix


def total(scores: Sequence[Sequence[float]], maxima: Sequence[float]) -> float:
    """A model's total: the mean over samples of its points on every task, as a percentage."""
    matrix = _matrix(scores, maxima)
    return float(100.0 * matrix.sum(axis=1).mean() / sum(maxima))


def _percentile(np: Any, draws: Any, level: float) -> tuple[float, float]:
    tail = (1 - level) / 2
    low, high = np.quantile(draws, [tail, 1 - tail])
    return float(low), float(high)


def _draws(np: Any, per_task: Any, weights: Any, rng: Any, resamples: int) -> Any:
    """``resamples`` percentages of ``per_task`` points (a total's, or a difference's), each
    over the tasks drawn with replacement: the bootstrap over tasks of ``interval`` and
    ``compare``."""
    picked = rng.integers(0, weights.size, size=(resamples, weights.size))
    return 100.0 * per_task[picked].sum(axis=1) / weights[picked].sum(axis=1)


def interval(scores: Sequence[Sequence[float]], maxima: Sequence[float], seed: int,
             level: float = LEVEL, resamples: int = RESAMPLES) -> Interval:
    """The total and its percentile bootstrap interval at ``level``, over tasks: the tasks are
    drawn with replacement, each with the mean of the model's samples on it. A model's
    samples are separate answers to each task (nothing ties sample 1 of one task to sample 1
    of another), so their spread is already in each task's mean, and drawing the tasks alone
    is the top-stage bootstrap of a nested design (Davison and Hinkley 1997, section 3.8).
    With one sample it shows how much the total depends on which tasks were asked; a model
    that earned the same share of every task has no spread."""
    np = _numpy()
    matrix, weights = _matrix(scores, maxima), np.asarray(maxima, dtype=float)
    means = matrix.mean(axis=0)  # each task's points, the mean of the model's samples
    draws = _draws(np, means, weights, np.random.default_rng(seed), resamples)
    return Interval(total(scores, maxima), *_percentile(np, draws, level))


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
    at 0.05; several samples per task can. The interval is a paired bootstrap over tasks (the
    same tasks drawn for both) at 1 - ``alpha``."""
    np = _numpy()
    left, right = _matrix(a, maxima), _matrix(b, maxima)
    if left.shape[1] != right.shape[1]:
        raise ValueError("both models must be scored on the same tasks")
    weights = np.asarray(maxima, dtype=float)
    rng = np.random.default_rng(seed)
    masks, exact = _masks(np, weights.size, left.shape[0], right.shape[0], rng, resamples)
    p_value = _p_value(np, left, right, masks, exact)
    differences = left.mean(axis=0) - right.mean(axis=0)
    low, high = _percentile(np, _draws(np, differences, weights, rng, resamples), 1 - alpha)
    diff = total(a, maxima) - total(b, maxima)
    return Difference(diff, low, high, min(1.0, p_value), p_value < alpha)


def sample_interval(values: Sequence[float], seed: int, level: float = LEVEL,
                    resamples: int = RESAMPLES) -> Interval:
    """One task's mean over a model's samples and its percentile bootstrap interval over those
    samples (drawn with replacement). One sample, or samples that all scored alike, have no
    spread: the interval is the mean itself."""
    np = _numpy()
    scores = np.asarray(values, dtype=float)
    if scores.ndim != 1 or scores.size < 1:
        raise ValueError("a task's scores are one number per sample, at least one")
    mean = float(scores.mean())
    if scores.size == 1 or np.all(scores == scores[0]):
        return Interval(mean, mean, mean)
    draws = scores[np.random.default_rng(seed).integers(0, scores.size, size=(resamples, scores.size))].mean(axis=1)
    return Interval(mean, *_percentile(np, draws, level))


def ranks(models: Sequence[Sequence[Sequence[float]]], maxima: Sequence[float], seed: int,
          alpha: float = 1 - LEVEL, resamples: int = RESAMPLES) -> list[int]:
    """Each model's rank when only real differences count: 1 + the number of models whose
    total is significantly higher (``compare``'s test at ``alpha``, on the same tasks). Models
    no other beats share rank 1; two models that cannot be told apart may share a rank even
    if their totals differ, and a rank says how many models are surely better, not the order
    of the totals (which the leaderboard keeps). Every pair is tested on the same deals,
    drawn once from ``seed`` for each pair of sample counts."""
    np = _numpy()
    matrices = [_matrix(scores, maxima) for scores in models]
    totals = [float(m.mean(axis=0).sum()) for m in matrices]
    rng = np.random.default_rng(seed)
    deals: dict[tuple[int, int], tuple[Any, bool]] = {}
    found = []
    for index, mine in enumerate(matrices):
        beaten_by = 0
        for other, theirs in enumerate(matrices):
            if totals[other] <= totals[index] + 1e-9:
                continue
            shape = (theirs.shape[0], mine.shape[0])
            if shape not in deals:
                deals[shape] = _masks(np, len(maxima), *shape, rng, resamples)
            beaten_by += _p_value(np, theirs, mine, *deals[shape]) < alpha
        found.append(1 + beaten_by)
    return found
