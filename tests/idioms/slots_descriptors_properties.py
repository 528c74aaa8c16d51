class Positive:
    def __set_name__(self, owner, name):
        self.private = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, self.private)

    def __set__(self, obj, value):
        if value <= 0:
            raise ValueError("must be positive")
        setattr(obj, self.private, value)


class Account:
    __slots__ = ("_balance", "owner")
    balance = Positive()

    def __init__(self, owner, balance):
        self.owner = owner
        self.balance = balance


class Temperature:
    def __init__(self):
        self._c = 0.0

    @property
    def fahrenheit(self):
        return self._c * 9 / 5 + 32

    @fahrenheit.setter
    def fahrenheit(self, value):
        self._c = (value - 32) * 5 / 9

    @fahrenheit.deleter
    def fahrenheit(self):
        self._c = 0.0


class Lazy:
    def __getattr__(self, name):
        return "computed " + name

    @classmethod
    def make(cls):
        return cls()

    @staticmethod
    def helper(x):
        return x + 1


a = Account("ann", 10)
try:
    a.other = 1
except AttributeError:
    print("slots refuse new attributes")
try:
    a.balance = -1
except ValueError as exc:
    print(exc, a.balance, Account.__slots__)
t = Temperature()
t.fahrenheit = 212
print(round(t._c, 3), t.fahrenheit)
del t.fahrenheit
print(t.fahrenheit, Lazy.make().anything, Lazy.helper(1), type(Account.balance).__name__)
