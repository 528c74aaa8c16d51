"""A checker as a check type: the output is the given numbers, sorted. It reads only what the
run reported (``ctx.facts``) and its own parameters, like every check type."""

from benchmark.api import Outcome, check_type


@check_type(method="behaviour", params={
    "numbers": {"type": "array", "items": {"type": "integer"}, "minItems": 1,
                "description": "the numbers staged for the run"}}, required=("numbers",))
def sorted_permutation(ctx, numbers):
    """The fixture run printed ``numbers``, sorted ascending."""
    run = ctx.facts.get("runs", {}).get("fixture")
    if not run or run.get("output") is None:
        return Outcome.fail("no parsed output from the fixture run")
    got = run["output"]
    if not isinstance(got, list) or any(type(x) is not int for x in got) or sorted(got) != sorted(numbers):
        return Outcome.fail("the output is not the input's numbers")
    if got != sorted(got):
        return Outcome.fail("the numbers are not in ascending order")
    return Outcome.ok(f"{len(got)} numbers, sorted")
