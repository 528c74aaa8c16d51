"""Reference solution: the monthly payment of an amortised loan."""

from numbers import Real


def _check_number(name: str, value: object) -> None:
    """Raise TypeError unless ``value`` is a real number (a bool is not one)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")


def monthly_payment(principal: float, annual_rate: float, months: int) -> float:
    """The fixed monthly payment, rounded to cents, that repays ``principal`` over ``months``
    months at ``annual_rate`` (a fraction: 0.05 is 5 %) compounded monthly."""
    _check_number("principal", principal)
    _check_number("annual_rate", annual_rate)
    if isinstance(months, bool) or not isinstance(months, int):
        raise TypeError(f"months must be an int, not {type(months).__name__}")
    if principal <= 0 or annual_rate < 0 or months < 1:
        raise ValueError("principal must be positive, annual_rate not negative, months at least 1")
    rate = annual_rate / 12
    if rate == 0:
        return round(principal / months, 2)
    return round(principal * rate / (1 - (1 + rate) ** -months), 2)
