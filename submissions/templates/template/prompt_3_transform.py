# Prompt 3: define transform_and_enrich_users(user_list) here.
