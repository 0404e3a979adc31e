#!/usr/bin/env bash
# The lock files, from pyproject.toml's dependencies: the exact versions a hall installs
# (requirements.lock) and those the tests add to them (requirements-dev.lock, the hall's
# pins unchanged).  The README's commands and tests/run.sh (CI) install from them.
#
# After adding or changing a dependency in pyproject.toml, from the top of the checkout:
#     bash lock.sh
# Pins already in the lock files stay while they still fit; `bash lock.sh --upgrade` takes
# the newest release of everything, `bash lock.sh --upgrade-package NAME` of one package.
# Commit both files; tests/web/test_package.py fails while they do not match pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")"
[ -x .venv/bin/python ] || python3 -m venv .venv
[ -x .venv/bin/pip-compile ] || .venv/bin/pip install -q --disable-pip-version-check 'pip-tools>=7.4'
export CUSTOM_COMPILE_COMMAND="bash lock.sh"  # what the files' heads say to run
options=(-q --strip-extras --no-emit-index-url --no-emit-find-links --no-emit-trusted-host "$@")
.venv/bin/pip-compile "${options[@]}" -o requirements.lock pyproject.toml
.venv/bin/pip-compile "${options[@]}" --extra dev -c requirements.lock -o requirements-dev.lock \
  pyproject.toml
