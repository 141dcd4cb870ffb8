// The harness web client: plain JavaScript, no build step. Scripts share one
// global scope and load in order: core.js, cards.js, settings.js, app.js.
// Every piece of model, tool or plugin text is inserted with textContent; the
// only HTML inserted is a card body the server rendered from Markdown with raw
// HTML disabled.
"use strict";

const TOKEN = document.querySelector('meta[name="dsh-token"]').content;
const state = { session: null, source: null, lastSeq: -1, cards: new Map(), collapsed: new Map(), commands: [], approvals: new Map(), opening: null };

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
