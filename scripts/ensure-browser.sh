#!/usr/bin/env bash
# Makes sure the HTML report's browser test can run: Debian's Chromium at /usr/bin/chromium.
# Called by scripts/test.sh (the README's test command) and so by .ci/run: one place for both.
# - Chromium present, or FASTRAG_SKIP_BROWSER=1: nothing to do.
# - Missing, root and apt-get: installs Debian's package (never a downloaded browser). Waits for
#   a dpkg lock held by another apt run instead of failing at once; tries twice.
# - Missing and cannot install (not root, or no apt-get): stops at once with one line that says
#   what to install and how to skip the browser tests, before any build or test starts.
set -euo pipefail

CHROMIUM=/usr/bin/chromium
if [ "${FASTRAG_SKIP_BROWSER:-}" = "1" ] || [ -x "$CHROMIUM" ]; then
  exit 0
fi

if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "error: the HTML report's browser test needs Chromium at $CHROMIUM: install it (Debian: sudo apt-get install -y chromium) or skip the browser tests with FASTRAG_SKIP_BROWSER=1 bash scripts/test.sh" >&2
  exit 1
fi

echo "Installing Debian's chromium for the HTML report's browser test (apt-get)..." >&2
for attempt in 1 2; do
  if apt-get -o DPkg::Lock::Timeout=300 update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq chromium >/dev/null; then
    break
  fi
  echo "warning: installing chromium failed (attempt $attempt)" >&2
  [ "$attempt" = 2 ] || sleep 10
done

if [ ! -x "$CHROMIUM" ]; then
  echo "error: apt-get could not install chromium (see above); install it by hand or skip the browser tests with FASTRAG_SKIP_BROWSER=1 bash scripts/test.sh" >&2
  exit 1
fi
