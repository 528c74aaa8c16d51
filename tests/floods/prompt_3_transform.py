"""Each call returns about 3 MiB of strings (six calls a run: past the 16 MiB the report pipe
and the result channel carry) and prints 2 MiB (bounded)."""


def transform_and_enrich_users(user_list):
    print("z" * (2 * 1024 * 1024))
    return ["w" * 4096 for _ in range(768)]
