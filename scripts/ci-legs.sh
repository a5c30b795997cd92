#!/usr/bin/env bash
# CI's extra legs, each in a fresh virtual environment of its own (docs/development.md):
#   newest  every dependency at the newest version pyproject allows (pip's eager upgrade), on the
#           newest Python here: ruff, mypy and the unit tier (-m unit). Turns CI red the day a
#           release breaks us, not the day a user finds it. Its versions are written to
#           artifacts/newest-freeze.txt, so a red run can be reproduced.
#   oldest  every direct dependency at its declared lower bound (constraints/lowest.txt), on the
#           oldest Python claimed (3.11): ruff, mypy and the unit tier.
# The integration and browser tiers run once, in .ci/run's last leg (docs/development.md).
# Usage: bash scripts/ci-legs.sh [newest] [oldest]
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p artifacts
venvs=$(mktemp -d)
trap 'rm -rf "$venvs"' EXIT

# pip, without the warning it gives for every package where a configured index folder is absent
pip_install() {
  python3 -m pip install -q --disable-pip-version-check "$@" \
    2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2)
}

# The first of these Pythons that runs (a pyenv shim names versions it will not run).
first_python() {
  for candidate in "$@"; do
    if "$candidate" -c '' >/dev/null 2>&1; then echo "$candidate"; return; fi
  done
  echo python3
}

legs=("$@")
[ ${#legs[@]} -gt 0 ] || legs=(newest oldest)
for leg in "${legs[@]}"; do
  started=$SECONDS
  case $leg in
    newest)
      pyenv_root=${PYENV_ROOT:-$HOME/.pyenv}
      python=$(first_python python3.14 "$pyenv_root"/versions/3.14*/bin/python3 \
        python3.13 "$pyenv_root"/versions/3.13*/bin/python3 \
        python3.12 "$pyenv_root"/versions/3.12*/bin/python3)
      "$python" -m venv "$venvs/newest"
      (
        . "$venvs/newest/bin/activate"
        pip_install --upgrade pip
        pip_install --upgrade --upgrade-strategy eager -e '.[test]'
        python3 -m pip freeze --exclude-editable > artifacts/newest-freeze.txt
        JACQUET_CONSTRAINTS=artifacts/newest-freeze.txt bash scripts/test.sh -m unit
      )
      ;;
    oldest)
      python=$(first_python python3.11 python3)
      "$python" -m venv "$venvs/oldest"
      (
        . "$venvs/oldest/bin/activate"
        pip_install -e '.[test]' -c constraints/lowest.txt
        python3 -m pip freeze --exclude-editable > artifacts/oldest-freeze.txt
        JACQUET_CONSTRAINTS=constraints/lowest.txt bash scripts/test.sh -m unit
      )
      ;;
    *) echo "ci-legs.sh: unknown leg $leg (newest, oldest)" >&2; exit 2 ;;
  esac
  echo "ci-legs.sh: the $leg leg passed in $((SECONDS - started)) s with $(tr '\n' ' ' < "artifacts/$leg-freeze.txt")"
done
