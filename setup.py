"""The packages of the wheel (everything else is pyproject.toml's).

``templates/``, ``static/`` and ``migrations/`` stay at the top of the repository
(the project's layout); the wheel carries them inside the package as
``scorer/templates``, ``scorer/static`` and ``scorer/migrations``, where an
installed scorer finds them (``scorer.resources``), from any folder.
"""

from setuptools import find_packages, setup

MAPPED = {
    "scorer.templates": "templates",
    "scorer.static": "static",
    "scorer.migrations": "migrations",
}

setup(
    packages=[*find_packages(include=["scorer", "scorer.*"]), *MAPPED],
    package_dir=MAPPED,
    package_data={
        "scorer": ["translations/*/LC_MESSAGES/*.po", "translations/*/LC_MESSAGES/*.mo"],
        **{name: ["**/*"] for name in MAPPED},
    },
)
