def transform_and_enrich_users(users):
    return list(users)
