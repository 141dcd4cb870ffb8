// Settings tabs rendered from the contributed form (see core.js for the conventions).
"use strict";

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
  panel.append(main);
  if (advanced.children.length > 1) panel.append(advanced);  // the summary alone: nothing advanced to show
  panel.append(actions);
  for (const f of form.fields) if (f.depends_on) filterOptions(f, false);
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
    for (const o of f.options) input.append(el("option", { value: o.value, text: o.label, disabled: o.disabled, "data-when": o.when.length ? JSON.stringify(o.when) : null }));
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
  for (const g of form.fields) if (g.depends_on === f.key) filterOptions(g, true);
  if (f.immediate) {  // a preference that saves on change, not with Save
    const ok = await post({ [f.key]: form.values[f.key] });
    if (ok) form.initial[f.key] = form.values[f.key];
  }
  refreshDirty();
}

// Offer only the options valid for the field this one depends on; a value no
// longer offered is cleared (a model change resets an effort it lacks).
function filterOptions(f, clear) {
  const input = document.getElementById("field-" + f.key);
  const on = form.values[f.depends_on];
  const key = on === null || on === undefined ? "" : String(on);
  for (const option of input.options) {
    const when = option.dataset.when ? JSON.parse(option.dataset.when) : null;
    option.hidden = when !== null && !when.includes(key);
  }
  if (clear && input.selectedOptions.length && input.selectedOptions[0].hidden) {
    input.value = "";
    form.values[f.key] = parse(f, input);
  }
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
