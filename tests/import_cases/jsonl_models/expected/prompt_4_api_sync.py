def sync_users_to_crm(users, api_key):
    return 'job'
