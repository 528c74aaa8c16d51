def transform_and_enrich_users(users):
    return [dict(u, active=bool(u.get("active"))) for u in users]
