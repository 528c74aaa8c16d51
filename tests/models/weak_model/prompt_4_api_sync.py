import requests
import time


def sync_users_to_crm(user_data, api_token):
    url = "https://api.crm-provider.com/v1/users/sync"
    headers = {"Authorization": "Bearer " + api_token, "Content-Type": "application/json"}
    print("Syncing %d users with token %s" % (len(user_data), api_token))

    for i in range(3):
        try:
            response = requests.post(url, json=user_data, headers=headers)
            if response.status_code == 200:
                job_id = response.json()["job_id"]
                print("Success! job id:", job_id)
                return job_id
            elif response.status_code == 503:
                print("Service unavailable, retrying...")
                time.sleep(1)
            else:
                print("Error:", response.status_code, response.text)
                time.sleep(1)
        except Exception as e:
            print("Request failed:", e)
            time.sleep(1)
    return None
