// The page's words: one JSON file a language under static/i18n/ (English is the reference every other file must
// match key for key; tests/test_web_i18n.py checks). The browser's languages pick one; the switcher's choice is kept.
export const LANGUAGES = { en: "English", ar: "العربية", es: "Español", de: "Deutsch", pt: "Português", id: "Bahasa Indonesia" };
const RTL = new Set(["ar"]);
const KEY = "tarneeb-lang";
let strings = {};
let english = {};

async function fetchLanguage(lang) {
  const r = await fetch(`/static/i18n/${lang}.json`);
  if (!r.ok) throw new Error(`no words for language ${lang}`);
  return r.json();
}

// The stored choice, else the first of the browser's languages the table speaks, else English.
export function chooseLanguage() {
  const kept = localStorage.getItem(KEY);
  if (kept && kept in LANGUAGES) return kept;
  for (const tag of navigator.languages || [navigator.language || "en"]) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (base in LANGUAGES) return base;
  }
  return "en";
}

export async function loadLanguage(lang, remember = false) {
  if (!Object.keys(english).length) english = await fetchLanguage("en");
  strings = lang === "en" ? english : await fetchLanguage(lang);
  if (remember) localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang;
  document.documentElement.dir = RTL.has(lang) ? "rtl" : "ltr";
  return lang;
}

export const has = (key) => key in strings || key in english;

// The words for key, with {name} replaced by params.name (English where a language lacks the key).
export function t(key, params = {}) {
  const text = strings[key] ?? english[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

// As t(), for params that are nodes (a card, a suit symbol): the pieces, in the language's word order.
export function tn(key, params = {}) {
  const text = strings[key] ?? english[key] ?? key;
  return text.split(/(\{\w+\})/).filter((p) => p !== "").map((p) => {
    const m = /^\{(\w+)\}$/.exec(p);
    if (!m || !(m[1] in params)) return p;
    const v = params[m[1]];
    return v instanceof Node ? v : String(v);
  });
}

// Every element marked data-i18n (its text), data-i18n-title and data-i18n-aria (those attributes).
export function applyI18n(root = document) {
  for (const e of root.querySelectorAll("[data-i18n]")) e.textContent = t(e.dataset.i18n);
  for (const e of root.querySelectorAll("[data-i18n-title]")) e.title = t(e.dataset.i18nTitle);
  for (const e of root.querySelectorAll("[data-i18n-aria]")) e.setAttribute("aria-label", t(e.dataset.i18nAria));
}
