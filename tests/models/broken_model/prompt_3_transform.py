def transform_and_enrich_users(user_list):
    result = []
    for user in user_list:
        new_user = dict(user)
        new_user["id"] = int(str(user["id"]).strip())
        email = user["contact"]["email"]
        new_user["contact"] = dict(user["contact"])
        new_user["contact"]["email_provider"] = email.split("@")[-1].lower()
        new_user["stats"] = dict(user["stats"])
        new_user["stats"]["age"] = int(user["stats"]["age"])
        purchases = int(user["stats"]["total_purchases"])
        if purchases >= 100:
            new_user["account_tier"] = "Gold"
        elif purchases >= 50:
            new_user["account_tier"] = "Silver"
        else:
            new_user["account_tier"] = "Bronze"
        result.append(new_user)
    return result
