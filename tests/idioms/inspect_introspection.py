import inspect


def area(width: float, height: float = 1.0, *, unit: str = "m") -> str:
    """Area of a rectangle."""
    return f"{width * height}{unit}2"


class Shape:
    sides = 0

    def grow(self, factor):
        return factor

    @property
    def label(self):
        return "shape"


sig = inspect.signature(area)
print(sig, list(sig.parameters), sig.parameters["unit"].kind.name, sig.return_annotation)
bound = sig.bind(2, unit="cm")
bound.apply_defaults()
print(bound.arguments, area(*bound.args, **bound.kwargs))
print(inspect.getsource(area).splitlines()[0], inspect.getdoc(area), inspect.getsourcelines(Shape)[1])
print([name for name, _ in inspect.getmembers(Shape, inspect.isfunction)], inspect.isclass(Shape),
      inspect.ismethod(Shape().grow))
print(inspect.currentframe().f_code.co_name, inspect.stack()[0].function, inspect.getmodule(area).__name__)
print(inspect.iscoroutinefunction(area), inspect.isgeneratorfunction(lambda: (yield)),
      inspect.getfullargspec(area).kwonlyargs)
print(inspect.getattr_static(Shape, "label").__class__.__name__, inspect.cleandoc("  a\n    b"),
      inspect.unwrap(area) is area)
print(inspect.getfile(area).endswith("idiom.py"), inspect.getmodulename("pkg/mod.py"))
