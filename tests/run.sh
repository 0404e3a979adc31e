#!/usr/bin/env bash
# The whole test suite, from a fresh Debian machine: installs what it needs
# (system packages as root, the project in .venv), checks lint and types,
# then runs pytest on SQLite and again on a PostgreSQL server it starts itself
# on 127.0.0.1.  Extra arguments go to pytest (e.g. `bash tests/run.sh -k melds`).
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null || need+=(chromium)
command -v pdftoppm >/dev/null || need+=(poppler-utils)
[ -x /usr/lib/postgresql/15/bin/initdb ] || need+=(postgresql)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need+=(fonts-dejavu-core)
# WeasyPrint subsets the PDF's fonts with it (and warns, an error in the suite, without)
ldconfig -p | grep -q libharfbuzz-subset || need+=(libharfbuzz-subset0)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
# the versions that were tested (requirements-dev.lock; made anew by `bash lock.sh`)
.venv/bin/pip install -q --disable-pip-version-check -r requirements-dev.lock -e '.[dev]'

.venv/bin/ruff check .
.venv/bin/ruff format --check scorer/rules tests/rules
.venv/bin/mypy
.venv/bin/mypy --strict --follow-imports=silent scorer/rules  # the rules alone, strictly
.venv/bin/lint-imports --no-cache --no-logo  # the layers of .importlinter, no import circles

# the tests run in parallel, one worker per core (each PostgreSQL worker in a schema of
# its own, see tests/builders.py)
workers=(-n "${TEST_WORKERS:-$(nproc)}")

echo "== pytest on SQLite"
.venv/bin/pytest -q "${workers[@]}" "$@"

echo "== pytest on PostgreSQL"
pgbin=/usr/lib/postgresql/15/bin
pgdir=$(mktemp -d /tmp/scorer-pg.XXXXXX)
port=$(.venv/bin/python -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
runas=()
if [ "$(id -u)" -eq 0 ]; then chown postgres "$pgdir"; runas=(runuser -u postgres --); fi
"${runas[@]}" "$pgbin/initdb" -D "$pgdir/data" -U scorer --auth=trust -E UTF8 >/dev/null
"${runas[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
  -o "-h 127.0.0.1 -p $port -k $pgdir -c fsync=off -c full_page_writes=off" start >/dev/null
trap '"${runas[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$pgdir"' EXIT
"${runas[@]}" "$pgbin/createdb" -h 127.0.0.1 -p "$port" -U scorer scorer_test
TEST_DATABASE_URL="postgresql+psycopg://scorer@127.0.0.1:$port/scorer_test" .venv/bin/pytest -q "${workers[@]}" "$@"
