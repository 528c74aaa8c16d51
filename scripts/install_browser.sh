#!/usr/bin/env bash
# Install the headless Chromium that tests/test_report_browser.py drives (Debian's `chromium`).
# Installs only when /usr/bin/chromium is missing and we are root; otherwise says why not and
# exits 0, so the browser test can skip with that reason on a developer's non-root machine.
set -euo pipefail

CHROMIUM=/usr/bin/chromium

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
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium >/dev/null
"$CHROMIUM" --version >&2
