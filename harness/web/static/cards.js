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
    onclick: () => go(section.child_session).catch((e) => toast("Operation failed: " + e.message, "error")) }));
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
