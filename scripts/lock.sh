#!/usr/bin/env bash
# Renew constraints/ci.txt, the exact versions scripts/test.sh installs: the newest versions
# pyproject allows today, resolved in a fresh virtual environment on the oldest Python claimed.
# Run it when the newest leg of CI is green and the lock is behind (docs/development.md).
set -euo pipefail
cd "$(dirname "$0")/.."
python=python3.11
command -v "$python" >/dev/null 2>&1 || python=python3
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -e '.[test]' \
  2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)
{
  echo "# The versions CI installs (scripts/test.sh); renewed by scripts/lock.sh on $($venv/bin/python --version)."
  "$venv/bin/python" -m pip freeze --exclude-editable
} > constraints/ci.txt
echo "lock.sh: constraints/ci.txt has $(grep -vc '^#' constraints/ci.txt) pins"
