import pytest
@pytest.mark.e2e
def test_explore(page, shot, live_server):
    page.goto("/new")
    shot(page, "x-setup")
