import warnings


def old_api():
    warnings.warn("old_api is deprecated", DeprecationWarning, stacklevel=2)
    return 1


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    old_api()
    warnings.warn("plain user warning")
print([(w.category.__name__, str(w.message), w.filename.endswith("idiom.py")) for w in caught])
with warnings.catch_warnings():
    warnings.simplefilter("error", UserWarning)
    try:
        warnings.warn("now an error")
    except UserWarning as exc:
        print("raised:", exc)
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message="noisy.*")
    warnings.warn("noisy thing")
    print("ignored")


class MyWarning(UserWarning):
    pass


with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("default")
    for _ in range(3):
        warnings.warn("once per location", MyWarning)
print(len(caught), caught[0].category.__name__)
warnings.warn("to stderr, not compared", RuntimeWarning)
print("done", warnings.formatwarning("msg", UserWarning, "file.py", 3).strip())
