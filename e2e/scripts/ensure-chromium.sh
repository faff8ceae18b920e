#!/usr/bin/env sh
# The browser tests drive Debian's chromium at /usr/bin/chromium (never a browser a tool downloads).
# When it is missing and we may install it (root with apt-get, as on the team's and CI's machines),
# install it; otherwise say how and fail: the browser tests never skip.
[ -x /usr/bin/chromium ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "e2e: installing Debian's chromium for the browser tests (apt-get, once)..." >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null && [ -x /usr/bin/chromium ] && exit 0
fi
echo "e2e: /usr/bin/chromium is missing: install Debian's chromium (sudo apt-get install -y chromium) to run the browser tests" >&2
exit 1
