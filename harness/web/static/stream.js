// The session's event stream, read with fetch() so it can carry the credential
// header (EventSource cannot send headers, and a cookie or a query string would
// leak it; see core.js). The server's format is SSE: "data: JSON" lines, an
// empty line after each item, and comment lines (": heartbeat") to ignore.
"use strict";

// Calls onItem(item) for each item and, unless closed first, onEnd(status) once
// the stream stops (status 0: the connection failed; "impostor": what answers
// could not prove it knows the credential, which was not sent). Before
// sending the credential it has the server prove it knows it (proveServer,
// core.js). Returns { close() }.
function openStream(path, onItem, onEnd) {
  const abort = new AbortController();
  const stream = { closed: false, credential: null, close() { stream.closed = true; abort.abort(); } };
  (async () => {
    let status = 0;
    try {
      const proof = await proveServer();
      if (stream.closed) return;
      if (proof.failure) { status = proof.failure === "impostor" ? "impostor" : 0; return; }
      stream.credential = proof.key;
      const response = await fetch(path, { headers: authorization(proof.key), signal: abort.signal, cache: "no-store" });
      status = response.status;
      if (!response.ok) { response.body && response.body.cancel(); return; }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split("\n").filter((line) => line.startsWith("data:"))
            .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5)).join("\n");
          if (data && !stream.closed) onItem(JSON.parse(data));
        }
      }
    } catch (e) {
      // aborted on purpose, or the connection dropped: onEnd below decides
    } finally {
      if (!stream.closed) onEnd(status);
    }
  })();
  return stream;
}
