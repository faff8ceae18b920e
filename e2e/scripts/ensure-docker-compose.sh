#!/usr/bin/env sh
# test/compose.test.ts validates docker-compose.yml with Debian's docker-compose (1.29, no Docker
# daemon needed for `config`). As with chromium: install it when missing and we may (root with
# apt-get, as on the team's and CI's machines); otherwise say how and fail.
command -v docker-compose >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "e2e: installing Debian's docker-compose for the compose check (apt-get, once)..." >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null && command -v docker-compose >/dev/null 2>&1 && exit 0
fi
echo "e2e: docker-compose is missing: install Debian's docker-compose (sudo apt-get install -y docker-compose) to run the compose check" >&2
exit 1
