"""Tests of the pure rules package: no app, tables of real hands and properties."""
