// Sessions, the log, approvals, the composer and start-up (see core.js for the conventions).
"use strict";

// --- sessions ------------------------------------------------------------------------------

async function loadSessions() {
  const data = await api("/api/sessions");
  const list = document.getElementById("sessions");
  list.replaceChildren();
  for (const s of data.sessions) {
    const label = (s.title || "(untitled)") + " · " + s.id.slice(0, 8);
    list.append(el("li", {}, el("button", { type: "button", class: "session" + (s.id === state.session ? " current" : ""),
      "data-session": s.id, text: label, "aria-current": s.id === state.session ? "page" : null, onclick: () => go(s.id) })));
  }
}

// --- routes --------------------------------------------------------------------------------
// Each session has its own address, #/s/ID (a fragment: the static shell is the
// one page the server serves without the credential); #/new is a new, unsaved
// session; #settings the settings. Back and Forward move between them.

function sessionHash(id) {
  return "#/s/" + encodeURIComponent(id);
}

// On a narrow screen the sidebar folds away behind the Sessions button.
function showSidebar(open) {
  document.body.classList.toggle("sidebar-open", open);
  document.getElementById("toggle-sidebar").setAttribute("aria-expanded", String(open));
}

// Show a session (a history entry, so Back returns here).
async function go(id) {
  showSidebar(false);
  if (location.hash === sessionHash(id)) await openSession(id);
  else location.hash = sessionHash(id).slice(1);  // hashchange routes it
}

async function route() {
  const found = /^#\/s\/([^&]+)/.exec(location.hash);
  if (found) {
    const id = decodeURIComponent(found[1]);
    if (id !== state.session || document.getElementById("conversation-view").hidden) await openSession(id);
    else showView("conversation");
  } else if (location.hash === "#settings" || location.hash === "#/settings") showView("settings");
  else await showDraft();
}

// "New session": nothing is saved until the first prompt (send creates it).
function startDraft() {
  showSidebar(false);
  if (location.hash === "#/new") showDraft(); else location.hash = "/new";
  document.getElementById("composer-input").focus();
}

function clearConversation(id) {
  if (state.source) state.source.close();
  state.source = null;
  state.session = id;
  state.parent = null;
  state.titled = false;
  state.lastSeq = -1;
  state.cards.clear();
  state.stuck = true;
  document.getElementById("log").replaceChildren();
  document.getElementById("notices").replaceChildren();
  document.getElementById("streaming").hidden = true;
  document.getElementById("parent-link").hidden = true;
  document.getElementById("composer").hidden = false;
}

async function showDraft() {
  clearConversation(null);
  setTitle("New session");
  showView("conversation");
  renderApprovals();
  document.getElementById("composer-input").focus();
  await loadSessions();
}

function setTitle(text) {
  document.getElementById("session-title").textContent = text;
  document.title = text + " · harness";
}

// The first prompt names the session at once (the listing's title is the same text).
function titleFrom(event) {
  if (state.titled || state.parent || event.type !== "user/message" || event.source !== "user") return;
  state.titled = true;
  setTitle(event.text.split(/\s+/).join(" ").trim().slice(0, 80) || "(untitled)");
  loadSessions().catch(() => {});  // the sidebar names it too
}

async function newSession() {
  const data = await api("/api/sessions", { method: "POST", body: {} });
  history.replaceState(null, "", location.pathname + sessionHash(data.id));  // the draft became this session
  await openSession(data.id);
}

async function openSession(id) {
  clearConversation(id);
  setTitle("Session " + id.slice(0, 8));
  showView("conversation");
  renderApprovals();  // the one shown changed: whose prompts may be answered here changed with it
  const data = await api("/api/sessions/" + encodeURIComponent(id) + "/events");
  if (state.session !== id) return;  // another was opened meanwhile
  if (data.parent) {
    // a child session (a review's): it answers to its parent, so no composer here
    state.parent = data.parent;
    setTitle("Child session " + id.slice(0, 8));
    const link = document.getElementById("parent-link");
    link.href = sessionHash(data.parent);
    link.hidden = false;
    document.getElementById("composer").hidden = true;
  }
  for (const event of data.events) addEvent(event);
  state.lastSeq = data.last_seq;
  for (const card of data.cards) upsertCard(card);
  syncApprovals(data.approvals);
  for (const notice of data.notices) addNotice(notice, false);
  connect();
  loadSessions();
}

function connect() {
  const source = openStream(sessionPath("/stream?after=" + state.lastSeq), handleItem, (status) => {
    if (state.source !== source) return;  // closed on purpose, or replaced
    if (status === 401) { credentialRefused(source.credential); return; }
    // dropped (a restart, a network hiccup, a page too slow): say so and resume after the last seq seen;
    // something that could not prove it knows the credential answers: say that, and keep checking
    setConnection(status === "impostor" ? "impostor" : "reconnecting");
    const delay = retryDelay(state.retries++);
    setTimeout(() => { if (state.source === source) connect(); }, delay);
  });
  state.source = source;
  state.opening = [];  // the pending approvals the stream opens with, until "ready"
}

function handleItem(item) {
  if (item.kind === "event") { addEvent(item.event); state.lastSeq = Math.max(state.lastSeq, item.event.seq); }
  else if (item.kind === "delta") appendDelta(item.text);
  else if (item.kind === "card") upsertCard(item.card);
  else if (item.kind === "notice") addNotice(item, true);
  else if (item.kind === "approval") { if (state.opening) state.opening.push(item.approval); else showApproval(item.approval); }
  else if (item.kind === "approval-done") dropApproval(item.id);
  else if (item.kind === "ready") {
    state.retries = 0;
    setConnection("connected");
    if (state.opening) { syncApprovals(state.opening); state.opening = null; }
  }
}

// --- notices -------------------------------------------------------------------------------

const NOTICES = 5;  // the server's RECENT: a load and a stream's opening bring the latest ones again

function addNotice(notice, live) {
  if (document.getElementById("notice-" + notice.id)) return;  // already shown
  const list = document.getElementById("notices");
  list.append(el("li", { class: "notice " + notice.level, id: "notice-" + notice.id, text: notice.text }));
  while (list.children.length > NOTICES) list.firstChild.remove();
  if (live) toast(notice.text, notice.level === "error" ? "error" : "info");
}

// --- the log -------------------------------------------------------------------------------

function appendDelta(text) {
  const box = document.getElementById("streaming");
  box.hidden = false;
  box.textContent += text;
  grew();
}

// A message's body: the server's sanitised Markdown rendering when it sent one
// (assistant messages, relayed reports; raw HTML escaped, unsafe links
// dropped, the same renderer as card bodies), else the text as typed.
function messageBody(event) {
  if (!event.html) return el("div", { class: "text", text: event.text });
  const body = el("div", { class: "text markdown" });
  body.innerHTML = event.html;  // server-rendered Markdown, raw HTML escaped
  return body;
}

function addEvent(event) {
  if (document.getElementById("event-" + event.seq)) return;
  titleFrom(event);
  const log = document.getElementById("log");
  let node = null;
  if (event.type === "user/message") {
    // in a child session the "user" is the parent's plugin that asked, not the person
    const who = event.source === "user" ? (state.parent ? "prompt" : "you") : event.source === "shadow-report" ? "Shadow report" : event.source;
    node = el("div", { class: "entry user source-" + event.source }, el("span", { class: "who", text: who }), messageBody(event));
  } else if (event.type === "assistant/message") {
    const box = document.getElementById("streaming");
    box.hidden = true; box.textContent = "";
    if (event.text) node = el("div", { class: "entry assistant" }, el("span", { class: "who", text: "assistant" }), messageBody(event));
  } else if (event.type === "tool/call" || event.type === "tool/result") {
    node = el("div", { class: "entry tool" + (event.error ? " error" : "") }, el("code", { text: event.text }));
  } else if (event.type === "turn/start") {
    document.getElementById("abort").hidden = false;
  } else if (event.type === "turn/end") {
    document.getElementById("abort").hidden = true;
    node = el("div", { class: "entry turn-end" }, event.text ? el("span", { text: event.text }) : null);
  } else if (event.type === "command/run") {
    node = el("div", { class: "entry command" }, el("code", { text: event.text }));
  } else if (event.type === "command/done") {
    node = el("div", { class: "entry command-result " + event.kind }, el("pre", { text: event.text || event.kind }));
  }
  if (!node) node = el("span", { class: "anchor" });
  node.id = "event-" + event.seq;
  node.dataset.seq = event.seq;
  log.append(node);
  placeCards(event.seq);
  if (event.type !== "turn/start") grew();
}

// --- following the newest entry ------------------------------------------------------------
// "Stick to the bottom unless scrolled up": while the person is at the bottom,
// anything new scrolls the page so the newest entry shows above the sticky
// composer (the page's own bottom; scrollIntoView would put it under the
// composer). Once they scroll up to read, nothing moves; "New messages" offers
// the way back down.

const NEAR_BOTTOM = 48;  // px: this close to the bottom counts as at the bottom
let lastScrollY = 0;

function atBottom() {
  const page = document.scrollingElement;
  return page.scrollHeight - (page.scrollTop + page.clientHeight) <= NEAR_BOTTOM;
}

function followScroll() {
  // growth never moves scrollY, and our own scrolls only go down: moving up is the person's
  if (atBottom()) { state.stuck = true; document.getElementById("jump-newest").hidden = true; }
  else if (scrollY < lastScrollY) state.stuck = false;
  lastScrollY = scrollY;
}

function scrollToNewest() {
  state.stuck = true;
  document.getElementById("jump-newest").hidden = true;
  window.scrollTo(0, document.scrollingElement.scrollHeight);
  lastScrollY = scrollY;
}

// Something was added or grew: follow it, or say it is there. The scroll waits
// for the next frame, once however much arrived meanwhile: scrolling reads the
// page's height, which lays the page out again, and per entry that made a
// 1,000-event session open ~7x slower than an empty one (bench/web_render.py).
let scrollQueued = false;

function grew() {
  if (!state.stuck) { document.getElementById("jump-newest").hidden = false; return; }
  if (scrollQueued) return;
  scrollQueued = true;
  requestAnimationFrame(() => {
    scrollQueued = false;
    if (state.stuck) scrollToNewest();
  });
}

// --- approvals -----------------------------------------------------------------------------
// Every page gets every pending approval (the agent asking waits for whoever
// answers). Each names its session; one for another session than the page shows
// says so and offers to open it, and only the shown session's prompts have
// Allow and Reject, so nobody approves a call without seeing whose it is.

function syncApprovals(pending) {
  const ids = new Set(pending.map((a) => a.id));
  for (const id of [...state.approvals.keys()]) if (!ids.has(id)) dropApproval(id);  // settled while not listening
  for (const approval of pending) showApproval(approval);
}

function showApproval(approval) {
  if (state.approvals.has(approval.id)) return;
  state.approvals.set(approval.id, approval);
  const node = renderApproval(approval);
  if (approval.session_id === state.session) {
    // at the point of the call (the agent waits on it, so it is the newest thing) and focused:
    // Tab reaches Allow once, and Shift+Tab from the composer reaches Reject first
    scrollToNewest();
    node.focus({ preventScroll: true });
  }
}

function dropApproval(id) {
  state.approvals.delete(id);
  const node = document.getElementById("approval-" + id);
  if (node) node.remove();
}

function renderApprovals() {
  for (const approval of state.approvals.values()) renderApproval(approval);
}

function renderApproval(approval) {
  const here = approval.session_id === state.session;
  const answer = async (allow) => {
    try { await api("/api/approvals/" + approval.id, { body: { allow, session_id: state.session } }); } catch (e) { toast(e.message, "error"); }
  };
  const node = el("div", { class: "approval" + (here ? "" : " other-session"), id: "approval-" + approval.id, role: "alertdialog", tabindex: "-1",
    "aria-label": here ? "Approval needed" : "Approval needed in another session", "data-session": approval.session_id },
    el("strong", { text: (here ? "Approval needed: " : "Approval needed in another session: ") + approval.tool }),
    el("div", { class: "approval-session", text: "Session: " + approval.session_label + (here ? "" : " (not the session shown)") }),
    el("div", { text: approval.summary }), el("pre", { text: approval.arguments }));
  if (here) {
    node.append(el("button", { type: "button", class: "allow", text: "Allow once", onclick: () => answer(true) }),
      el("button", { type: "button", class: "reject", text: "Reject", onclick: () => answer(false) }));
  } else {
    node.append(el("button", { type: "button", class: "open-session", text: "Open that session to answer",
      onclick: () => go(approval.session_id).catch((e) => toast("Operation failed: " + e.message, "error")) }));
  }
  const old = document.getElementById("approval-" + approval.id);
  if (old) old.replaceWith(node); else document.getElementById("approvals").append(node);
  return node;
}

// --- composer ------------------------------------------------------------------------------

async function send(event) {
  event.preventDefault();
  const input = document.getElementById("composer-input");
  const text = input.value;
  if (!text.trim()) return;
  if (!state.session) await newSession();
  input.value = "";
  scrollToNewest();  // sending is coming back to the conversation
  try {
    const result = await api(sessionPath("/send"), { body: { text } });
    if (!result.ok) toast(result.text, "error");
  } catch (e) {
    input.value = text;
    toast("Operation failed: " + e.message, "error");
  }
}

function commandHint() {
  const text = document.getElementById("composer-input").value;
  const hint = document.getElementById("command-hint");
  if (!text.startsWith("/")) { hint.textContent = ""; return; }
  const name = text.slice(1).split(/\s/)[0];
  const matches = state.commands.filter((c) => c.name.startsWith(name)).slice(0, 6);
  hint.textContent = matches.map((c) => "/" + c.name + (c.hint ? " " + c.hint : "") + " — " + c.description).join("  ·  ");
}

// --- views ---------------------------------------------------------------------------------

function showView(name) {
  document.getElementById("conversation-view").hidden = name !== "conversation";
  document.getElementById("settings-view").hidden = name !== "settings";
  document.getElementById("nav-conversation").setAttribute("aria-pressed", String(name === "conversation"));
  document.getElementById("nav-settings").setAttribute("aria-pressed", String(name === "settings"));
  if (name === "settings") loadTabs().catch((e) => toast("Operation failed: " + e.message, "error"));
}

document.addEventListener("DOMContentLoaded", async () => {
  document.getElementById("composer").addEventListener("submit", send);
  const input = document.getElementById("composer-input");
  input.addEventListener("input", commandHint);
  input.addEventListener("keydown", (e) => { if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); document.getElementById("composer").requestSubmit(); } });
  document.getElementById("abort").addEventListener("click", () => api(sessionPath("/abort"), { body: {} }).catch((e) => toast(e.message, "error")));
  // Esc aborts a running turn, as in Claude Code and Codex (not while a dialog of the browser has it)
  document.addEventListener("keydown", (e) => {
    const abort = document.getElementById("abort");
    if (e.key === "Escape" && !e.defaultPrevented && !abort.hidden && state.session) { e.preventDefault(); abort.click(); }
  });
  document.getElementById("new-session").addEventListener("click", startDraft);
  document.getElementById("toggle-sidebar").addEventListener("click", () => showSidebar(!document.body.classList.contains("sidebar-open")));
  window.addEventListener("hashchange", () => route().catch((e) => toast("Operation failed: " + e.message, "error")));
  document.getElementById("nav-conversation").addEventListener("click", () => showView("conversation"));
  document.getElementById("nav-settings").addEventListener("click", () => showView("settings"));
  document.getElementById("jump-newest").addEventListener("click", () => { scrollToNewest(); input.focus({ preventScroll: true }); });
  window.addEventListener("scroll", followScroll, { passive: true });
  try {
    if (!credential()) throw new CredentialError("no credential");
    state.commands = (await api("/api/commands")).commands;
    setConnection("connected");
    await loadSessions();
    const wanted = new URLSearchParams(location.search).get("session");  // the older address form
    if (wanted) history.replaceState(null, "", "/" + sessionHash(wanted));
    await route();
    // no session shown, so no stream: an agent may be waiting already, and each prompt offers to open its session
    if (!state.session) syncApprovals((await api("/api/approvals")).approvals);
  } catch (e) {
    if (e instanceof CredentialError) credentialRefused(null);  // the page says what to open; no toast
    else toast("Operation failed: " + e.message, "error");
  }
  document.body.dataset.ready = "true";
});
