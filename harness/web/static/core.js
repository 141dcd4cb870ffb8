// The harness web client: plain JavaScript, no build step. Scripts share one
// global scope and load in order: core.js, cards.js, settings.js, app.js.
// Every piece of model, tool or plugin text is inserted with textContent; the
// only HTML inserted is what the server rendered from Markdown with raw HTML
// disabled (card bodies, assistant messages, relayed reports: payloads.py).
"use strict";

const state = { session: null, source: null, lastSeq: -1, cards: new Map(), collapsed: new Map(), commands: [], approvals: new Map(), opening: null, stuck: true, retries: 0, parent: null, titled: false };

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// The API path of the shown session's suffix ("/send", "/stream?after=3").
function sessionPath(suffix) {
  return "/api/sessions/" + encodeURIComponent(state.session) + suffix;
}

// --- the credential ------------------------------------------------------------------------
// The launch URL carries it in its fragment (#token=…), which the browser never
// sends. It moves to localStorage, which only this origin (scheme, host and
// port) can read, so reloads and new tabs of this server keep working, and
// leaves the address bar. Every API request and the stream send it as a
// header. Never a cookie (a browser sends those to every port of the host, so
// to any other local app) nor a query string (logs, Referer). See auth.py.

const CREDENTIAL_KEY = "harness-credential";
let heldCredential = null;  // when storage is unavailable: this page only

(function takeCredentialFromFragment() {
  const parts = location.hash.slice(1).split("&").filter((p) => p);
  const found = parts.find((p) => p.startsWith("token="));
  if (found === undefined) return;
  heldCredential = decodeURIComponent(found.slice("token=".length));
  try { localStorage.setItem(CREDENTIAL_KEY, heldCredential); } catch (e) { /* kept in memory only */ }
  const rest = parts.filter((p) => p !== found).join("&");
  history.replaceState(null, "", location.pathname + location.search + (rest ? "#" + rest : ""));
})();

// Read each time: a newer launch on this port opened in another tab replaces it for every tab.
function credential() {
  try { return localStorage.getItem(CREDENTIAL_KEY) || heldCredential; } catch (e) { return heldCredential; }
}

function authorization(key) {
  return { authorization: "Bearer " + key };
}

// --- the server proves it knows the credential before the page sends it ----------------------
// While harness serve is down, any local program can take its port; the open
// page's next request would hand it the credential. So before every request
// that carries the credential (each API request, each stream opening,
// reconnects included) the page asks whatever answers for a proof:
// GET /api/proof?nonce=N (no credential) must answer
// hex(HMAC-SHA256(key=credential, msg="dsh-web-proof:" + N)) for a fresh
// random N, which only a holder of the credential can compute. No proof, no
// credential. (Not only after a failure: a stopping server gives open streams
// a second but may stop listening at once, so a live stream does not show that
// the port is still its own.) See auth.py.

let proving = null;      // the proof under way, shared by the callers that asked meanwhile
let everProven = false;  // some server proved it since this page loaded

function hex(buffer) {
  return Array.from(new Uint8Array(buffer), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Resolves to { key } (send this credential) or { failure: "unreachable" | "impostor" }.
function proveServer() {
  if (!proving) {
    proving = (async () => {
      const key = credential();
      const nonce = hex(crypto.getRandomValues(new Uint8Array(32)));
      let response;
      try { response = await fetch("/api/proof?nonce=" + nonce, { cache: "no-store", credentials: "omit" }); }
      catch (e) { return { failure: "unreachable" }; }
      let answer = null;
      try { answer = response.ok ? await response.json() : null; } catch (e) { answer = null; }
      const text = new TextEncoder();
      const secret = await crypto.subtle.importKey("raw", text.encode(key || ""), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
      const expected = hex(await crypto.subtle.sign("HMAC", secret, text.encode("dsh-web-proof:" + nonce)));
      if (!key || !answer || answer.proof !== expected) return { failure: "impostor" };
      everProven = true;
      return { key };
    })().finally(() => { proving = null; });
  }
  return proving;
}

const IMPOSTOR = "Another program is answering on this port — not sending your access key";

// No credential, or the server refused it (a stale launch): say what to open.
function credentialRefused(refused) {
  try { if (refused && localStorage.getItem(CREDENTIAL_KEY) === refused) localStorage.removeItem(CREDENTIAL_KEY); } catch (e) { /* nothing stored */ }
  if (heldCredential === refused) heldCredential = null;
  document.getElementById("credential-missing").hidden = false;
  document.body.classList.add("no-credential");  // a page of its own: the console behind it cannot work
  if (state.source) { state.source.close(); state.source = null; }
}

// --- the connection ------------------------------------------------------------------------
// Shown in the header: Connected, Reconnecting… (the stream dropped; the page
// retries by itself, waiting a little longer each time, up to RETRY_MAX_MS) or
// Disconnected (a request failed to reach the server).

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 8000;

function setConnection(name) {
  const box = document.getElementById("connection");
  const labels = { connecting: "Connecting…", connected: "Connected", reconnecting: "Reconnecting…", offline: "Disconnected", impostor: IMPOSTOR };
  if (box.dataset.state === name) return;
  box.dataset.state = name;
  box.textContent = labels[name];
  box.title = name === "reconnecting" ? "The server cannot be reached; the page keeps retrying by itself"
    : name === "impostor" ? "What answers on this port cannot prove it knows the access key: another program, or harness serve restarted with --new-token (then open the new URL it printed). The page keeps checking by itself" : "";
}

function retryDelay(attempt) {
  return Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt);
}

class CredentialError extends Error {}

async function api(path, options) {
  const init = Object.assign({}, options || {});
  init.headers = Object.assign({}, init.headers || {});
  if (init.body !== undefined) {
    init.method = init.method || "POST";
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(init.body);
  }
  if (!credential()) { credentialRefused(null); throw new CredentialError("no credential"); }
  const proof = await proveServer();
  if (proof.failure === "unreachable") { setConnection("offline"); throw new Error("the server cannot be reached (is harness serve running?)"); }
  // the server that just served this page cannot prove the stored key: most likely a stale one
  // (harness serve --new-token), so say what to open; the key is kept, since an impostor could be answering
  if (proof.failure && !everProven) { credentialRefused(null); throw new CredentialError("the server did not prove the credential"); }
  if (proof.failure) { setConnection("impostor"); throw new Error(IMPOSTOR); }
  const sent = proof.key;
  Object.assign(init.headers, authorization(sent));
  let response;
  try { response = await fetch(path, init); } catch (e) { setConnection("offline"); throw new Error("the server cannot be reached (is harness serve running?)"); }
  if (["offline", "impostor"].includes(document.getElementById("connection").dataset.state)) setConnection("connected");  // reached it again
  if (response.status === 401) { credentialRefused(sent); throw new CredentialError("credential refused"); }
  let data = {};
  try { data = await response.json(); } catch (e) { data = { error: "the server sent no JSON (" + response.status + ")" }; }
  if (!response.ok && response.status !== 422) throw new Error(data.error || "request failed (" + response.status + ")");
  return data;
}

// --- toasts --------------------------------------------------------------------------------

function toast(text, level) {
  const box = document.getElementById("toasts");
  const node = el("div", { class: "toast " + (level || "info"), role: level === "error" ? "alert" : "status" },
    el("span", { text }), el("button", { type: "button", class: "dismiss", "aria-label": "Dismiss", text: "×", onclick: () => node.remove() }));
  box.prepend(node);
  while (box.children.length > 5) box.lastChild.remove();
  setTimeout(() => node.remove(), level === "error" ? 6000 : level === "success" ? 3000 : 4000);
}
