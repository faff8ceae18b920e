#!/usr/bin/env sh
# test/many-instances.test.ts runs 3 LMS and 2 gateways behind Debian's HAProxy, with the
# repository's own configuration (deploy/haproxy), and test/compose.test.ts checks that
# configuration with `haproxy -c`. As with chromium: install it when missing and we may (root
# with apt-get, as on the team's and CI's machines); otherwise say how and fail.
command -v haproxy >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "e2e: installing Debian's haproxy for the many-instances test (apt-get, once)..." >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null && command -v haproxy >/dev/null 2>&1 && exit 0
fi
echo "e2e: haproxy is missing: install Debian's haproxy (sudo apt-get install -y haproxy) to run the many-instances test" >&2
exit 1
