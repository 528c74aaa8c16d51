from copy import deepcopy


def transform_and_enrich_users(users):
    """Return enriched copies of ``users``."""
    result = []
    for user in users:
        item = deepcopy(user)
        item["name"] = str(item.get("name", "")).strip()
        result.append(item)
    return result
