// Cards anchored under log entries (see core.js for the conventions).
"use strict";

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
  grew();
}

function isCollapsed(card) {
  const own = state.collapsed.get(card.key);
  return own === undefined ? card.collapsed_by_default : own;
}

// A section with nothing but its outcome (a review that found nothing to add):
// one line, its internals still behind Details.
function isQuiet(section) {
  return !section.body_html && !section.meta.length && !section.refs.length && !section.actions.length && !section.busy;
}

function renderCard(card) {
  const old = document.querySelector('[data-card-key="' + CSS.escape(card.key) + '"]');
  if (card.visibility === "hidden") { if (old) old.remove(); return; }
  const box = cardsBox(card.anchor_seq);
  if (!box) return;  // placed when its anchor arrives
  const collapsed = card.collapsible && isCollapsed(card);
  const head = el("div", { class: "card-head" }, el("span", { class: "mark", text: "S", "aria-hidden": "true" }), el("strong", { class: "card-title", text: card.title }));
  if (card.collapsible) {
    head.append(el("button", { type: "button", class: "collapse", "aria-expanded": String(!collapsed),
      text: collapsed ? "Show full report" : "Show less",
      onclick: () => {
        const next = !isCollapsed(card);
        // toggling back to the default follows the default again
        if (next === card.collapsed_by_default) state.collapsed.delete(card.key); else state.collapsed.set(card.key, next);
        renderCard(state.cards.get(card.key));
      } }));
  }
  for (const action of card.actions) head.append(actionButton(action));
  const quiet = !card.banner && card.sections.length > 0 && card.sections.every(isQuiet);
  const node = el("article", { class: "card" + (quiet ? " quiet" : ""), "data-card-key": card.key, "data-kind": card.kind, "aria-label": card.title }, head);
  if (card.banner) node.append(el("div", { class: "banner", role: "status", text: card.banner }));
  for (const section of card.sections) node.append(renderSection(section, collapsed));
  if (old && old.parentNode === box) old.replaceWith(node); else { if (old) old.remove(); box.append(node); }
}

function labelled(tag, cls, label, value) {
  return el(tag, { class: cls }, el("span", { class: "label", text: label + ": " }), el("span", { class: "value", text: value }));
}

// The order a person reads: what ran and how it came out (phase, verdict,
// severity), the finding, what it cites, what to do; internals last, folded.
function renderSection(section, collapsed) {
  const quiet = isQuiet(section);
  const head = el("div", { class: "run-head" }, el("span", { class: "run-name", text: section.heading }),
    el("span", { class: "phase", text: section.phase_label }));
  const node = el("div", { class: "run phase-" + section.phase + (quiet ? " compact" : ""), "data-phase": section.phase }, head);
  if (section.busy && section.started_at) {
    const clock = el("span", { class: "elapsed", "data-started": String(Date.parse(section.started_at)) });
    head.append(clock);
    tickElapsed(clock);
  }
  if (section.meta.length) {
    const facts = el("div", { class: "facts" });
    for (const [label, value] of section.meta) facts.append(labelled("span", "fact", label, value));
    node.append(facts);
  }
  if (section.body_html) {
    const body = el("div", { class: "body markdown" + (collapsed ? " clamped" : "") });
    body.innerHTML = section.body_html;  // server-rendered Markdown, raw HTML escaped
    body.querySelectorAll("pre").forEach((pre) => { pre.tabIndex = 0; });  // a scrolled block is reachable by keyboard
    node.append(body);
  }
  if (section.refs.length) {
    const refs = el("div", { class: "refs" }, el("span", { text: "Cites: " }));
    for (const seq of section.refs) {
      refs.append(el("a", { href: "#event-" + seq, class: "ref", "data-ref": String(seq), text: "entry " + seq,
        onclick: (e) => { e.preventDefault(); scrollToEntry(seq); } }), " ");
    }
    node.append(refs);
  }
  const controls = el("div", { class: "run-actions" });
  for (const action of section.actions) controls.append(actionButton(action));
  if (section.child_session) controls.append(el("button", { type: "button", class: "child-session link", text: "Open the review's session",
    title: "Child session " + section.child_session,
    onclick: () => go(section.child_session).catch((e) => toast("Operation failed: " + e.message, "error")) }));
  if (controls.children.length) (quiet ? head : node).append(controls);
  if (section.details.length) {
    const list = el("dl");
    for (const [label, value] of section.details) list.append(el("dt", { text: label }), el("dd", { text: value }));
    (quiet ? head : node).append(el("details", { class: "internals" }, el("summary", { text: "Details" }), list));
  }
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
      const result = await api(sessionPath("/card-action"), { body: { command: action.command } });
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
