"""The estimators of ``benchmark.stats`` on cases with known answers: pass@k against brute-force
enumeration, interval coverage and the paired test's error rates on simulated models."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from benchmark import stats


@pytest.mark.parametrize("n", range(1, 9))
def test_pass_at_k_is_the_share_of_k_subsets_holding_a_pass(n):
    for c in range(n + 1):
        outcomes = [True] * c + [False] * (n - c)
        for k in range(1, n + 1):
            subsets = list(combinations(outcomes, k))
            expected = sum(any(s) for s in subsets) / len(subsets)
            assert stats.pass_at_k(n, c, k) == pytest.approx(expected, abs=1e-12)


def test_pass_at_1_is_the_pass_rate_and_bad_arguments_are_refused():
    assert stats.pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert stats.pass_at_k(200, 0, 100) == 0.0 and stats.pass_at_k(200, 101, 100) == 1.0
    for n, c, k in ((3, 4, 1), (3, 1, 0), (3, 1, 4), (3, -1, 1)):
        with pytest.raises(ValueError):
            stats.pass_at_k(n, c, k)


def test_one_sample_totals_are_todays_percentage_and_an_even_model_has_no_spread():
    assert stats.total([[25, 12.5, 0, 25]], [25, 25, 25, 25]) == 62.5
    even = stats.interval([[20, 20, 10], [20, 20, 10]], [25, 25, 12.5], seed=1)
    assert even.mean == pytest.approx(80) and even.low == pytest.approx(80) and even.high == pytest.approx(80)
    with pytest.raises(ValueError):
        stats.interval([[1, 2]], [25, 25, 25], seed=1)


def test_the_same_seed_gives_the_same_interval_and_another_seed_nearly_the_same():
    scores = [[25, 10, 3, 18, 22], [20, 14, 0, 25, 19]]
    maxima = [25] * 5
    first, again = stats.interval(scores, maxima, seed=7), stats.interval(scores, maxima, seed=7)
    other = stats.interval(scores, maxima, seed=8)
    assert first == again and first.low < first.mean < first.high
    assert abs(first.low - other.low) < 2 and abs(first.high - other.high) < 2


def _population(rng, tasks: int, samples: int, shift: float = 0.0):
    """A model drawn from a known population: each task's chance of full points is Beta(2, 2)
    distributed (mean 0.5) plus ``shift``; a sample earns 25 or 0 on a task by that chance. The
    model's true total is 100 * (0.5 + shift)."""
    chance = np.clip(rng.beta(2, 2, size=tasks) + shift, 0, 1)
    return (rng.random((samples, tasks)) < chance) * 25.0, chance


def test_the_interval_covers_the_true_total_about_95_times_in_100():
    rng = np.random.default_rng(2026)
    covered, runs = 0, 300
    for run in range(runs):
        scores, _ = _population(rng, tasks=30, samples=4)
        found = stats.interval(scores, [25.0] * 30, seed=run, resamples=1000)
        covered += found.low <= 50.0 <= found.high
    assert 0.90 <= covered / runs <= 0.99


def test_the_paired_test_rarely_calls_equal_models_different_and_finds_a_real_gap():
    rng = np.random.default_rng(11)
    false_alarms = found = 0
    runs = 200
    for run in range(runs):
        chance = np.clip(rng.beta(2, 2, size=30), 0, 1)  # the same tasks, asked of both models
        a = (rng.random((3, 30)) < chance) * 25.0
        b = (rng.random((3, 30)) < chance) * 25.0
        false_alarms += stats.compare(a, b, [25.0] * 30, seed=run, resamples=1000).significant
        better = (rng.random((3, 30)) < np.clip(chance + 0.3, 0, 1)) * 25.0
        found += stats.compare(better, b, [25.0] * 30, seed=run, resamples=1000).significant
    assert false_alarms / runs <= 0.09  # (5 % expected)
    assert found / runs >= 0.90


def test_four_tasks_all_won_are_not_enough_to_tell_two_models_apart():
    four = stats.compare([[25, 25, 25, 25]], [[20, 15, 10, 24]], [25] * 4, seed=1)
    assert four.p_value == pytest.approx(2 / 16) and not four.significant and four.diff == pytest.approx(31)


def test_a_model_compared_with_itself_does_not_differ_and_the_difference_is_signed():
    scores = [[25, 10, 3, 18, 22]]
    same = stats.compare(scores, scores, [25] * 5, seed=3)
    assert same.diff == 0 and same.p_value == 1.0 and not same.significant
    high, low = [[25.0] * 12], [[0.0] * 12]
    gap = stats.compare(high, low, [25.0] * 12, seed=3)
    assert gap.diff == 100 and gap.significant and gap.p_value < 0.001 and gap.low == gap.high == 100
    assert stats.compare(low, high, [25.0] * 12, seed=3).diff == -100


def test_a_tasks_sample_interval_is_over_its_samples_and_one_sample_has_none():
    assert stats.sample_interval([20.0], seed=1) == stats.Interval(20.0, 20.0, 20.0)
    assert stats.sample_interval([5.0, 5.0, 5.0], seed=1) == stats.Interval(5.0, 5.0, 5.0)
    spread = stats.sample_interval([0.0, 25.0, 25.0, 10.0], seed=1)
    assert spread.mean == 15.0 and 0.0 <= spread.low < 15.0 < spread.high <= 25.0
    assert spread == stats.sample_interval([0.0, 25.0, 25.0, 10.0], seed=1)
    with pytest.raises(ValueError):
        stats.sample_interval([], seed=1)


def test_ranks_count_only_the_models_surely_better():
    four = [[[25, 25, 25, 25]], [[20, 18, 22, 19]], [[5, 10, 0, 12]]]
    assert stats.ranks(four, [25] * 4, seed=1) == [1, 1, 1]  # four tasks tell no model apart
    rng = np.random.default_rng(3)
    chance = rng.beta(2, 2, size=40)
    strong = (rng.random((3, 40)) < np.clip(chance + 0.4, 0, 1)) * 25.0
    weak = [(rng.random((3, 40)) < chance) * 25.0 for _ in range(2)]
    found = stats.ranks([weak[0], strong, weak[1]], [25.0] * 40, seed=1)
    assert found == [2, 1, 2]
    models = [weak[0], strong, weak[1]]
    for index, model in enumerate(models):  # the same test as compare's, against each better model
        beaten_by = sum(1 for other in models if stats.total(other, [25.0] * 40) > stats.total(model, [25.0] * 40)
                        and stats.compare(other, model, [25.0] * 40, seed=1).significant)
        assert found[index] == 1 + beaten_by
    assert stats.ranks([], [25.0], seed=1) == []


def _brute_p(left, right):
    """The stratified permutation p-value by listing every deal of every task's answers."""
    from itertools import product

    left, right = np.asarray(left, float), np.asarray(right, float)
    n_a, tasks = left.shape
    pooled = np.concatenate([left, right]).T
    deals = list(combinations(range(pooled.shape[1]), n_a))
    observed = abs((left.mean(axis=0) - right.mean(axis=0)).sum())
    extreme = 0
    for choice in product(deals, repeat=tasks):
        total = 0.0
        for task, dealt in enumerate(choice):
            a = [pooled[task][i] for i in dealt]
            b = [pooled[task][i] for i in range(pooled.shape[1]) if i not in dealt]
            total += np.mean(a) - np.mean(b)
        extreme += abs(total) >= observed - 1e-9
    return extreme / len(deals) ** tasks


@pytest.mark.parametrize("shape", [(1, 1, 5), (2, 2, 2), (3, 1, 3), (2, 3, 2)])
def test_the_exact_test_is_the_share_of_every_deal_of_each_tasks_answers(shape):
    n_a, n_b, tasks = shape
    rng = np.random.default_rng(sum(shape))
    left, right = rng.integers(0, 26, (n_a, tasks)), rng.integers(0, 26, (n_b, tasks))
    found = stats.compare(left.tolist(), right.tolist(), [25.0] * tasks, seed=3)
    assert found.p_value == pytest.approx(_brute_p(left, right), abs=1e-12)


def test_several_samples_tell_apart_four_tasks_that_one_sample_cannot():
    rng = np.random.default_rng(11)
    better = np.clip(20 + rng.normal(0, 1.5, (6, 4)), 0, 25)
    worse = np.clip(16 + rng.normal(0, 1.5, (6, 4)), 0, 25)
    assert not stats.compare(better[:1].tolist(), worse[:1].tolist(), [25.0] * 4, seed=1).significant
    found = stats.compare(better.tolist(), worse.tolist(), [25.0] * 4, seed=1)
    assert found.significant and found.p_value < 0.01 and found.diff > 0


def test_samples_of_equal_models_are_rarely_called_different():
    rng = np.random.default_rng(5)
    called = 0
    for trial in range(200):
        chance = rng.beta(2, 2, 4)  # each task's difficulty, shared by both models
        a = 25.0 * (rng.random((3, 4)) < chance)
        b = 25.0 * (rng.random((3, 4)) < chance)
        called += stats.compare(a.tolist(), b.tolist(), [25.0] * 4, seed=trial, resamples=1000).significant
    assert called / 200 <= 0.08


@pytest.mark.parametrize("tasks", [2, 3, 4, 5])
def test_the_exact_bootstrap_is_the_distribution_of_every_draw_of_the_tasks(tasks):
    from itertools import product

    rng = np.random.default_rng(tasks)
    points = rng.integers(0, 26, tasks).astype(float).tolist()
    maxima = rng.choice([10.0, 25.0], tasks).tolist()
    figures = sorted(100 * sum(points[i] for i in draw) / sum(maxima[i] for i in draw)
                     for draw in product(range(tasks), repeat=tasks))  # every ordered draw, equally likely
    at = lambda share: figures[max(0, int(np.ceil(share * len(figures) - 1e-9)) - 1)]  # inverse of the CDF
    found = stats.interval([points], maxima, seed=1)
    assert found.low == pytest.approx(at(0.025)) and found.high == pytest.approx(at(0.975))
    assert found.mean == pytest.approx(100 * sum(points) / sum(maxima))
