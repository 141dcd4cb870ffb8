"""The refs allowlist is its own type: a whole projection where the entries a
reviewer was shown belong is refused by mypy and at runtime.

A projection also has ``.seqs``; before, ``Outcomes.decide`` took ``Any`` there,
so passing the projection by mistake would have let a report cite entries the
reviewer never saw. The mypy check runs on a small snippet with only the two
modules it needs analysed (``--follow-imports=skip``), so it stays quick.
"""

from __future__ import annotations

import ast
from pathlib import Path

import mypy.api
import pytest

from shadow_mind_plugin.core.ports import RunOutcome, ShownSeqs
from shadow_mind_plugin.prompt import build_prompt
from shadow_mind_plugin.rendered import Entry, Projection

ROOT = Path(__file__).resolve().parents[2]

SNIPPET = """\
from shadow_mind_plugin.core.ports import RunOutcome, ShownSeqs
from shadow_mind_plugin.rendered import Projection


def outcome_of_projection(projection: Projection) -> RunOutcome:
    return RunOutcome(shown=projection, result=None, failure=None, dispose_error=None, keys=())  # line 6


def allowlist_of_projection(projection: Projection) -> ShownSeqs:
    return ShownSeqs(projection)  # line 10


def outcome_of_shown(projection: Projection) -> RunOutcome:
    shown = ShownSeqs(projection.seqs)
    return RunOutcome(shown=shown, result=None, failure=None, dispose_error=None, keys=())
"""


def _projection(*texts: str) -> Projection:
    return Projection.of(Entry(seq=seq, text=text) for seq, text in enumerate(texts, start=1))


def test_mypy_refuses_a_projection_where_the_allowlist_belongs(tmp_path: Path) -> None:
    snippet = tmp_path / "snippet.py"
    snippet.write_text(SNIPPET, encoding="utf-8")
    stdout, stderr, status = mypy.api.run(
        [
            "--cache-dir",
            str(tmp_path / "cache"),
            "--follow-imports=skip",
            "--no-error-summary",
            "--show-error-codes",
            str(snippet),
            str(ROOT / "shadow_mind_plugin" / "core" / "ports.py"),
            str(ROOT / "shadow_mind_plugin" / "rendered.py"),
        ]
    )
    errors = [line for line in stdout.splitlines() if ": error:" in line]
    assert status == 1, stdout + stderr
    # exactly the two wrong lines: the right spelling (line 14-15) type-checks
    assert [line.split(":")[1] for line in errors] == ["6", "10"], stdout
    assert (
        'Argument "shown" to "RunOutcome" has incompatible type "Projection"; expected "ShownSeqs | None"' in errors[0]
    )
    assert '"Projection"' in errors[1] and "[arg-type]" in errors[1]
    assert all(line.startswith(str(snippet)) for line in errors), stdout


def test_the_runtime_refuses_a_projection_too() -> None:
    projection = _projection("one", "two")
    with pytest.raises(TypeError, match="'shown'"):
        RunOutcome(shown=projection, result=None, failure=None, dispose_error=None, keys=())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not Projection"):
        ShownSeqs(projection)  # type: ignore[arg-type]
    outcome = RunOutcome(shown=ShownSeqs(projection.seqs), result=None, failure=None, dispose_error=None, keys=())
    assert outcome.shown is not None and set(outcome.shown.seqs) == {1, 2}
    assert RunOutcome(shown=None, result=None, failure=None, dispose_error=None, keys=()).shown is None


def test_the_framed_prompt_builds_the_allowlist_of_what_it_shows() -> None:
    """A bounded prompt leaves the oldest entries out; its allowlist leaves them out too."""
    projection = _projection(*(f"entry {n} " + "x" * 200 for n in range(1, 6)))
    whole = build_prompt("Reviewer", "default", "Review.", projection, 5, think_first=False)
    assert set(whole.shown.seqs) == {1, 2, 3, 4, 5}
    bound = len(whole.header) + 2 * 220
    framed = build_prompt("Reviewer", "default", "Review.", projection, 5, think_first=False, max_prompt_chars=bound)
    assert framed.elided > 0
    assert set(framed.shown.seqs) == set(framed.seqs) < set(projection.seqs)
    assert 1 not in framed.shown.seqs and 5 in framed.shown.seqs
    assert isinstance(framed.shown, ShownSeqs)


def test_only_the_framed_prompt_and_a_checks_review_build_the_allowlist() -> None:
    """Anything else building one from a projection would reopen the seam by hand."""
    builders = set()
    for path in sorted((ROOT / "shadow_mind_plugin").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "ShownSeqs":
                builders.add(str(path.relative_to(ROOT)))
    assert builders == {"shadow_mind_plugin/prompt.py", "shadow_mind_plugin/run/checks_review.py"}
