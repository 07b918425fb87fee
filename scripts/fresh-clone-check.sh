#!/usr/bin/env bash
# The set-up test: clones main into a temporary folder and runs both README commands there,
# exactly as the README writes them, as a newcomer on a fresh machine would. Run it before each
# stop. It cannot remove system packages, so it first says which of the ones the tests need it
# found already installed (on a really new machine the test command installs them itself).
#   bash scripts/fresh-clone-check.sh            # both commands
#   bash scripts/fresh-clone-check.sh --test     # the test command only
#   KEEP=1 bash scripts/fresh-clone-check.sh     # keep the clone for a look afterwards
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
which="${1:-both}"

echo "== system packages the tests use, already on this machine (not removed by this check):"
for pkg in chromium; do
  if dpkg-query -W -f='${Status} ${Version}\n' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    echo "   $pkg $(dpkg-query -W -f='${Version}' "$pkg") (installed)"
  else
    echo "   $pkg: not installed (the test command will install it)"
  fi
done

dir="$(mktemp -d "${TMPDIR:-/tmp}/fastrag-fresh-XXXXXX")"
cleanup() { if [ "${KEEP:-}" = "1" ]; then echo "kept: $dir"; else rm -rf "$dir"; fi; }
trap cleanup EXIT
git clone -q --branch main "$repo" "$dir/main"
# The tests read the shared acceptance data in place, from ../shared beside the repository, as
# CI lays it out (a copy of shared/ beside the clone).
if [ -d "$repo/../shared" ]; then ln -s "$(cd "$repo/../shared" && pwd)" "$dir/shared"; fi
cd "$dir/main"
echo "== fresh clone of main at $(git rev-parse --short HEAD) in $dir/main"

# The two commands, read from the README's first code block so this check cannot drift from it.
demo_cmd="$(sed -n '/^```sh$/,/^```$/p' README.md | sed -n 2p | sed 's/ *#.*$//')"
test_cmd="$(sed -n '/^```sh$/,/^```$/p' README.md | sed -n 3p | sed 's/ *#.*$//')"
[ -n "$demo_cmd" ] && [ -n "$test_cmd" ] || { echo "error: README's first lines have no two commands" >&2; exit 1; }

status=0
run() {
  local label="$1" cmd="$2" start end
  echo "== $label: $cmd"
  start=$(date +%s)
  if (eval "$cmd") >"$dir/$label.log" 2>&1 </dev/null; then
    end=$(date +%s); echo "   ok in $((end - start)) s"
  else
    end=$(date +%s); echo "   FAILED after $((end - start)) s; last lines of $dir/$label.log:"
    tail -n 30 "$dir/$label.log" | sed 's/^/   | /'
    status=1; KEEP=1
  fi
}
if [ "$which" != "--test" ]; then run demo "$demo_cmd"; fi
if [ "$which" != "--demo" ]; then run test "$test_cmd"; fi
exit $status
