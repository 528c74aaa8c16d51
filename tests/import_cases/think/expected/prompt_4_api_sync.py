import requests


def sync_users_to_crm(users, api_key, base_url="https://crm.example.com"):
    response = requests.post(f"{base_url}/users/sync", json=users,
                             headers={"Authorization": f"Bearer {api_key}"}, timeout=10)
    response.raise_for_status()
    return response.json().get("job_id")
