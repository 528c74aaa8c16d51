import datetime as dt
import time
from zoneinfo import ZoneInfo, available_timezones

berlin = ZoneInfo("Europe/Berlin")
winter = dt.datetime(2024, 1, 15, 12, 0, tzinfo=berlin)
summer = dt.datetime(2024, 7, 15, 12, 0, tzinfo=berlin)
print(winter.isoformat(), summer.utcoffset(), summer.tzname(), winter.astimezone(dt.timezone.utc))
print(summer.astimezone(ZoneInfo("America/New_York")).isoformat(), ZoneInfo("UTC").key)
before = dt.datetime(2024, 3, 31, 1, 59, tzinfo=berlin)
print((before + dt.timedelta(minutes=2)).tzname(),
      dt.datetime(2024, 10, 27, 2, 30, fold=1, tzinfo=berlin).utcoffset())
parsed = dt.datetime.strptime("2024-02-29 13:45", "%Y-%m-%d %H:%M")
print(parsed.strftime("%A %d %B %Y, %I:%M %p"), parsed.isocalendar(), parsed.weekday(),
      parsed.timetuple().tm_yday)
print(dt.date(2024, 3, 1) - dt.date(2024, 2, 1),
      dt.timedelta(days=1, seconds=3661).total_seconds(), dt.date.fromisoformat("2024-05-06"))
print(dt.datetime.fromtimestamp(0, dt.timezone.utc),
      dt.datetime.fromisoformat("2024-01-02T03:04:05+01:00").utcoffset())
now = dt.datetime.now(dt.timezone.utc)
print(now.tzinfo, now.year >= 2024, isinstance(time.time(), float), "Europe/Berlin" in available_timezones())
print(time.strftime("%Y-%m-%d", time.gmtime(86400)), time.mktime(time.localtime(100)) == 100,
      dt.datetime(2024, 1, 1).astimezone().utcoffset() is not None)
