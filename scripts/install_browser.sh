#!/usr/bin/env bash
# Install the headless Chromium that tests/test_report_browser.py drives (Debian's `chromium`).
# Installs only when /usr/bin/chromium is missing and we are root; otherwise says why not and
# exits 0, so the browser test can skip with that reason on a developer's non-root machine.
# As root, a failed install (after waiting up to 10 minutes for the package lock) prints
# apt-get's last lines and exits 1, which stops `make test` before the suite.
set -euo pipefail

CHROMIUM=${RB_CHROMIUM:-/usr/bin/chromium}  # (RB_CHROMIUM: for the test of this script)

if [ -x "$CHROMIUM" ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "install_browser: $CHROMIUM is missing and we are not root; the browser test will be" \
         "skipped. Install it with: sudo apt-get install -y chromium" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_browser: $CHROMIUM is missing and apt-get is not available; the browser" \
         "test will be skipped. Install a Chromium at $CHROMIUM to run it." >&2
    exit 0
fi
echo "install_browser: installing Debian's chromium for the report browser test" >&2
export DEBIAN_FRONTEND=noninteractive
# Another apt or dpkg (an unattended upgrade at boot) may hold the package lock: wait for it
# (up to 10 minutes) instead of failing at once.
LOCK_WAIT=(-o DPkg::Lock::Timeout=600)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { apt-get "${LOCK_WAIT[@]}" update -qq && \
       apt-get "${LOCK_WAIT[@]}" install -y -qq --no-install-recommends chromium; } >"$log" 2>&1; then
    {
        echo "install_browser: ERROR: apt-get could not install chromium, which the report browser"
        echo "install_browser: test (tests/test_report_browser.py) needs when run as root. apt-get said:"
        tail -n 15 "$log" | sed 's/^/install_browser:   /'
    } >&2
    exit 1
fi
"$CHROMIUM" --version >&2
