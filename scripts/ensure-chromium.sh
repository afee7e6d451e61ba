#!/usr/bin/env bash
# Make sure Debian's chromium is present for the browser tests (never `playwright install`: no downloads here).
set -eu
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
  echo "installing Debian chromium for the browser tests (about a minute)"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
else
  echo "error: /usr/bin/chromium is missing: install Debian's chromium package (apt-get install chromium) for the browser tests." >&2
  exit 1
fi
