"""Host compaction: when the model history would not fit the window, the oldest
part is replaced by a summary the session's model writes.

``estimate`` (token counts), ``policy`` (settings, threshold, where to cut),
``summarize`` (the bounded summarising request), ``commit`` (the durable
trace), ``engine`` (the built-in engine), ``service`` (``host.compaction``:
engine selection, history rebuild, observers) and ``command`` (``/compact``).
"""
