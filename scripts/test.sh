#!/usr/bin/env bash
# The full test suite: browser check, install, build, typecheck, lint, test, package checks, API docs.
# The README's test command is `npx -y pnpm@10 install && bash scripts/test.sh`; .ci/run runs
# exactly that command and nothing else.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
# First, so a machine that cannot run the browser test says so at once, not minutes in.
bash scripts/ensure-browser.sh
PNPM="npx -y pnpm@10"
$PNPM install --frozen-lockfile
$PNPM run build
$PNPM run typecheck
$PNPM run lint
$PNPM run test
$PNPM run check:package
$PNPM run docs
