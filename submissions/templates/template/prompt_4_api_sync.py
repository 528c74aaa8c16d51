# Prompt 4: define sync_users_to_crm(user_data, api_token) here.
