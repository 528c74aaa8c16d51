import requests
import requests_mock
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

session = requests.Session()
retry = Retry(total=3, backoff_factor=0.1, status_forcelist=[500, 502, 503], allowed_methods=["GET"])
session.mount("https://", HTTPAdapter(max_retries=retry))
session.headers.update({"User-Agent": "idiom/1.0"})
adapter = requests_mock.Adapter()
session.mount("mock://", adapter)
adapter.register_uri("GET", "mock://api/users/1", json={"id": 1, "name": "ann"}, headers={"X-Rate": "5"})
adapter.register_uri("POST", "mock://api/users", status_code=201, json={"created": True})
adapter.register_uri("GET", "mock://api/missing", status_code=404, reason="Not Found")
response = session.get("mock://api/users/1", params={"expand": "all"}, timeout=5)
print(response.status_code, response.json(), response.headers["X-Rate"], response.ok, adapter.last_request.qs)
created = session.post("mock://api/users", json={"name": "bo"})
print(created.status_code, created.json(), adapter.last_request.json(), adapter.call_count)
missing = session.get("mock://api/missing")
try:
    missing.raise_for_status()
except requests.HTTPError as exc:
    print("HTTPError", exc.response.status_code, missing.reason)
with requests_mock.Mocker() as mocker:
    mocker.get("https://example.com/items", [{"status_code": 503}, {"json": [1, 2], "status_code": 200}])
    mocker.get("https://example.com/slow", exc=requests.exceptions.ConnectTimeout)
    first = requests.get("https://example.com/items")
    second = session.get("https://example.com/items")
    print(first.status_code, second.json(), mocker.call_count, mocker.called)
    try:
        requests.get("https://example.com/slow", timeout=0.1)
    except requests.exceptions.Timeout as exc:
        print("timeout:", type(exc).__name__)
print(session.get_adapter("https://x").max_retries.total, requests.__version__, requests.utils.quote("a b"))
prepared = requests.Request("GET", "https://example.com/search", params={"q": "x y"}).prepare()
print(prepared.url, requests.codes.ok, requests.structures.CaseInsensitiveDict({"A": 1})["a"])
