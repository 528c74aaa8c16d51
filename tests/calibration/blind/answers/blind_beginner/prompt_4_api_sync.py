import json
import time
import requests


def sync_users_to_crm(user_data, api_token):
    url = "https://api.crm-provider.com/v1/users/sync"
    headers = {
        "Authorization": "Bearer " + api_token,
        "Content-Type": "application/json",
    }

    for attempt in range(3):
        try:
            print("Sending", len(user_data), "users to CRM (attempt", attempt + 1, "of 3)")
            response = requests.post(url, headers=headers, data=json.dumps(user_data), timeout=30)

            if response.status_code == 200 or response.status_code == 202:
                data = response.json()
                print("Sync started, job id:", data["job_id"])
                return data["job_id"]
            elif response.status_code == 400:
                print("Error 400: the CRM rejected the payload:", response.text)
                return None
            elif response.status_code == 401:
                print("Error 401: unauthorized, check your API token")
                return None
            elif response.status_code == 503:
                print("Error 503: service unavailable, retrying...")
                time.sleep(2 ** attempt)
            else:
                print("Error", response.status_code, ":", response.text)
                return None

        except requests.exceptions.Timeout:
            print("Request timed out, retrying...")
            time.sleep(2 ** attempt)
        except requests.exceptions.ConnectionError:
            print("Connection error, retrying...")
            time.sleep(2 ** attempt)
        except Exception as e:
            print("Unexpected error:", e)
            return None

    print("Sync failed after 3 attempts")
    return None


if __name__ == "__main__":
    import os

    with open("api_users.json", encoding="utf-8") as f:
        users = json.load(f)
    job_id = sync_users_to_crm(users, os.environ.get("CRM_API_TOKEN", ""))
    print("Result:", job_id)
