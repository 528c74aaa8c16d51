from radon.complexity import cc_rank, cc_visit, sorted_results
from radon.metrics import h_visit, mi_visit
from radon.raw import analyze

source = '''
def classify(n):
    """Sign of n."""
    if n > 0:
        return "positive"
    elif n < 0:
        return "negative"
    for _ in range(3):
        if n == 0 and True:
            return "zero"
    return "unknown"


class Shape:
    def area(self):
        return 0
'''
blocks = cc_visit(source)
print([(b.name, b.complexity, cc_rank(b.complexity), b.lineno) for b in sorted_results(blocks)])
print(round(mi_visit(source, multi=True), 4), analyze(source))
print(h_visit(source).total.vocabulary, len(h_visit(source).functions))
