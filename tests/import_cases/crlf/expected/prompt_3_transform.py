def transform_and_enrich_users(users):
    return [dict(u) for u in users]
