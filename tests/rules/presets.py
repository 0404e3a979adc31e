"""The rulesets the rules tests play with, by the names the tables use."""

from scorer.rules import PRESETS, Ruleset

STANDARD = Ruleset()
KREUZ = PRESETS["kreuzbinokel"]
SECHSER = PRESETS["sechser"]
AUSSETZER = PRESETS["vier_mit_aussetzer"]
TURNIER = PRESETS["turnier"]
ZWEIER = PRESETS["zweier"]
SCHWEIZER = PRESETS["schweizer"]
