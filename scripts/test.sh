#!/usr/bin/env bash
# The full test suite: install, build, typecheck, lint, test, package checks, API docs.
set -euo pipefail
cd "$(dirname "$0")/.."
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
PNPM="npx -y pnpm@10"
$PNPM install --frozen-lockfile
$PNPM run build
$PNPM run typecheck
$PNPM run lint
$PNPM run test
$PNPM run check:package
$PNPM run docs
