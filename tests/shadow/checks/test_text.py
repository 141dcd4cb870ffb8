"""Near misses of the text and command readers: what must never count as a claim,
a citation or a destructive command."""

from __future__ import annotations

from shadow_mind_plugin.checks.shell import Category, categories, destruction, only_looks
from shadow_mind_plugin.checks.text import changed_paths, cited, claims, claims_done


def _nothing(_name: str) -> bool:
    return False


def test_claims_need_a_plain_sentence_with_the_verb_after_its_subject() -> None:
    assert claims("All 12 tests pass.", Category.TESTS) == "All 12 tests pass."
    assert claims("The test suite is now green.", Category.TESTS)
    assert claims("Ruff reports no errors.", Category.LINT)
    assert claims("The build succeeds.", Category.BUILD)
    for text in (
        "I wrote a test for the passing case.",
        "Tests should pass once you rerun them.",
        "Do the tests pass?",
        "The tests don't pass yet.",
    ):
        assert claims(text, Category.TESTS) is None, text


def test_done_claims_exclude_explanations_and_admissions() -> None:
    assert claims_done("Done.") == "Done."
    assert claims_done("This works by caching the parsed file.") is None
    assert claims_done("Done, but the install failed.") is None


def test_changes_are_the_answers_own() -> None:
    assert [p for p, _ in changed_paths("I updated `src/app.py` and added docs/x.md.")] == ["src/app.py", "docs/x.md"]
    assert [p for p, _ in changed_paths("- Fixed src/app.py.")] == ["src/app.py"]
    assert [p for p, _ in changed_paths("`src/app.py` was updated.")] == ["src/app.py"]
    assert changed_paths("You created config.yml earlier, so I left it.") == []


def test_code_blocks_and_links_are_not_citations() -> None:
    answer = "Use this:\n```python\nopen('data/input.csv')\nrun(`x`)\n```\nSee https://example.com/a/b.py and github.com/o/r.py."
    assert cited(answer) == []
    assert cited("Call `helper()` from `src/util.py`; `len()` and `os.path.join()` are stdlib.") == [
        ("helper()", "helper"),
        ("src/util.py", "util.py"),
    ]


def test_command_categories_and_looks() -> None:
    assert categories("cd app && python -m pytest -q") == {Category.TESTS}
    assert categories("ruff check . && mypy") == {Category.LINT}
    assert categories("npm run build") == {Category.BUILD}
    assert categories("cat pytest.ini") == set()
    # task runners' recipes, as for make: `just check` runs the tests (and often more)
    assert categories("just check 2>&1") == {Category.TESTS}
    assert categories("just test") == {Category.TESTS}
    assert categories("just lint") == {Category.LINT}
    assert categories("just format") == set()
    assert only_looks("grep -rn foo src") and not only_looks("pip install foo")


def test_cleanup_is_not_destruction() -> None:
    assert destruction("rm -rf src", made=_nothing) is not None
    assert destruction("git rm -r --cached vendor", made=_nothing) is None
    assert destruction("find . -name '*.pyc' -delete", made=_nothing) is None
    assert destruction("find src -delete", made=_nothing) is not None
    assert destruction("rm -rf /tmp/scratch build", made=_nothing) is None
    assert destruction("rm -rf scratch", made=lambda name: name == "scratch") is None
    assert destruction("DELETE FROM users WHERE id = 3;", made=_nothing) is None
    assert destruction("psql -c 'DELETE FROM users;'", made=_nothing) is not None
