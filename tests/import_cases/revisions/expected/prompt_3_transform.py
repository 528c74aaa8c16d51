def transform_and_enrich_users(users):
    return [dict(user, enriched=True) for user in users]
