class Registry(type):
    classes = {}

    def __new__(mcls, name, bases, namespace, **kwargs):
        cls = super().__new__(mcls, name, bases, namespace)
        mcls.classes[name] = cls
        return cls

    def __call__(cls, *args, **kwargs):
        instance = super().__call__(*args, **kwargs)
        instance.created_by = "Registry"
        return instance


class Plugin(metaclass=Registry):
    pass


class Audio(Plugin):
    pass


class Base:
    kinds = []

    def __init_subclass__(cls, kind="plain", **kwargs):
        super().__init_subclass__(**kwargs)
        cls.kind = kind
        Base.kinds.append((cls.__name__, kind))


class Json(Base, kind="json"):
    pass


class Text(Base):
    pass


class Named:
    def __set_name__(self, owner, name):
        self.name = owner.__name__ + "." + name


class Holder:
    field = Named()

    def __class_getitem__(cls, item):
        return f"Holder[{item.__name__}]"


class Singleton(type):
    _instances = {}

    def __call__(cls, *args, **kwargs):
        if cls not in cls._instances:
            cls._instances[cls] = super().__call__(*args, **kwargs)
        return cls._instances[cls]


class Settings(metaclass=Singleton):
    pass


print(sorted(Registry.classes), Audio().created_by, type(Audio).__name__)
print(Base.kinds, Json.kind, Text.kind)
print(Holder.field.name, Holder[int], Settings() is Settings())
Dynamic = type("Dynamic", (Base,), {"x": 1}, kind="dyn")
print(Dynamic.x, Dynamic.kind)
