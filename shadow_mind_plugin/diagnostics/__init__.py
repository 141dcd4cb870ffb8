"""Debugging Shadow Mind runs from the files they leave behind (no running host).

* :mod:`.jsonl`: tolerant reading of JSON Lines files;
* :mod:`.journals`: the debug (lifecycle) journals and the value-loop journal;
* :mod:`.sessions`: the host's session logs, read-only, and relay provenance;
* :mod:`.trace` and :mod:`.evidence`: what is known about a run, a root session's
  runs or a Shadow child session;
* :mod:`.health`: journal integrity and file modes, and their repair;
* :mod:`.render`: the text and JSON output, with files named relative to the home.

Everything here is metadata only: never prompt text, tool arguments, tool
results or report bodies.
"""
