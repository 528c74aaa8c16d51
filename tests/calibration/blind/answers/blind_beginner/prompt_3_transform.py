import json
import copy


def transform_and_enrich_users(user_list):
    """Clean up the user records and add email_provider and account_tier."""
    result = []

    if not isinstance(user_list, list):
        print("Warning: expected a list of users")
        return result

    for user in user_list:
        if not isinstance(user, dict):
            print("Warning: skipping invalid record:", user)
            continue

        try:
            new_user = copy.deepcopy(user)

            # 1. standardise the id
            if "id" in new_user:
                try:
                    new_user["id"] = int(new_user["id"])
                except Exception:
                    print("Warning: could not convert id", new_user["id"])

            # 2. email provider
            if "contact" not in new_user or new_user["contact"] is None:
                new_user["contact"] = {}
            email = new_user["contact"].get("email")
            if email and "@" in email:
                new_user["contact"]["email_provider"] = email.split("@")[1].strip().lower()
            else:
                new_user["contact"]["email_provider"] = None

            # 3. age
            if "stats" not in new_user or new_user["stats"] is None:
                new_user["stats"] = {}
            age = new_user["stats"].get("age")
            try:
                new_user["stats"]["age"] = int(age)
            except Exception:
                new_user["stats"]["age"] = None

            # 4. account tier
            purchases = new_user["stats"].get("total_purchases", 0)
            try:
                purchases = float(purchases)
            except Exception:
                purchases = 0
            if purchases >= 100:
                new_user["account_tier"] = "Gold"
            elif purchases >= 50:
                new_user["account_tier"] = "Silver"
            else:
                new_user["account_tier"] = "Bronze"

            result.append(new_user)
        except Exception as e:
            print("Error processing user", user.get("id"), ":", e)

    return result


if __name__ == "__main__":
    with open("user_data.json", encoding="utf-8-sig") as f:
        data = json.load(f)
    cleaned = transform_and_enrich_users(data)
    print(json.dumps(cleaned, indent=2, ensure_ascii=False))
