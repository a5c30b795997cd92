#!/usr/bin/env bash
# Everything the tests need, on a fresh machine, then the checks: ruff, mypy, pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

# The browser tests drive Debian's Chromium; install it where it is missing.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "test.sh: chromium is missing and we are not root; browser tests will be skipped" >&2
  fi
fi

python3 -m pip install -q --disable-pip-version-check -e '.[test]'
python3 -m ruff check jacquet_notation tests bench
python3 -m ruff format --check jacquet_notation tests bench
python3 -m mypy
python3 -m pytest -q "$@"
