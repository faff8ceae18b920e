#!/usr/bin/env sh
# test/browser/learner-walk.test.ts reads the certificate PDF a member downloads with poppler's
# pdftotext (a reader other than the pdf.js the LMS's own tests use). As with chromium: install it
# when missing and we may (root with apt-get, as on the team's and CI's machines); otherwise say
# how and fail.
command -v pdftotext >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "e2e: installing Debian's poppler-utils for the certificate PDF check (apt-get, once)..." >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq poppler-utils >/dev/null && command -v pdftotext >/dev/null 2>&1 && exit 0
fi
echo "e2e: pdftotext is missing: install Debian's poppler-utils (sudo apt-get install -y poppler-utils) to run the browser walk" >&2
exit 1
