"""The tournament online: a hall pushes its public side to a hosted copy (issue 31)."""
