// The harness web client: plain JavaScript, no build step.
// Every piece of model, tool or plugin text is inserted with textContent; the
// only HTML inserted is a card body the server rendered from Markdown with raw
// HTML disabled.
"use strict";

const TOKEN = document.querySelector('meta[name="dsh-token"]').content;
const state = { session: null, source: null, lastSeq: -1, cards: new Map(), collapsed: new Map(), commands: [] };

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

async function api(path, options) {
  const init = Object.assign({ headers: {} }, options || {});
  if (init.body !== undefined) {
    init.method = init.method || "POST";
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(init.body);
  }
  if (init.method && init.method !== "GET") init.headers["x-dsh-token"] = TOKEN;
  const response = await fetch(path, init);
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

// --- sessions ------------------------------------------------------------------------------

async function loadSessions() {
  const data = await api("/api/sessions");
  const list = document.getElementById("sessions");
  list.replaceChildren();
  for (const s of data.sessions) {
    const label = (s.title || "(untitled)") + " · " + s.id.slice(0, 8);
    list.append(el("li", {}, el("button", { type: "button", class: "session" + (s.id === state.session ? " current" : ""),
      "data-session": s.id, text: label, onclick: () => openSession(s.id) })));
  }
}

async function newSession() {
  const data = await api("/api/sessions", { method: "POST", body: {} });
  await openSession(data.id);
}

async function openSession(id) {
  if (state.source) state.source.close();
  state.session = id;
  state.lastSeq = -1;
  state.cards.clear();
  document.getElementById("log").replaceChildren();
  document.getElementById("streaming").hidden = true;
  document.getElementById("session-title").textContent = "Session " + id;
  history.replaceState(null, "", "/?session=" + encodeURIComponent(id) + location.hash);
  showView("conversation");
  const data = await api("/api/sessions/" + encodeURIComponent(id) + "/events");
  for (const event of data.events) addEvent(event);
  state.lastSeq = data.last_seq;
  for (const card of data.cards) upsertCard(card);
  for (const approval of data.approvals) showApproval(approval);
  connect();
  loadSessions();
}

function connect() {
  const url = "/api/sessions/" + encodeURIComponent(state.session) + "/stream?after=" + state.lastSeq;
  const source = new EventSource(url);
  state.source = source;
  source.onmessage = (message) => handleItem(JSON.parse(message.data));
  source.onerror = () => {
    if (state.source !== source) return;
    source.close();
    setTimeout(() => { if (state.source === source) connect(); }, 1000);  // resume after the last seq seen
  };
}

function handleItem(item) {
  if (item.kind === "event") { addEvent(item.event); state.lastSeq = Math.max(state.lastSeq, item.event.seq); }
  else if (item.kind === "delta") appendDelta(item.text);
  else if (item.kind === "card") upsertCard(item.card);
  else if (item.kind === "notice") toast(item.text, item.level === "error" ? "error" : "info");
  else if (item.kind === "approval") showApproval(item.approval);
  else if (item.kind === "approval-done") { const node = document.getElementById("approval-" + item.id); if (node) node.remove(); }
}

// --- the log -------------------------------------------------------------------------------

function appendDelta(text) {
  const box = document.getElementById("streaming");
  box.hidden = false;
  box.textContent += text;
}

function addEvent(event) {
  if (document.getElementById("event-" + event.seq)) return;
  const log = document.getElementById("log");
  let node = null;
  if (event.type === "user/message") {
    const who = event.source === "user" ? "you" : event.source;
    node = el("div", { class: "entry user source-" + event.source }, el("span", { class: "who", text: who }), el("div", { class: "text", text: event.text }));
  } else if (event.type === "assistant/message") {
    const box = document.getElementById("streaming");
    box.hidden = true; box.textContent = "";
    if (event.text) node = el("div", { class: "entry assistant" }, el("span", { class: "who", text: "assistant" }), el("div", { class: "text", text: event.text }));
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
  if (event.type !== "turn/start") node.scrollIntoView({ block: "end" });
}

// --- cards ---------------------------------------------------------------------------------

function cardsBox(seq) {
  const anchor = document.getElementById("event-" + seq);
  if (!anchor) return null;
  let box = document.getElementById("cards-" + seq);
  if (!box) {
    box = el("div", { class: "cards", id: "cards-" + seq });
    anchor.after(box);
  }
  return box;
}

function placeCards(seq) {
  for (const card of state.cards.values()) if (card.anchor_seq === seq) renderCard(card);
}

function upsertCard(card) {
  state.cards.set(card.key, card);
  renderCard(card);
}

function isCollapsed(card) {
  const own = state.collapsed.get(card.key);
  return own === undefined ? card.collapsed_by_default : own;
}

function renderCard(card) {
  const old = document.querySelector('[data-card-key="' + CSS.escape(card.key) + '"]');
  if (card.visibility === "hidden") { if (old) old.remove(); return; }
  const box = cardsBox(card.anchor_seq);
  if (!box) return;  // placed when its anchor arrives
  const collapsed = card.collapsible && isCollapsed(card);
  const head = el("div", { class: "card-head" }, el("span", { class: "mark", text: "S", "aria-hidden": "true" }), el("strong", { class: "card-title", text: card.title }));
  for (const action of card.actions) head.append(actionButton(action));
  if (card.collapsible) {
    head.append(el("button", { type: "button", class: "collapse", "aria-expanded": String(!collapsed),
      "aria-label": collapsed ? "Expand report content" : "Collapse report content", text: collapsed ? "▸" : "▾",
      onclick: () => {
        const next = !isCollapsed(card);
        // toggling back to the default follows the default again
        if (next === card.collapsed_by_default) state.collapsed.delete(card.key); else state.collapsed.set(card.key, next);
        renderCard(state.cards.get(card.key));
      } }));
  }
  const node = el("div", { class: "card", "data-card-key": card.key, "data-kind": card.kind }, head);
  if (card.banner) node.append(el("div", { class: "banner", role: "status", text: card.banner }));
  for (const section of card.sections) node.append(renderSection(section, collapsed));
  if (old && old.parentNode === box) old.replaceWith(node); else { if (old) old.remove(); box.append(node); }
}

function renderSection(section, collapsed) {
  const node = el("div", { class: "run phase-" + section.phase, "data-phase": section.phase },
    el("div", { class: "run-head" }, el("span", { class: "run-name", text: section.heading }),
      el("span", { class: "phase", text: section.phase_label })));
  if (section.busy && section.started_at) {
    const started = Date.parse(section.started_at);
    const clock = el("span", { class: "elapsed", "data-started": String(started) });
    node.querySelector(".run-head").append(clock);
    tickElapsed(clock);
  }
  if (section.body_html) {
    const body = el("div", { class: "body" });
    body.innerHTML = section.body_html;  // server-rendered Markdown, raw HTML escaped
    body.hidden = collapsed;
    node.append(body);
  }
  if (section.refs.length) {
    const refs = el("div", { class: "refs" }, el("span", { text: "Refs: " }));
    for (const seq of section.refs) {
      refs.append(el("a", { href: "#event-" + seq, class: "ref", "data-ref": String(seq), text: "#" + seq,
        onclick: (e) => { e.preventDefault(); scrollToEntry(seq); } }), " ");
    }
    node.append(refs);
  }
  const meta = el("div", { class: "meta" });
  for (const [label, value] of section.meta) meta.append(el("span", { class: "meta-item" }, el("span", { class: "label", text: label + ": " }), el("span", { text: value })));
  if (section.child_session) meta.append(el("button", { type: "button", class: "child-session", text: "Child session: " + section.child_session,
    onclick: () => openSession(section.child_session).catch((e) => toast("Operation failed: " + e.message, "error")) }));
  for (const action of section.actions) meta.append(actionButton(action));
  if (meta.children.length) node.append(meta);
  return node;
}

function tickElapsed(clock) {
  const seconds = Math.max(0, Math.round((Date.now() - Number(clock.dataset.started)) / 1000));
  clock.textContent = seconds + " s";
}
setInterval(() => document.querySelectorAll(".elapsed").forEach(tickElapsed), 1000);

function scrollToEntry(seq) {
  const target = document.getElementById("event-" + seq);
  if (!target) { toast("Entry " + seq + " is not in this view", "info"); return; }
  target.scrollIntoView({ block: "center" });
  target.classList.add("highlight");
  setTimeout(() => target.classList.remove("highlight"), 2000);
}

function actionButton(action) {
  const button = el("button", { type: "button", class: "action", disabled: !action.enabled, text: action.label });
  button.addEventListener("click", async () => {
    const label = button.textContent;
    button.disabled = true;
    button.textContent = "Updating…";
    try {
      const result = await api("/api/sessions/" + encodeURIComponent(state.session) + "/card-action", { body: { command: action.command } });
      if (!result.ok) toast(label + " failed: " + result.text, "error");
      else if (result.text) toast(result.text, "success");
    } catch (e) {
      toast(label + " failed: " + e.message, "error");
    } finally {
      button.textContent = label;
      button.disabled = !action.enabled;
    }
  });
  return button;
}

// --- approvals -----------------------------------------------------------------------------

function showApproval(approval) {
  if (document.getElementById("approval-" + approval.id)) return;
  const answer = async (allow) => {
    try { await api("/api/approvals/" + approval.id, { body: { allow } }); } catch (e) { toast(e.message, "error"); }
  };
  document.getElementById("approvals").append(el("div", { class: "approval", id: "approval-" + approval.id, role: "alertdialog", "aria-label": "Approval needed" },
    el("strong", { text: "Approval needed: " + approval.tool }), el("div", { text: approval.summary }),
    el("pre", { text: approval.arguments }),
    el("button", { type: "button", class: "allow", text: "Allow once", onclick: () => answer(true) }),
    el("button", { type: "button", class: "reject", text: "Reject", onclick: () => answer(false) })));
}

// --- composer ------------------------------------------------------------------------------

async function send(event) {
  event.preventDefault();
  const input = document.getElementById("composer-input");
  const text = input.value;
  if (!text.trim()) return;
  if (!state.session) await newSession();
  input.value = "";
  try {
    const result = await api("/api/sessions/" + encodeURIComponent(state.session) + "/send", { body: { text } });
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

// --- settings ------------------------------------------------------------------------------

const form = { tab: null, fields: [], initial: {}, values: {}, presets: [] };

async function loadTabs() {
  const data = await api("/api/settings/tabs");
  const tabs = document.getElementById("settings-tabs");
  tabs.replaceChildren();
  for (const tab of data.tabs) tabs.append(el("button", { type: "button", role: "tab", class: "tab", "data-namespace": tab.namespace, text: tab.title, onclick: () => openTab(tab.namespace) }));
  if (data.tabs.length && !form.tab) await openTab(data.tabs[0].namespace);
}

async function openTab(namespace) {
  const panel = document.getElementById("settings-panel");
  let data;
  try { data = await api("/api/settings/tabs/" + encodeURIComponent(namespace)); }
  catch (e) { panel.replaceChildren(el("div", { role: "alert", text: "The settings are unavailable: " + e.message })); return; }
  document.querySelectorAll("#settings-tabs .tab").forEach((b) => b.setAttribute("aria-selected", String(b.dataset.namespace === namespace)));
  renderForm(data);
}

function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

function renderForm(data) {
  form.tab = data.tab;
  form.fields = data.form.fields.slice().sort((a, b) => a.order - b.order);
  form.presets = data.form.presets;
  form.initial = {}; form.values = {};
  for (const f of form.fields) { form.initial[f.key] = f.value; form.values[f.key] = f.value; }
  const panel = document.getElementById("settings-panel");
  const main = el("div", { class: "section main" });
  const advanced = el("details", { class: "section advanced" }, el("summary", { text: "Advanced settings" }));
  panel.replaceChildren(el("h2", { text: data.tab.title }), data.tab.intro ? el("p", { class: "intro", text: data.tab.intro }) : null,
    el("button", { type: "button", id: "settings-refresh", text: "Refresh", onclick: () => openTab(form.tab.namespace) }));
  for (const note of data.form.notes) panel.append(el("p", { class: "note", text: note }));
  if (form.presets.length) {
    const select = el("select", { id: "preset", "aria-label": "Review style preset" }, el("option", { value: "", text: "Choose a preset…" }));
    for (const p of form.presets) select.append(el("option", { value: p.id, text: p.label }));
    select.addEventListener("change", () => {
      const preset = form.presets.find((p) => p.id === select.value);
      if (!preset) return;
      for (const [key, value] of Object.entries(preset.values)) setValue(key, value, true);
    });
    main.append(el("label", { class: "field" }, el("span", { class: "label", text: "Review style preset" }), select));
  }
  for (const f of form.fields) (f.section === "advanced" ? advanced : main).append(renderField(f));
  const actions = el("div", { class: "form-actions" },
    el("button", { type: "button", id: "settings-discard", hidden: true, text: "Discard changes", onclick: () => renderForm(data) }),
    el("button", { type: "button", id: "settings-save", hidden: true, text: "Save", onclick: saveForm }));
  panel.append(main, advanced, actions);
  refreshDirty();
}

function display(f, value) {
  if (f.widget === "slider") return Math.min(f.maximum, Math.max(f.minimum, Math.round((value || 0) * f.scale / f.step) * f.step));
  if (f.widget === "lines") return (value || []).join("\n");
  return value === null || value === undefined ? "" : value;
}

function parse(f, input) {
  if (f.widget === "switch") return input.getAttribute("aria-checked") === "true";
  if (f.widget === "slider") return Number(input.value) / f.scale;
  if (f.widget === "lines") return input.value.split("\n").map((s) => s.trim()).filter(Boolean);
  if (f.widget === "number") { if (input.value.trim() === "") return f.nullable ? null : input.value; const n = Number(input.value); return Number.isFinite(n) ? n : input.value; }
  if (f.widget === "select" && input.value === "" && f.nullable) return null;
  return input.value;
}

function renderField(f) {
  const id = "field-" + f.key;
  let input;
  if (f.widget === "switch") {
    input = el("button", { type: "button", role: "switch", id, "aria-checked": String(!!f.value), class: "switch", text: f.value ? "Enabled" : "Disabled" });
    input.addEventListener("click", () => {
      const on = input.getAttribute("aria-checked") !== "true";
      input.setAttribute("aria-checked", String(on)); input.textContent = on ? "Enabled" : "Disabled";
      changed(f, input);
    });
  } else if (f.widget === "slider") {
    input = el("input", { type: "range", id, min: f.minimum, max: f.maximum, step: f.step, value: display(f, f.value) });
    const bubble = el("output", { class: "bubble", for: id, text: display(f, f.value) + " %" });
    const update = () => { bubble.textContent = input.value + " %"; input.setAttribute("aria-valuetext", input.value + " %"); };
    input.addEventListener("input", () => { update(); changed(f, input); });
    update();
    return fieldRow(f, id, el("span", { class: "slider" }, input, bubble));
  } else if (f.widget === "select") {
    input = el("select", { id });
    if (f.nullable) input.append(el("option", { value: "", text: "—" }));
    for (const o of f.options) input.append(el("option", { value: o.value, text: o.label, disabled: o.disabled }));
    input.value = display(f, f.value);
    input.addEventListener("change", () => changed(f, input));
  } else if (f.widget === "textarea" || f.widget === "lines") {
    input = el("textarea", { id, rows: f.widget === "lines" ? 3 : 10, placeholder: f.placeholder });
    input.value = display(f, f.value);
    input.addEventListener("input", () => changed(f, input));
  } else {
    input = el("input", { id, type: f.widget === "number" ? "text" : "text", inputmode: f.widget === "number" ? "decimal" : null, placeholder: f.placeholder });
    input.value = display(f, f.value);
    input.addEventListener("input", () => changed(f, input));
  }
  return fieldRow(f, id, input);
}

function fieldRow(f, id, control) {
  return el("div", { class: "field", "data-field": f.key },
    el("label", { class: "label", for: id, text: f.label }), control,
    f.help ? el("span", { class: "help", text: f.help }) : null,
    el("span", { class: "field-error", role: "alert", "data-error-for": f.key }));
}

function setValue(key, value, fromPreset) {
  const f = form.fields.find((x) => x.key === key);
  if (!f) return;
  const input = document.getElementById("field-" + key);
  if (f.widget === "switch") { input.setAttribute("aria-checked", String(!!value)); input.textContent = value ? "Enabled" : "Disabled"; }
  else input.value = display(f, value);
  if (fromPreset) input.dispatchEvent(new Event(f.widget === "select" ? "change" : "input"));
  form.values[key] = value;
  refreshDirty();
}

async function changed(f, input) {
  form.values[f.key] = parse(f, input);
  const error = document.querySelector('[data-error-for="' + CSS.escape(f.key) + '"]');
  if (error) error.textContent = "";
  if (f.immediate) {  // a preference that saves on change, not with Save
    const ok = await post({ [f.key]: form.values[f.key] });
    if (ok) form.initial[f.key] = form.values[f.key];
  }
  refreshDirty();
}

function dirtyValues() {
  const out = {};
  for (const f of form.fields) if (!f.immediate && !same(form.values[f.key], form.initial[f.key])) out[f.key] = form.values[f.key];
  return out;
}

function refreshDirty() {
  const dirty = Object.keys(dirtyValues()).length > 0;
  const save = document.getElementById("settings-save"), discard = document.getElementById("settings-discard");
  if (save) save.hidden = !dirty;
  if (discard) discard.hidden = !dirty;
}

async function post(values) {
  let data;
  try { data = await api("/api/settings/tabs/" + encodeURIComponent(form.tab.namespace), { body: { values } }); }
  catch (e) { toast("Operation failed: " + e.message, "error"); return false; }
  if (!data.ok) {
    for (const [key, message] of Object.entries(data.errors)) {
      const slot = document.querySelector('[data-error-for="' + CSS.escape(key) + '"]');
      if (slot) slot.textContent = message; else toast("Save failed: " + message, "error");
    }
    toast("Save failed: check the highlighted fields", "error");
    return false;
  }
  return data;
}

async function saveForm() {
  const data = await post(dirtyValues());
  if (!data) return;
  renderForm(data);
  toast("Saved and applied", "success");
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
  document.getElementById("abort").addEventListener("click", () => api("/api/sessions/" + encodeURIComponent(state.session) + "/abort", { body: {} }));
  document.getElementById("new-session").addEventListener("click", () => newSession().catch((e) => toast(e.message, "error")));
  document.getElementById("nav-conversation").addEventListener("click", () => showView("conversation"));
  document.getElementById("nav-settings").addEventListener("click", () => showView("settings"));
  try {
    state.commands = (await api("/api/commands")).commands;
    await loadSessions();
    const wanted = new URLSearchParams(location.search).get("session");
    if (location.hash === "#settings") showView("settings");
    else if (wanted) await openSession(wanted);
  } catch (e) {
    toast("Operation failed: " + e.message, "error");
  }
  document.body.dataset.ready = "true";
});
