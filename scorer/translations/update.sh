#!/usr/bin/env bash
# Refresh the message catalogue: extract every _() from the code and templates
# (and the RulesError templates of scorer.rules), merge into the German
# catalogue, compile.  Run from anywhere; then translate the new msgids in
# scorer/translations/de/LC_MESSAGES/messages.po and run it again.
set -euo pipefail
cd "$(dirname "$0")/../.."
pybabel=.venv/bin/pybabel
$pybabel extract -F scorer/translations/babel.cfg -o scorer/translations/messages.pot \
  -k _l -k lazy_gettext -k RulesError -k CardError -k MeldError -k TrickError -k BidError \
  --no-location --sort-output --omit-header -c TRANSLATORS: --ignore-dirs='.* node_modules' . >/dev/null
if [ -f scorer/translations/de/LC_MESSAGES/messages.po ]; then
  $pybabel update -i scorer/translations/messages.pot -d scorer/translations -l de --no-fuzzy-matching --ignore-obsolete >/dev/null
else
  $pybabel init -i scorer/translations/messages.pot -d scorer/translations -l de >/dev/null
fi
$pybabel compile -d scorer/translations -l de >/dev/null 2>&1 || $pybabel compile -f -d scorer/translations -l de
grep -c '^msgid' scorer/translations/de/LC_MESSAGES/messages.po
