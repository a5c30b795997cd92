#!/usr/bin/env bash
# Everything the tests need, on a fresh machine, then the checks: ruff, mypy, pytest.
#
# It installs into the active virtual environment, or makes and uses .venv when none is active
# (never the system's Python). The package and its test extras are pinned to constraints/ci.txt,
# the versions CI passed with, so that a red run can be reproduced; JACQUET_CONSTRAINTS names
# another constraints file (constraints/lowest.txt: the oldest versions pyproject allows), or
# none when set empty (pip then picks the newest allowed). Arguments go to pytest (for instance
# -m unit: the quick tier). pytest runs on JACQUET_WORKERS processes (2 unless set; 0 runs in
# this one), a test file to each (--dist loadfile: a module's server and browser start once),
# because the integration and browser tiers mostly wait. docs/development.md says more.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! python3 -c 'import sys; sys.exit(sys.prefix == sys.base_prefix)'; then
  # Debian's own Python makes virtual environments only with its python3-venv package
  if [ ! -x .venv/bin/python3 ] && ! python3 -c 'import ensurepip' >/dev/null 2>&1 \
    && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
  fi
  [ -x .venv/bin/python3 ] || python3 -m venv .venv
  . .venv/bin/activate
fi

# The browser tests drive Debian's Chromium; install it where it is missing.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "test.sh: chromium is missing and we are not root; browser tests will be skipped" >&2
  fi
fi

# pip, without the warning it gives for every package where a configured index folder is absent
pip_install() {
  python3 -m pip install -q --disable-pip-version-check "$@" \
    2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)
}

constraints=${JACQUET_CONSTRAINTS-constraints/ci.txt}
pip_install -e '.[test]' ${constraints:+-c "$constraints"}
echo "test.sh: $(python3 --version), constraints: ${constraints:-none (newest allowed)}"
python3 -m ruff check jacquet_notation tests bench
python3 -m ruff format --check jacquet_notation tests bench
python3 -m mypy
python3 -m pytest -q -n "${JACQUET_WORKERS:-2}" --dist loadfile "$@"
