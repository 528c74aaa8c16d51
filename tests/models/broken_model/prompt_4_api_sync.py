import requests

API_URL = "https://api.crm-provider.com/v1/users/sync"


def sync_users_to_crm(user_data, api_token):
    headers = {
        "Authorization": f"Bearer {api_token}",
        "Content-Type": "application/json",
    }
    try:
        response = requests.post(API_URL, json=user_data, headers=headers, timeout=10)
        job_id = response.json()["job_id"]
        print("Sync started, job id:", job_id)
        return job_id
    except requests.exceptions.RequestException as e:
        print("Sync failed:", e)
        return None
