"""Value loop: did the root adopt, reject or ignore a relayed challenge? (docs/shadow-mind.md §7 "Value loop")

A heuristic with zero control authority: it only feeds counters and the
``value-loop.jsonl`` journal. For each ``challenge`` report relayed to the root
we watch later root events until one of, in order:

1. rejection language in the root's visible replies → ``challenge_rejected``;
2. a later tool call targets a file-like artifact named by a challenged event
   → ``challenge_adopted`` (arguments are parsed, paths normalised, see
   :func:`artifacts` and :func:`same_artifact`);
3. a review word plus an adoption verb in the replies → ``challenge_adopted``;
4. ``window_turns`` completed turns → ``ignored``.

Regexes follow JS semantics, as the reference does: ``\\b`` is ASCII-only (re.ASCII for the
English words; it does not affect the Chinese literals), ``.`` does not match
``\\n``, ``\\r``, U+2028 or U+2029, and the JS ``iu`` folds of U+017F and U+212A
are applied to a 1:1 copy of the text before matching.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

import attrs

from hookspecs.values import loads_strict
from hookspecs.values.events import SessionEvent

from ..vocabulary import REPORT_SOURCE_KIND, ValueClassification, Verdict

_DOT: Final = "[^\n\r\u2028\u2029]"  # JS `.` without the s flag
_REVIEW_WORDS: Final = r"(?:challenge|finding|report|review|shadow)"
_REJECT_WORDS: Final = r"(?:incorrect|invalid|mistaken|not applicable|reject(?:ed)?|wrong)"
_FLAGS: Final = re.IGNORECASE | re.ASCII

REVIEW_MENTION: Final = re.compile(rf"\b{_REVIEW_WORDS}\b|质疑|审查|报告|影子", _FLAGS)
ADOPTION_ACTION: Final = re.compile(
    r"\b(?:accept(?:ed)?|address(?:ed)?|adopt(?:ed)?|chang(?:e|ed)|fix(?:ed)?|follow(?:ed)?"
    r"|revis(?:e|ed)|updat(?:e|ed))\b|采纳|接受|已修复|已修改|已更新|已调整",
    _FLAGS,
)
REJECTION: Final = re.compile(
    rf"\b{_REVIEW_WORDS}\b{_DOT}{{0,80}}\b{_REJECT_WORDS}\b"
    rf"|\b{_REJECT_WORDS}\b{_DOT}{{0,80}}\b{_REVIEW_WORDS}\b"
    rf"|不采纳|拒绝{_DOT}*(?:质疑|报告|审查)"
    rf"|(?:质疑|报告|审查){_DOT}*(?:不正确|不适用|错误)",
    _FLAGS,
)
#: File-like artifacts: a (drive-prefixed) path with a separator, or name.ext.
ARTIFACT: Final = re.compile(
    r"(?:[A-Za-z]:[\\/]+)?(?:[A-Za-z0-9_.-]+[\\/]+)+[A-Za-z0-9_.-]+|[A-Za-z0-9_-]+\.[A-Za-z0-9]{1,12}"
)
_SEPARATORS: Final = re.compile(r"[\\/]+")

_JS_FOLD: Final = {0x17F: "s", 0x212A: "k"}


def _fold(text: str) -> str:
    return text if text.isascii() else text.translate(_JS_FOLD)


def matches(pattern: re.Pattern[str], text: str) -> bool:
    """Whether a value-loop regex matches ``text`` under JS `iu` semantics."""
    return pattern.search(_fold(text)) is not None


@attrs.frozen(kw_only=True)
class PendingChallenge:
    """A relayed ``challenge`` awaiting evidence from later root events."""

    run_id: str
    shadow_id: str
    relayed_at_seq: int
    refs: tuple[int, ...] = attrs.field(default=(), converter=tuple)


@attrs.frozen(kw_only=True)
class Observation:
    """Evidence reduced from root events (no report or trajectory text beyond
    the root's own replies)."""

    challenged_artifacts: tuple[str, ...]
    tool_targets: tuple[str, ...]
    response_text: str
    completed_turns: int


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def capture_challenges(event: SessionEvent) -> list[PendingChallenge]:
    """The ``challenge`` reports of a relay ``user/message`` (others: none).

    Duplicated run ids within the relay keep the first; the runtime also skips
    run ids it already has pending.
    """
    if event.type != "user/message" or not isinstance(event.data, Mapping):
        return []
    message = event.data.get("message")
    source = message.get("source") if isinstance(message, Mapping) else None
    if not isinstance(source, Mapping) or source.get("kind") != REPORT_SOURCE_KIND:
        return []
    reports = source.get("reports")
    if not isinstance(reports, list):
        return []
    found: dict[str, PendingChallenge] = {}
    for report in reports:
        if not isinstance(report, Mapping) or report.get("verdict") != Verdict.CHALLENGE:
            continue
        run_id, shadow_id = report.get("run_id"), report.get("shadow_id")
        if not isinstance(run_id, str) or not isinstance(shadow_id, str) or run_id in found:
            continue
        raw_refs = report.get("refs")  # absent → []
        refs = tuple(r for r in raw_refs if _is_int(r)) if isinstance(raw_refs, list) else ()
        found[run_id] = PendingChallenge(run_id=run_id, shadow_id=shadow_id, relayed_at_seq=event.seq, refs=refs)
    return list(found.values())


def artifacts(value: Any) -> list[str]:
    """File-like artifacts in a value, each normalised (:func:`normalise_artifact`).

    The pattern runs over each string (keys included) of the value, in JSON
    order; a string that holds a JSON object or array (tool-call arguments are
    stored as JSON text, where a Windows backslash is ``\\\\``) is parsed and
    walked instead, so ``src\\parser.py`` is found as a path, not split at the
    escaped pair.
    """
    found: list[str] = []
    for text in _strings(value):
        found.extend(normalise_artifact(m.group()) for m in ARTIFACT.finditer(text))
    return found


def normalise_artifact(path: str) -> str:
    """``\\`` → ``/``, repeated separators and ``.`` segments dropped, lowercased
    (drive letters too; case is folded on every path, as the reference does)."""
    parts = [part for part in _SEPARATORS.split(path) if part != "."]
    return "/".join(parts).lower()


def same_artifact(a: str, b: str) -> bool:
    """Equal, or one names the other's file from further up the tree
    (``c:/work/src/parser.py`` and ``src/parser.py``); a bare name only equals."""
    if a == b:
        return True
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return "/" in short and long.endswith("/" + short)


def _strings(value: Any) -> Iterable[str]:
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parsed = _json_container(item)
            if parsed is None:
                yield item
            else:
                stack.append(parsed)
        elif isinstance(item, Mapping):
            pairs = [part for key, val in item.items() for part in (str(key), val)]
            stack.extend(reversed(pairs))
        elif isinstance(item, list | tuple):
            stack.extend(reversed(item))


def _json_container(text: str) -> Any:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        parsed = loads_strict(stripped)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict | list) else None


class ArtifactSet:
    """Ordered distinct artifacts, indexed by file name for :func:`same_artifact`."""

    def __init__(self, items: Iterable[str] = ()) -> None:
        self._items: dict[str, None] = {}
        self._by_name: dict[str, list[str]] = {}
        for item in items:
            self.add(item)

    def add(self, item: str) -> None:
        if item not in self._items:
            self._items[item] = None
            self._by_name.setdefault(_file_name(item), []).append(item)

    def matches(self, item: str) -> bool:
        return any(same_artifact(item, other) for other in self._by_name.get(_file_name(item), ()))

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)


def _file_name(path: str) -> str:
    return path.rpartition("/")[2]


def classify(observation: Observation, window_turns: int) -> ValueClassification | None:
    """The terminal classification, or None while the window is open."""
    text = observation.response_text
    if matches(REJECTION, text):
        return ValueClassification.REJECTED
    challenged = ArtifactSet(observation.challenged_artifacts)
    if any(challenged.matches(target) for target in observation.tool_targets):
        return ValueClassification.ADOPTED
    if matches(REVIEW_MENTION, text) and matches(ADOPTION_ACTION, text):
        return ValueClassification.ADOPTED
    if observation.completed_turns >= window_turns:
        return ValueClassification.IGNORED
    return None


class ChallengeObserver:
    """Folds root events into the evidence for one challenge, incrementally.

    Feed events in seq order, possibly in several batches (e.g. the snapshot at
    capture time, then each turn's new events); events at or below the last seq
    already fed are skipped, so overlapping batches are harmless. Refs point at
    events before the relay, so the first batch must include them.

    :meth:`classify` is O(new events): it keeps what each regex found per reply
    instead of re-scanning the joined text. That equals matching the joined
    text because the parts are joined with ``\\n`` and no pattern can match
    across a newline.
    """

    def __init__(self, challenge: PendingChallenge) -> None:
        self.challenge = challenge
        self._refs = frozenset(challenge.refs)
        self._challenged = ArtifactSet()
        self._targets = ArtifactSet()
        self._parts: list[str] = []
        self._turns = 0
        self._through = -1
        self._rejected = False
        self._mentioned = False
        self._acted = False
        self._overlap = False

    @property
    def observed_through_seq(self) -> int:
        return self._through

    def feed(self, events: Iterable[SessionEvent]) -> None:
        """Fold events not seen yet (seq above :attr:`observed_through_seq`)."""
        relayed = self.challenge.relayed_at_seq
        for event in events:
            seq = event.seq
            if seq <= self._through:
                continue
            self._through = seq
            if seq in self._refs:
                for item in artifacts(event.data):
                    self._challenged.add(item)
                    self._overlap = self._overlap or self._targets.matches(item)
            if seq <= relayed:
                continue
            data = event.data if isinstance(event.data, Mapping) else {}
            if event.type == "tool/call":
                arguments = data.get("arguments")
                if arguments is not None:
                    for item in artifacts(arguments):
                        self._targets.add(item)
                        self._overlap = self._overlap or self._challenged.matches(item)
            elif event.type == "assistant/message":
                for text in _text_blocks(data):
                    self._add_part(text)
            elif event.type == "turn/end":
                self._turns += 1

    def _add_part(self, text: str) -> None:
        self._parts.append(text)
        folded = _fold(text)
        self._rejected = self._rejected or REJECTION.search(folded) is not None
        self._mentioned = self._mentioned or REVIEW_MENTION.search(folded) is not None
        self._acted = self._acted or ADOPTION_ACTION.search(folded) is not None

    def snapshot(self) -> Observation:
        return Observation(
            challenged_artifacts=tuple(self._challenged),
            tool_targets=tuple(self._targets),
            response_text="\n".join(self._parts),
            completed_turns=self._turns,
        )

    def classify(self, window_turns: int) -> ValueClassification | None:
        """Same answer as ``classify(self.snapshot(), window_turns)``."""
        if self._rejected:
            return ValueClassification.REJECTED
        if self._overlap or (self._mentioned and self._acted):
            return ValueClassification.ADOPTED
        if self._turns >= window_turns:
            return ValueClassification.IGNORED
        return None


def _text_blocks(data: Mapping[str, Any]) -> list[str]:
    message = data.get("message")
    content = message.get("content") if isinstance(message, Mapping) else None
    if not isinstance(content, list):
        return []
    return [
        block["text"]
        for block in content
        if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str)
    ]


def observe(events: Iterable[SessionEvent], challenge: PendingChallenge) -> Observation:
    """Reduce root events to the evidence for one challenge (pure)."""
    observer = ChallengeObserver(challenge)
    observer.feed(events)
    return observer.snapshot()

