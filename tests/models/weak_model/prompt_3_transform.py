import json


def transform_and_enrich_users(user_list):
    for user in user_list:
        # standardise id
        try:
            user["id"] = int(user["id"])
        except ValueError:
            print("bad id", user["id"])

        # email provider
        contact = user.get("contact", {})
        email = contact.get("email")
        if email:
            contact["email_provider"] = email.split("@")[1].lower()
        else:
            contact["email_provider"] = None
        user["contact"] = contact

        # age
        stats = user.get("stats", {})
        try:
            stats["age"] = int(stats.get("age"))
        except (ValueError, TypeError):
            stats["age"] = None
        user["stats"] = stats

        # tier
        purchases = float(stats.get("total_purchases", 0))
        if purchases > 100:
            user["account_tier"] = "Gold"
        elif purchases > 50:
            user["account_tier"] = "Silver"
        else:
            user["account_tier"] = "Bronze"
    return user_list


if __name__ == "__main__":
    data = json.load(open("user_data.json", encoding="utf-8-sig"))
    print(json.dumps(transform_and_enrich_users(data), indent=2))
