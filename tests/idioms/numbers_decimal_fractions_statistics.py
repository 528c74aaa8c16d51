import cmath
import decimal
import fractions
import math
import statistics
from decimal import ROUND_HALF_UP, Decimal, localcontext

print(Decimal("0.1") + Decimal("0.2"), Decimal("2.675").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
with localcontext() as ctx:
    ctx.prec = 5
    print(Decimal(1) / Decimal(7), decimal.getcontext().prec != 5)
print(Decimal(1) / Decimal(7), Decimal("1.30").normalize(), Decimal(0.5), Decimal("NaN").is_nan())
f = fractions.Fraction(3, 4) + fractions.Fraction("1/6")
print(f, float(f), fractions.Fraction(0.125), fractions.Fraction(1, 3).limit_denominator(10),
      f.as_integer_ratio())
data = [2, 4, 4, 4, 5, 5, 7, 9]
print(statistics.mean(data), statistics.median(data), statistics.mode(data), statistics.pstdev(data))
print(round(statistics.stdev(data), 6), statistics.quantiles(data, n=4), statistics.fmean([1, 2]),
      statistics.median_low([1, 3, 5, 7]))
print(round(statistics.correlation([1, 2, 3], [2, 4, 7]), 6),
      statistics.linear_regression([1, 2, 3], [2, 4, 6]))
print(math.isclose(0.1 + 0.2, 0.3), math.comb(10, 3), math.perm(5, 2), math.factorial(20),
      math.gcd(12, 18), math.lcm(4, 6))
print(math.sqrt(2), math.hypot(3, 4), math.floor(-1.5), math.ceil(1.2), math.prod([1, 2, 3]),
      math.inf > 1e308, math.nan != math.nan)
print(math.isqrt(99), math.log(8, 2), math.dist((0, 0), (3, 4)), round(2.5), round(3.5),
      round(1.005, 2), divmod(-7, 2), 7 // -2)
print(cmath.sqrt(-1), abs(3 + 4j), (2 ** 100), int("ff", 16), float("1e-3"), (0.1).hex(), 10 ** 20 // 3)
