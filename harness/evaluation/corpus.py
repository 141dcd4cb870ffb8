"""A labelled corpus: ``corpus.yml`` (or one ``NAME.label.yml`` beside each
``NAME.jsonl``) naming each case's session file and its label.

A label is ``clean`` or ``{kind: KIND, evidence_lines: [N, ...]}``: the defect
planted and the 1-based lines of the session file that show it. Sessions are
any format the project reads: a Claude Code or Codex JSONL transcript, or a
harness ``session.jsonl`` (:func:`session_format`).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final, Literal

import attrs

from harness.yaml_tree import YamlProblem, load_tree
from hookspecs.errors import DshError

CORPUS_FILE: Final = "corpus.yml"
LABEL_SUFFIX: Final = ".label.yml"
CLEAN: Final = "clean"
_NAME: Final = re.compile(r"[a-z0-9][a-z0-9_.-]*")
#: the first line of a harness session log (``{"type": "session", ...}``)
HARNESS_HEADER_TYPE: Final = "session"

SessionFormat = Literal["harness", "transcript"]


class CorpusError(DshError):
    """A corpus that cannot be read; the message names the file and the case."""


@attrs.frozen(kw_only=True)
class Case:
    id: str
    session: Path
    #: None: a clean case; else the planted defect's kind
    kind: str | None
    evidence_lines: tuple[int, ...] = ()

    @property
    def planted(self) -> bool:
        return self.kind is not None


def load_corpus(directory: Path) -> tuple[Case, ...]:
    """The cases, in ``corpus.yml`` order (else by label file name)."""
    if not directory.is_dir():
        raise CorpusError(f"{directory}: not a corpus directory")
    listing = directory / CORPUS_FILE
    if listing.is_file():
        document = _yaml(listing)
        entries = document.get("cases") if isinstance(document, dict) else None
        if not isinstance(entries, list) or not entries:
            raise CorpusError(f"{listing}: expected a non-empty 'cases' list")
        cases = [_case(directory, entry, f"{listing.name}: case {number}") for number, entry in enumerate(entries, 1)]
    else:
        labels = sorted(directory.glob(f"*{LABEL_SUFFIX}"))
        if not labels:
            raise CorpusError(f"{directory}: no {CORPUS_FILE} and no *{LABEL_SUFFIX} files")
        cases = []
        for path in labels:
            entry = _yaml(path)
            if not isinstance(entry, dict):
                raise CorpusError(f"{path.name}: expected a mapping with 'label'")
            name = path.name[: -len(LABEL_SUFFIX)]
            cases.append(_case(directory, {"session": f"{name}.jsonl", "id": name, **entry}, path.name))
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise CorpusError(f"{directory}: two cases named {case.id!r}")
        seen.add(case.id)
    return tuple(cases)


def _yaml(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CorpusError(f"{path.name}: cannot read ({type(exc).__name__})") from None
    try:
        return load_tree(text)
    except YamlProblem as exc:
        raise CorpusError(f"{path.name}: invalid YAML: {exc}") from None


def _case(directory: Path, entry: Any, where: str) -> Case:
    if not isinstance(entry, dict):
        raise CorpusError(f"{where}: expected a mapping with 'session' and 'label'")
    unknown = sorted(set(entry) - {"id", "session", "label"})
    if unknown:
        raise CorpusError(f"{where}: unknown key(s) {', '.join(map(str, unknown))}")
    raw = entry.get("session")
    if not isinstance(raw, str) or not raw:
        raise CorpusError(f"{where}: 'session' must name a file in the corpus directory")
    session = (directory / raw).resolve()
    # a corpus names its own files: a label must not reach outside the directory
    if not session.is_relative_to(directory.resolve()) or not session.is_file():
        raise CorpusError(f"{where}: session {raw!r} is not a file inside the corpus directory")
    case_id = entry.get("id", Path(raw).stem)
    if not isinstance(case_id, str) or not _NAME.fullmatch(case_id):
        raise CorpusError(f"{where}: id must match {_NAME.pattern}")
    label = entry.get("label")
    if label == CLEAN:
        return Case(id=case_id, session=session, kind=None)
    if not isinstance(label, dict) or set(label) != {"kind", "evidence_lines"}:
        raise CorpusError(f"{where}: label must be 'clean' or {{kind: KIND, evidence_lines: [N, ...]}}")
    kind, lines = label["kind"], label["evidence_lines"]
    if not isinstance(kind, str) or not _NAME.fullmatch(kind):
        raise CorpusError(f"{where}: kind must match {_NAME.pattern}")
    count = len(session.read_bytes().splitlines())
    if (
        not isinstance(lines, list)
        or not lines
        or not all(isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= count for n in lines)
    ):
        raise CorpusError(f"{where}: evidence_lines must be line numbers of {raw} (1 to {count})")
    return Case(id=case_id, session=session, kind=kind, evidence_lines=tuple(sorted(set(lines))))


def session_format(path: Path) -> SessionFormat:
    """``harness`` when the first line is a harness session header, else a transcript
    (the importer detects Claude Code or Codex)."""
    with path.open("rb") as handle:
        first = handle.readline(1 << 20)
    try:
        header = json.loads(first)
    except ValueError:
        return "transcript"
    is_header = isinstance(header, dict) and header.get("type") == HARNESS_HEADER_TYPE and "id" in header
    return "harness" if is_header else "transcript"


def harness_lines(path: Path) -> dict[int, int]:
    """seq -> 1-based line of a harness session log (each event line carries its seq)."""
    out: dict[int, int] = {}
    for number, raw in enumerate(path.read_bytes().splitlines(), start=1):
        try:
            event = json.loads(raw)
        except ValueError:
            continue
        if isinstance(event, dict) and isinstance(event.get("seq"), int):
            out[event["seq"]] = number
    return out
