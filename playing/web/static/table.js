// The web table's page: draws what the server sends and sends back clicks. The server decides everything.
// Every word on the page comes from static/i18n/<language>.json through t(); ranks and suit symbols stay universal.
import { LANGUAGES, applyI18n, chooseLanguage, has, loadLanguage, t, tn } from "./i18n.js";

const SUITS = "♣♦♥♠";
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
let SEAT_NAMES = ["You", "Right", "Partner", "Left"]; // set from the language on start and on a switch
const HAND_SUIT_ORDER = [3, 2, 0, 1]; // spades, hearts, clubs, diamonds: black and red alternate
const PASS = 52, BID_BASE = 52, TRUMP_BASE = 66;

const $ = (id) => document.getElementById(id);
let session = sessionStorage.getItem("tarneeb-session"); // per tab: two tabs never share a game
let config = null;
let state = null;
let timer = null;
let gatherTimer = null;
let busy = false;
let replay = null; // {viewers: [{record, players, title}], step}
let shownTrick = []; // [seat, card] pairs already drawn in the centre: only new ones slide in
const SPEED_KEY = "tarneeb-speed";
const MAX_SLIDE_MS = 300;
let dismissed = null; // the finished challenge whose last result panel was closed (the Table tab then says so)
const uploads = [];

// ------------------------------------------------------------------ helpers
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
const suitOf = (c) => Math.floor(c / 13);
const isRed = (s) => s === 1 || s === 2;
const suitSpan = (s) => el("span", { class: isRed(s) ? "suit-red" : "suit-black", text: SUITS[s] });
const cardSpan = (c) => el("span", { class: isRed(suitOf(c)) ? "suit-red" : "suit-black",
                                     text: RANKS[c % 13] + SUITS[suitOf(c)] });
const team = (seat) => (seat % 2 === 0 ? t("us") : t("them"));
const levelName = (key) => (config && config.levels.includes(key) ? t(`level.${key}`) : key);
const suitName = (s) => el("span", {}, `${t(`suit.${s}`)} `, suitSpan(s));

// A move in words: a card as rank and symbol, "pass", "bid 8", "trump ♠ Spades".
function actionNode(a) {
  if (a < 52) return cardSpan(a);
  if (a === PASS) return document.createTextNode(t("bid.pass"));
  if (a < TRUMP_BASE) return document.createTextNode(String(a - BID_BASE));
  return suitSpan(a - TRUMP_BASE);
}

function cardEl(c, tag = "div", attrs = {}) {
  const s = suitOf(c);
  return el(tag, { class: "card" + (isRed(s) ? " red" : ""), "data-card": c, "aria-label": RANKS[c % 13] + SUITS[s], ...attrs },
    el("span", { class: "rank", text: RANKS[c % 13] }), el("span", { class: "corner", text: SUITS[s] }),
    el("span", { class: "pip", text: SUITS[s] }));
}

function sortHand(cards) {
  return [...cards].sort((a, b) => HAND_SUIT_ORDER.indexOf(suitOf(a)) - HAND_SUIT_ORDER.indexOf(suitOf(b)) || b - a);
}

function auctionLine(auction) {
  const line = el("span");
  for (const [seat, a] of auction) {
    if (a >= TRUMP_BASE) continue;
    if (line.childNodes.length) line.append(" · ");
    line.append(SEAT_NAMES[seat] + " ", actionNode(a));
  }
  return line;
}

// One request at a time, in order: the server answers a second request for the same game with 409 while the
// first is being decided, so the page queues its own.
let queue = Promise.resolve();
function api(method, path, body) {
  const run = queue.then(() => send(method, path, body));
  queue = run.catch(() => {});
  return run;
}

async function send(method, path, body) {
  const opts = { method, headers: { "x-session": session || "" } };
  if (body !== undefined) {
    opts.headers["content-type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  const data = await r.json().catch(() => null); // not JSON: a proxy's page, say
  if (!r.ok || data === null) {
    const e = new Error((data && data.error) || `${r.status} ${r.statusText}`);
    e.status = r.status;
    if (data && data.key) e.words = { key: data.key, params: data.params || {} };
    throw e;
  }
  return data;
}

let toastTimer = null;
function toast(message) {
  const t = $("toast");
  t.textContent = message;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 6000);
}

function notice(message) {
  $("notice-text").textContent = message;
  $("notice").hidden = false;
}

const gameLost = (e) => e.status === 410 || (e.words && e.words.key === "srv.unknown_session");

async function replaceLostGame(e) {
  await newSession();
  notice(t("lost.notice", { why: errorText(e) }));
}

// A server message ({key, params}, playing/messages.py) in the person's words; a parameter may be a message too.
// The result is text: it only ever reaches the page through textContent or an attribute, never as HTML.
function words(m) {
  const params = {};
  for (const [k, v] of Object.entries(m.params || {})) params[k] = v !== null && typeof v === "object" ? words(v) : v;
  return t(m.key, params);
}

// An error in the person's language: the server's message by its key (its English stays in the page's log).
function errorText(e) {
  const m = e.message || "";
  console.info("server:", m);
  if (e.words) return has(e.words.key) ? words(e.words) : t("err.other", { message: m });
  if (e.status) return t("err.status", { status: e.status }); // no message key: not this server's answer
  if (/Failed to fetch|NetworkError|Load failed/.test(m)) return t("err.network");
  return t("err.other", { message: m });
}

async function call(method, path, body) {
  try {
    const data = await api(method, path, body);
    if (data.state) render(data.state);
    return data;
  } catch (e) {
    if (gameLost(e) && path !== "/api/session") {
      await replaceLostGame(e).catch((e2) => toast(errorText(e2)));
      return null;
    }
    toast(errorText(e));
    return null;
  }
}

// Has the person made a move that a new game or challenge would throw away?
function inProgress(s) {
  const moved = s.auction.some(([seat]) => seat === 0) || s.cards_left[0] < 13;
  if (s.duplicate) return !s.duplicate.done && (s.duplicate.results.length > 0 || moved);
  return !s.game_over && (s.deal_number > 1 || moved);
}

function mayAbandon() {
  if (!state || !inProgress(state)) return true;
  return window.confirm(t(state.duplicate ? "confirm.abandon_challenge" : "confirm.abandon_game"));
}

// ------------------------------------------------------------------ the table
function render(s) {
  state = s;
  $("score-us").textContent = s.scores[0];
  $("score-them").textContent = s.scores[1];
  const dup = s.duplicate;
  $("target-line").replaceChildren(...(dup ? [t("table.deal_of", { n: dup.deal, of: dup.of })]
    : tn("table.of_target", { target: el("b", { id: "target", text: s.rules.target }) })));
  const deal = dup ? t("table.challenge_deal", { n: dup.deal, of: dup.of }) : t("table.deal", { n: s.deal_number });
  $("deal-line").textContent = `${deal} · ${t("table.dealer", { who: SEAT_NAMES[s.dealer] })} · ${rulesName(s.rules.label)}`;
  const contract = $("contract-line");
  contract.replaceChildren();
  if (s.declarer !== null) {
    contract.append(t("table.contract", { bid: s.bid, who: SEAT_NAMES[s.declarer], team: team(s.declarer) }));
  }
  if (s.trump !== null) {
    if (contract.childNodes.length) contract.append(" · ");
    contract.append(...tn("table.trump", { suit: suitSpan(s.trump) }));
    if (s.exposed_card !== null) contract.append(" (", ...tn("table.exposed", { card: cardSpan(s.exposed_card) }), ")");
  }
  const playing = s.phase === "play" || (s.phase === "done" && s.result && !s.result.thrown_in);
  $("tricks-line").replaceChildren(...(playing ? [
    `${t("table.tricks")}: `, el("b", { class: "us-text", text: `${t("us")} ${s.tricks_won[0]}` }), " · ",
    el("b", { class: "them-text", text: `${t("them")} ${s.tricks_won[1]}` })] : []));
  for (let seat = 0; seat < 4; seat++) renderSeat(s, seat);
  renderCentre(s);
  renderPrompt(s);
  renderHand(s);
  $("hint").disabled = s.to_act !== 0;
  $("last").disabled = !s.last_trick;
  if (!s.last_trick) $("last-trick").hidden = true;
  if (s.to_act !== 0) hideHint();
  $("auction-log").replaceChildren(...(s.auction.some(([, a]) => a < TRUMP_BASE) && s.rules.auction !== "none"
    ? [`${t("table.auction")}: `, auctionLine(s.auction)] : []));
  renderResult(s);
  renderSheet(s);
  renderChallenge(s);
  renderPlayers(s);
  if (!$("rules-panel").hidden) $("rules-panel").replaceChildren(...rulesHelp(s.rules));
  schedule(s);
}

function renderSeat(s, seat) {
  const box = $(`seat-${seat}`);
  box.classList.toggle("on-turn", s.to_act === seat);
  const name = el("div", { class: "name" }, seatLabel(s, seat));
  if (seat === s.dealer) name.append(el("span", { class: "dealer", title: t("seat.dealer"), text: t("seat.dealer_mark") }));
  const parts = [name];
  const calls = s.auction.filter(([who, a]) => who === seat && a < TRUMP_BASE);
  if (s.rules.auction === "individual" && s.bids[seat]) parts.push(el("div", { class: "call" }, t("bid.n", { n: s.bids[seat] })));
  else if (s.phase === "bidding" && calls.length) {
    const last = calls[calls.length - 1][1];
    parts.push(el("div", { class: "call" }, last === PASS ? t("bid.pass") : t("bid.n", { n: last - BID_BASE })));
  }
  if (s.phase === "play" || s.phase === "done") {
    const n = s.tricks_by_seat[seat];
    parts.push(el("div", { class: "meta", text: t(n === 1 ? "seat.trick" : "seat.tricks", { n }) }));
  }
  if (seat !== 0) {
    const backs = el("div", { class: "backs", "aria-label": t("seat.cards", { n: s.cards_left[seat] }) });
    for (let i = 0; i < s.cards_left[seat]; i++) backs.append(el("span", { class: "back" }));
    parts.push(backs);
  }
  box.replaceChildren(...parts);
}

// The pause before a computer move: the server's delay, times the page's speed setting.
const speed = () => Number($("speed").value);

function renderCentre(s) {
  const centre = $("centre");
  centre.style.setProperty("--slide", `${Math.min(MAX_SLIDE_MS, 1000 * s.delay * speed())}ms`);
  let cards = s.trick, winner = s.trick_winning, note = "";
  const justDone = !s.trick.length && s.last_trick && s.last_trick.number === s.tricks_won[0] + s.tricks_won[1]
    && (s.phase === "play" || s.phase === "done");
  if (s.trick.length) note = t(winner === 0 ? "trick.you_winning" : "trick.winning", { who: SEAT_NAMES[winner] });
  else if (justDone) {
    cards = s.last_trick.cards;
    winner = s.last_trick.winner;
    note = t(winner === 0 ? "trick.you_win" : "trick.wins", { who: SEAT_NAMES[winner], n: s.last_trick.number });
  } else if (s.phase === "trump" && s.to_act > 0) note = t("trick.naming", { who: SEAT_NAMES[s.to_act] });
  centre.classList.toggle("done", Boolean(justDone));
  centre.classList.remove("gather");
  centre.dataset.winner = justDone ? winner : "";
  const seen = new Set(shownTrick.map(([, c]) => c));
  for (let seat = 0; seat < 4; seat++) {
    const played = cards.find(([who]) => who === seat);
    const fresh = played && !seen.has(played[1]) ? " arrive" : "";
    const cls = played && ("card" + (isRed(suitOf(played[1])) ? " red" : "") + (seat === winner ? " winning" : "") + fresh);
    $(`slot-${seat}`).replaceChildren(...(played ? [cardEl(played[1], "div", { class: cls })] : []));
  }
  shownTrick = cards;
  $("trick-note").textContent = note;
}

function renderPrompt(s) {
  const prompt = $("prompt");
  const choices = $("choices");
  choices.replaceChildren();
  if (s.waiting) { prompt.textContent = ""; return; }
  if (s.to_act !== 0) {
    prompt.textContent = s.to_act > 0 ? t("prompt.thinking", { who: seatLabel(s, s.to_act) }) : "";
    return;
  }
  const legal = new Set(s.legal);
  if (s.phase === "bidding") {
    const individual = s.rules.auction === "individual";
    prompt.textContent = individual ? t("prompt.bid_individual") : t("prompt.bid");
    if (!individual) choices.append(choiceButton(PASS, t("bid.Pass"), legal));
    for (let b = individual ? 2 : s.rules.min_bid; b <= 13; b++) choices.append(choiceButton(BID_BASE + b, String(b), legal));
  } else if (s.phase === "trump") {
    prompt.textContent = t("prompt.trump");
    for (const suit of HAND_SUIT_ORDER) {
      const b = choiceButton(TRUMP_BASE + suit, SUITS[suit], legal);
      b.title = t(`suit.${suit}`);
      b.classList.add("suit", isRed(suit) ? "suit-red" : "suit-black");
      choices.append(b);
    }
  } else if (s.phase === "play") {
    const led = s.trick.length ? suitOf(s.trick[0][1]) : null;
    const follow = led !== null && s.legal.every((c) => suitOf(c) === led);
    prompt.replaceChildren(t("prompt.play"), ...(follow ? [" — ", ...tn("prompt.follow", { suit: suitSpan(led) })] : []));
  }
}

function choiceButton(action, label, legal) {
  return el("button", { "data-action": action, disabled: !legal.has(action), onclick: () => act(action) }, label);
}

function renderHand(s) {
  const hand = $("hand");
  const legal = new Set(s.phase === "play" ? s.legal : []);
  hand.classList.toggle("my-turn", s.to_act === 0 && s.phase === "play");
  const groups = []; // one group a suit: a phone's row wraps between suits, not inside one
  for (const c of s.hand) {
    if (!groups.length || Number(groups[groups.length - 1].dataset.suit) !== suitOf(c)) {
      groups.push(el("span", { class: "suit-group", "data-suit": suitOf(c) }));
    }
    groups[groups.length - 1].append(cardEl(c, "button", { "data-action": c, disabled: !legal.has(c), onclick: () => act(c) }));
  }
  hand.replaceChildren(...groups);
  markHint();
}

function renderSheet(s) {
  $("sheet-toggle").disabled = !s.sheet.length;
  if (!s.sheet.length) $("sheet").hidden = true;
  const rows = s.sheet.map((r, k) => {
    const word = r.thrown_in ? t("result.thrown_in_word") : r.made === null ? "" : r.made ? t("result.made_word") : t("result.down_word");
    const tricks = r.thrown_in ? "" : `${r.tricks[0]}–${r.tricks[1]}`;
    const net = r.delta[0] - r.delta[1];
    return el("tr", {}, el("td", { text: k + 1 }), el("td", {}, ...contractNodes(r)), el("td", { text: tricks }),
      el("td", { class: net > 0 ? "made" : net < 0 ? "down" : "", text: word }),
      el("td", {}, `${signed(r.delta[0])} `, el("b", { class: "us-text", text: r.scores[0] })),
      el("td", {}, `${signed(r.delta[1])} `, el("b", { class: "them-text", text: r.scores[1] })));
  });
  document.querySelector("#sheet tbody").replaceChildren(...rows);
}

function toggleSheet() {
  const sheet = $("sheet");
  sheet.hidden = !sheet.hidden;
  $("sheet-toggle").setAttribute("aria-expanded", String(!sheet.hidden));
}

function renderResult(s) {
  const box = $("result");
  const over = Boolean(s.duplicate && s.duplicate.done && dismissed === s.duplicate.seed);
  box.hidden = !s.waiting || over;
  $("challenge-over").hidden = !over;
  if (over) {
    $("challenge-over-text").textContent = t("challenge.over_table", { total: signed(s.duplicate.total) });
  }
  if (box.hidden) return;
  const r = s.result;
  const body = [];
  let title = t("result.hand_over");
  if (r.thrown_in) {
    title = t("result.thrown_in");
    body.push(el("p", { text: s.rules.auction === "individual"
      ? t("result.bids_too_few", { total: r.bids.reduce((a, b) => a + b, 0) }) : t("result.all_passed") }));
  } else {
    const net = r.score_delta[0] - r.score_delta[1];
    const side = net > 0 ? "good" : net < 0 ? "bad" : "";
    if (r.made !== null) {
      const taken = r.tricks_won[r.declarer % 2];
      const who = SEAT_NAMES[r.declarer];
      title = t(r.made ? "result.made" : "result.down", { who, taken, bid: r.bid });
    }
    body.push(el("p", {}, el("b", {}, ...contractNodes(r))),
      el("p", { id: "result-outcome", class: side, text: `${pointsLine(r.score_delta)}` }),
      el("p", { text: `${t("table.tricks")}: ${t("us")} ${r.tricks_won[0]} · ${t("them")} ${r.tricks_won[1]}` }));
    if (s.rules.auction === "individual") {
      const tbl = el("table", {}, el("tr", {}, el("th", { text: t("result.player") }), el("th", { text: t("result.bid") }),
        el("th", { text: t("table.tricks") }), el("th", { text: t("result.points") })));
      for (let seat = 0; seat < 4; seat++) {
        const d = r.seat_score_delta[seat];
        tbl.append(el("tr", {}, el("td", { text: SEAT_NAMES[seat] }), el("td", { text: r.bids[seat] }),
          el("td", { text: r.tricks_by_seat[seat] }), el("td", { text: (d > 0 ? "+" : "") + d })));
      }
      body.push(tbl);
    }
  }
  body.push(el("p", { id: "result-score" }, `${t("result.score")}: `, el("b", { class: "us-text", text: `${t("us")} ${r.scores[0]}` }), " – ",
    el("b", { class: "them-text", text: `${t("them")} ${r.scores[1]}` }), s.duplicate ? "" : ` (${t("result.target", { n: s.rules.target })})`));
  const button = $("next-deal");
  const dup = s.duplicate;
  $("review-hand").hidden = r.thrown_in;
  $("result-sheet").hidden = !s.game_over;
  if (!s.game_over) $("result-sheet-table").hidden = true;
  if (dup && !r.thrown_in && dup.results.length) {
    const last = dup.results[dup.results.length - 1];
    body.push(el("p", {}, ...tn("challenge.computer_seat", { contract: el("span", {}, ...contractNodes(last.computer_info)),
      net: signed(last.computer_net) }), " ", el("b", { text: t("challenge.your_margin", { margin: signed(last.margin) }) })));
    button.textContent = dup.done ? t("challenge.see_results") : t("challenge.next_deal");
  } else if (s.game_over) {
    title = s.winner === 0 ? t("result.we_win") : s.winner === 1 ? t("result.they_win") : t("result.game_over");
    button.textContent = t("menu.new_game");
  } else button.textContent = t("result.next_deal");
  $("result-title").textContent = title;
  $("result-title").className = r.thrown_in || s.game_over ? "" : (r.score_delta[0] > r.score_delta[1] ? "good"
    : r.score_delta[0] < r.score_delta[1] ? "bad" : "");
  $("result-body").replaceChildren(...body);
}

const signed = (n) => (n >= 0 ? "+" : "") + n;

// "+9 us" / "+10 them" / "+4 us, +3 them": who gained, in the person's words.
function pointsLine(delta) {
  const parts = [];
  if (delta[0]) parts.push(t("points.us", { n: signed(delta[0]) }));
  if (delta[1]) parts.push(t("points.them", { n: signed(delta[1]) }));
  return parts.length ? parts.join(", ") : t("points.none");
}

// "8 by Right · trump ♠" from a record's numbers ({declarer, bid, trump, thrown_in}).
function contractNodes(r) {
  if (!r) return [t("replay.unreadable")];
  if (r.thrown_in) return [t("result.thrown_in_word")];
  const out = [];
  if (r.declarer !== null && r.declarer !== undefined) out.push(t("contract.by", { bid: r.bid, who: SEAT_NAMES[r.declarer] }));
  if (r.trump !== null && r.trump !== undefined) {
    if (out.length) out.push(" · ");
    out.push(...tn("table.trump", { suit: suitSpan(r.trump) }));
  }
  return out.length ? out : [t("contract.none")];
}

function schedule(s) {
  clearTimeout(timer);
  clearTimeout(gatherTimer);
  if (s.waiting || s.to_act <= 0) return;
  const justDone = !s.trick.length && s.phase === "play" && s.last_trick;
  const ms = 1000 * s.delay * speed() * (justDone ? 2 : 1);
  if (justDone && ms) gatherTimer = setTimeout(() => $("centre").classList.add("gather"), ms / 2); // to its winner
  timer = setTimeout(advance, ms);
}

async function advance() {
  if (busy) return;
  busy = true;
  try { await call("POST", "/api/advance"); } finally { busy = false; }
}

async function act(action) {
  if (busy) return;
  busy = true;
  $("hint-text").hidden = true;
  try { await call("POST", "/api/act", { action }); } finally { busy = false; }
}

async function nextDeal() {
  const s = state;
  const dup = s.duplicate;
  if (dup && dup.done && s.result && !s.result.thrown_in) {
    dismissed = dup.seed;
    render(s);
    return showView("challenge");
  }
  if (s.game_over) return newGame(true);
  await call("POST", "/api/next");
}

// ------------------------------------------------------------------ a new game: rules, target and levels
// The header says who is playing; the choices live in this panel and apply to the game it starts (Cancel keeps
// everything as it is), so a menu never shows a player who is not at the table.
const choiceOf = (label) => config.rule_choices.find((r) => r.label === label);
const rulesName = (label) => (has(`rules.${label}`) ? t(`rules.${label}`) : label);

function openSetup() {
  const s = state;
  $("pick-rules").replaceChildren(...config.rule_choices.map((r) => el("option", { value: r.label, text: rulesName(r.label) })));
  $("pick-rules").value = s.rules.label;
  $("pick-target").value = s.rules.target;
  fillLevels(s.agents.partner, s.agents.opponents);
  $("setup").hidden = false;
  $("pick-rules").focus();
}

function fillLevels(partner, opponents) {
  const label = $("pick-rules").value;
  const offered = config.offered[label];
  for (const [id, want, fallback] of [["pick-partner", partner, config.partner], ["pick-opponents", opponents, config.opponents]]) {
    $(id).replaceChildren(...offered.map((k) => el("option", { value: k, text: levelName(k), title: levelNote(k, label) })));
    $(id).value = offered.includes(want) ? want : offered.includes(fallback) ? fallback : offered[offered.length - 1];
  }
  showLevelNotes();
  $("setup-rules-help").replaceChildren(...rulesHelp({ ...choiceOf(label), target_score: Number($("pick-target").value) || choiceOf(label).target }));
}

// A level's measured strength: its held-out margin against Club (rule) under these rules, with its interval.
function levelNote(key, label) {
  if (!config.levels.includes(key)) return t("level.custom");
  if (key === "club") return t("level.note_club");
  const f = (x) => (x >= 0 ? "+" : "") + x.toFixed(2);
  const note = (fig, against) => t("level.note", { level: levelName(against), m: f(fig[0]), lo: f(fig[1]), hi: f(fig[2]), n: fig[3] });
  const fig = (config.measured[key] || {})[label];
  const below = (config.against_below[key] || {})[label];
  const lower = config.levels[config.levels.indexOf(key) - 1];
  if (fig && below) return `${note(fig, "club")} ${note(below, lower)}`;
  if (fig || below) return fig ? note(fig, "club") : note(below, lower);
  return t("level.note_unmeasured");
}

function showLevelNotes() {
  const label = $("pick-rules").value;
  $("partner-note").textContent = levelNote($("pick-partner").value, label);
  $("opponents-note").textContent = levelNote($("pick-opponents").value, label);
}

function renderPlayers(s) {
  const line = $("players-line");
  line.replaceChildren(el("span", {}, `${t("menu.partner")}: `, el("b", { id: "now-partner", text: levelName(s.agents.partner) })), " · ",
    el("span", {}, `${t("menu.opponents")}: `, el("b", { id: "now-opponents", text: levelName(s.agents.opponents) })));
  line.title = `${rulesName(s.rules.label)}: ${t("menu.partner")} ${levelName(s.agents.partner)} — ${levelNote(s.agents.partner, s.rules.label)}; `
    + `${t("menu.opponents")} ${levelName(s.agents.opponents)} — ${levelNote(s.agents.opponents, s.rules.label)}`;
}

const seatLabel = (s, seat) => (seat === 0 ? SEAT_NAMES[0]
  : `${SEAT_NAMES[seat]} (${levelName(seat === 2 ? s.agents.partner : s.agents.opponents)})`);

// A replay's player names ("Right (club)", "You (computer: strong)") in the person's words; others as written.
function playerLabel(name, seat) {
  const m = /^(You|Right|Partner|Left)(?: \((?:computer: )?(.+)\))?$/.exec(name || "");
  if (!m) return name;
  if (/computer:/.test(name)) return t("replay.you_computer", { level: levelName(m[2]) });
  return m[2] ? `${SEAT_NAMES[seat]} (${levelName(m[2])})` : SEAT_NAMES[seat];
}

async function startSetup() {
  const target = Number($("pick-target").value);
  if (!Number.isInteger(target) || target < 1 || target > config.max_target) {
    toast(t("err.target", { max: config.max_target }));
    return;
  }
  const abandon = mayAbandon();
  $("setup").hidden = true; // either way: the panel never stays open showing players who are not at the table
  if (!abandon) return;
  dismissed = null;
  await call("POST", "/api/new", { rules: $("pick-rules").value, target, partner: $("pick-partner").value,
    opponents: $("pick-opponents").value });
  showView("table");
}

async function newGame(asked = false) {
  if (!asked && !mayAbandon()) return;
  dismissed = null;
  await call("POST", "/api/new", { partner: state.agents.partner, opponents: state.agents.opponents });
  showView("table");
}

// "How to play these rules", from the rule options (docs/env.md), in the person's language.
function rulesHelp(r) {
  const p = (key, params) => el("p", { text: t(key, params) });
  const out = [el("h3", { text: t("help.title", { rules: rulesName(r.label) }) })];
  if (r.auction === "team") {
    out.push(p("help.auction_team", { min: r.min_bid }), p(r.all_pass === "redeal" ? "help.all_pass_redeal" : "help.all_pass_dealer"));
  } else if (r.auction === "individual") out.push(p("help.auction_individual", { n: r.min_total_bids }));
  else out.push(p("help.auction_none"));
  out.push(p(`help.trump_${r.trump}`), p(r.first_lead === "declarer" ? "help.lead_declarer" : "help.lead_eldest"), p("help.play"));
  if (r.auction === "team") out.push(p(r.defenders_score === "always" ? "help.score_team_always" : "help.score_team_on_set"));
  else if (r.auction === "individual") out.push(p("help.score_individual"));
  else out.push(p("help.score_none"));
  if (r.auction !== "individual") out.push(p(`help.kaboot_${r.kaboot}`));
  if (r.bid13_wins_game) out.push(p("help.bid13"));
  out.push(p(r.auction === "individual" ? "help.target_individual" : "help.target", { n: r.target_score ?? r.target }));
  return out;
}

function toggleRules() {
  const panel = $("rules-panel");
  panel.hidden = !panel.hidden;
  if (!panel.hidden) panel.replaceChildren(...rulesHelp(state.rules));
  $("rules-toggle").setAttribute("aria-expanded", String(!panel.hidden));
}

// ------------------------------------------------------------------ the language
async function setLanguage(lang, remember) {
  await loadLanguage(lang, remember);
  SEAT_NAMES = ["seat.you", "seat.right", "seat.partner", "seat.left"].map((k) => t(k));
  applyI18n();
  $("lang").value = lang;
  if (!state) return;
  render(state);
  if (!$("setup").hidden) openSetup();
  if (!$("view-replay").hidden) {
    await loadSources();
    if (replay) drawReplay(); else listDeals();
  }
  if (!$("hint-text").hidden) hideHint();
}

// ------------------------------------------------------------------ the Hint and its reasons
let hinted = null; // the action the open Hint names: marked in the hand or among the choices

function markHint() {
  document.querySelectorAll(".hinted").forEach((b) => b.classList.remove("hinted"));
  if (hinted === null) return;
  document.querySelectorAll(`#hand [data-action="${hinted}"], #choices [data-action="${hinted}"]`)
    .forEach((b) => b.classList.add("hinted"));
}

function hideHint() {
  $("hint-text").hidden = true;
  document.body.classList.remove("hint-open");
  hinted = null;
  markHint();
}

const pct = (p) => `${Math.round(100 * p)}%`;
const num = (x, d = 1) => (x === null || x === undefined ? "—" : Number(x).toFixed(d));
const SUIT_LETTERS = "CDHS";

function suitOfLabel(x) {
  const i = typeof x === "number" ? x : SUIT_LETTERS.indexOf(String(x).toUpperCase()[0]);
  return i >= 0 && i < 4 ? suitSpan(i) : (SUITS.includes(x) ? suitSpan(SUITS.indexOf(x)) : document.createTextNode(String(x)));
}

function hintSentence(action) {
  if (action < 52) return tn("hint.play", { move: cardSpan(action) });
  if (action === PASS) return [t("hint.pass")];
  if (action < TRUMP_BASE) return [t("hint.bid", { n: action - BID_BASE })];
  return tn("hint.trump", { suit: suitName(action - TRUMP_BASE) });
}

async function hint() {
  try {
    const h = await api("GET", "/api/hint");
    hinted = h.action;
    markHint();
    const box = $("hint-text");
    const top = h.advice && (h.advice.candidates || []).find((c) => c.action === h.action);
    const head = el("p", { class: "hint-line" }, ...hintSentence(h.action));
    if (top && top.prob !== undefined) head.append(` (${t("hint.network_prob", { p: pct(top.prob) })})`);
    else if (h.reason) head.append(` — ${h.reason_key ? t(h.reason_key) : h.reason}`);
    const buttons = el("div", { class: "hint-buttons" });
    if (h.advice) buttons.append(el("button", { id: "hint-why", onclick: () => { $("hint-why-box").hidden = !$("hint-why-box").hidden; } }, t("hint.why")));
    buttons.append(el("button", { id: "hint-close", "aria-label": t("hint.close"), onclick: hideHint }, "✕"));
    box.replaceChildren(el("div", { class: "hint-head" }, head, buttons),
      ...(h.advice ? [whyBox(h.advice, state)] : []));
    box.hidden = false;
    document.body.classList.add("hint-open");
  } catch (e) { toast(errorText(e)); }
}

// The numbers behind a Hint: per candidate the network's probability, the mean points for our side over the
// sampled layouts and the chance to make (we declare) or set (they declare) the contract; what the table knows.
function whyBox(advice, s) {
  const box = el("div", { id: "hint-why-box", hidden: true });
  const cands = advice.candidates || [];
  const defending = s && s.declarer !== null && s.declarer % 2 === 1;
  const chanceHead = t(defending ? "why.set_chance" : "why.make_chance");
  const hasMean = cands.some((c) => c.mean_points !== null && c.mean_points !== undefined);
  const hasChance = cands.some((c) => c.make_chance !== null && c.make_chance !== undefined);
  const head = el("tr", {}, el("th", { text: t("why.move") }), el("th", { text: t("why.network") }),
    ...(hasMean ? [el("th", { text: t("why.mean_points") })] : []), ...(hasChance ? [el("th", { text: chanceHead })] : []));
  const rows = cands.map((c) => el("tr", { class: c.action === advice.action ? "chosen" : "" },
    el("td", {}, actionNode(c.action)), el("td", { text: pct(c.prob) }),
    ...(hasMean ? [el("td", { text: c.mean_points === null || c.mean_points === undefined ? "—" : signed(Number(num(c.mean_points))) })] : []),
    ...(hasChance ? [el("td", { text: c.make_chance === null || c.make_chance === undefined ? "—" : pct(c.make_chance) })] : [])));
  box.append(el("table", {}, head, ...rows));
  const facts = advice.facts || {};
  const lines = [];
  for (const [seat, suits] of Object.entries(facts.voids || {})) {
    if (suits && suits.length) lines.push(el("li", {}, ...tn("why.void", { who: SEAT_NAMES[Number(seat)], suits: el("span", {}, ...suits.flatMap((x, i) => [i ? " " : "", suitOfLabel(x)])) })));
  }
  if (facts.trumps_out !== null && facts.trumps_out !== undefined) lines.push(el("li", { text: t("why.trumps_out", { n: facts.trumps_out }) }));
  if (facts.tricks_needed !== null && facts.tricks_needed !== undefined) {
    lines.push(el("li", { text: t(defending ? "why.tricks_to_set" : "why.tricks_to_make", { n: facts.tricks_needed }) }));
  }
  const strains = facts.strain_tricks;
  if (strains && typeof strains === "object") {
    const parts = Object.entries(strains).flatMap(([k, v], i) => [i ? " · " : "", suitOfLabel(/^\d+$/.test(k) ? Number(k) : k), ` ${num(v)}`]);
    lines.push(el("li", {}, `${t("why.strain_tricks")}: `, ...parts));
  }
  if (lines.length) box.append(el("ul", {}, ...lines));
  box.append(el("p", { class: "why-note", text: t("why.note") }));
  return box;
}

function toggleLast() {
  const box = $("last-trick");
  const tr = state.last_trick;
  if (!box.hidden || !tr) { box.hidden = true; return; }
  const line = [`${t("trick.n", { n: tr.number })}: `];
  tr.cards.forEach(([seat, c], i) => line.push(i ? " · " : "", `${SEAT_NAMES[seat]} `, cardSpan(c)));
  line.push(` → ${t(tr.winner === 0 ? "trick.you_win_short" : "trick.wins_short", { who: SEAT_NAMES[tr.winner] })}`);
  box.replaceChildren(...line);
  box.hidden = false;
}

// ------------------------------------------------------------------ the challenge
function renderChallenge(s) {
  const dup = s.duplicate;
  $("dup-explain").textContent = t("challenge.explain", { n: config.duplicate_deals });
  const body = document.querySelector("#dup-results tbody");
  const foot = document.querySelector("#dup-results tfoot");
  if (!dup) {
    $("dup-progress").textContent = "";
    $("dup-start").textContent = t("challenge.start");
    body.replaceChildren();
    foot.replaceChildren();
    return;
  }
  const set = dup.named ? ` ${t("challenge.named_set", { seed: dup.seed })}`
    : dup.seed !== null ? ` ${t("challenge.drawn_set", { seed: dup.seed })}` : "";
  $("dup-progress").textContent = (dup.done ? t("challenge.over", { total: signed(dup.total) })
    : t("challenge.playing", { n: dup.deal, of: dup.of })) + set;
  $("dup-start").textContent = dup.done ? t("challenge.start_new") : t("challenge.restart");
  // coloured from the person's side: green where the side gained, whoever held the contract
  const outcome = (info, made, net) => {
    const word = made === null ? "" : made ? t("result.made_word") : t("result.down_word");
    return [...contractNodes(info), el("br"), el("span", { class: net > 0 ? "made" : net < 0 ? "down" : "", text: word }),
      ` ${t("challenge.net", { n: signed(net) })}`];
  };
  body.replaceChildren(...dup.results.map((r, k) => el("tr", {},
    el("td", { text: r.deal }), el("td", {}, ...outcome(r.you_info, r.you_made, r.you_net)),
    el("td", {}, ...outcome(r.computer_info, r.computer_made, r.computer_net)),
    el("td", { class: r.margin > 0 ? "pos" : r.margin < 0 ? "neg" : "", text: signed(r.margin) }),
    el("td", {}, el("button", { class: "compare", onclick: () => openCompare(k) }, t("challenge.compare"))))));
  foot.replaceChildren(el("tr", {}, el("th", { text: t("challenge.total") }), el("td"), el("td"),
    el("th", { id: "dup-total", class: dup.total > 0 ? "pos" : dup.total < 0 ? "neg" : "", text: signed(dup.total) }), el("td")));
}

// ------------------------------------------------------------------ replays
async function loadSources() {
  const select = $("replay-source");
  const keep = select.value;
  const files = await api("GET", "/api/replay/files");
  const options = [el("option", { value: "game", text: t("replay.this_tab") })];
  for (const name of uploads) options.push(el("option", { value: `upload:${name}`, text: t("replay.opened", { name }) }));
  for (const name of files.files) options.push(el("option", { value: `dir:${name}`, text: name }));
  select.replaceChildren(...options);
  if ([...select.options].some((o) => o.value === keep)) select.value = keep;
}

async function listDeals() {
  const source = $("replay-source").value;
  try {
    const data = await api("GET", `/api/replay/deals?source=${encodeURIComponent(source)}`);
    fillList(data.entries);
  } catch (e) { toast(errorText(e)); }
}

// "deal 3 · table 1", "game 2 · hand 4", "deal 1 · you": a listing's title from its numbers.
function entryTitle(e) {
  const m = e.meta || {};
  if (m.deal_index !== undefined) return t("replay.deal", { n: m.deal_index }) + (m.table !== undefined ? ` · ${t("replay.table", { n: m.table })}` : "");
  if (m.game_index !== undefined) return `${t("replay.game", { n: m.game_index })} · ${t("replay.hand", { n: (m.hand_index || 0) + 1 })}`;
  if (m.deal_number !== undefined) return t("replay.deal", { n: m.deal_number }) + (m.seat0 ? ` · ${t(m.seat0 === "you" ? "replay.you" : "replay.computer")}` : "");
  return t("replay.record", { n: e.index + 1 });
}

function outcomeText(info) {
  if (!info) return "";
  if (info.thrown_in) return t("points.none");
  const verdict = info.made === null ? t("replay.tricks", { us: info.tricks[0], them: info.tricks[1] })
    : info.made ? t("result.made_word") : `${t("result.down_word")} ${info.bid - info.tricks[info.declarer % 2]}`;
  return `${verdict} · ${t("us")} ${signed(info.delta[0])} / ${t("them")} ${signed(info.delta[1])}`;
}

function fillList(entries) {
  const body = document.querySelector("#replay-list tbody");
  body.replaceChildren(...entries.map((e) => el("tr", { "data-index": e.index, class: e.refused ? "refused" : "",
    title: e.why ? words(e.why) : false, onclick: () => openRecord(e.index) },
    el("td", { text: entryTitle(e) }), el("td", {}, ...contractNodes(e.info)),
    el("td", { text: e.refused ? t("replay.refused") : outcomeText(e.info) }))));
  if (!entries.length) body.append(el("tr", {}, el("td", { colspan: 3, text: t("replay.none") })));
}

async function fetchRecord(source, index) {
  return api("GET", `/api/replay/open?source=${encodeURIComponent(source)}&index=${index}`);
}

async function openRecord(index) {
  try {
    const data = await fetchRecord($("replay-source").value, index);
    document.querySelectorAll("#replay-list tr").forEach((tr) => tr.classList.toggle("open", tr.dataset.index === String(index)));
    showReplay([data]);
  } catch (e) {
    clearReplay();
    toast(errorText(e));
  }
}

function clearReplay() {
  replay = null;
  $("review").hidden = $("review-note").hidden = true;
  $("replay-viewers").replaceChildren();
  $("replay-controls").hidden = true;
  document.querySelectorAll("#replay-list tr.open").forEach((tr) => tr.classList.remove("open"));
}

async function openCompare(k) {
  try {
    const mine = await fetchRecord("game", 2 * k);
    const computer = await fetchRecord("game", 2 * k + 1);
    mine.title = { custom: t("compare.you", { n: k + 1 }) };
    computer.title = { custom: t("compare.computer", { n: k + 1 }) };
    showView("replay");
    await loadSources();
    $("replay-source").value = "game";
    await listDeals();
    showReplay([mine, computer]);
  } catch (e) { toast(errorText(e)); }
}

function showReplay(viewers) {
  replay = { viewers, step: 0 };
  $("review").hidden = $("review-note").hidden = true;
  $("replay-controls").hidden = false;
  drawReplay();
}

const tricksIn = (rec) => Math.floor(rec.plays.length / 4);

function drawReplay() {
  const steps = Math.max(...replay.viewers.map((v) => tricksIn(v.record)));
  replay.step = Math.max(0, Math.min(steps, replay.step));
  const k = replay.step;
  $("rp-step").textContent = k === 0 ? t("replay.the_deal", { n: steps }) : t("replay.trick_of", { n: k, of: steps });
  $("rp-prev").disabled = $("rp-first").disabled = k === 0;
  $("rp-next").disabled = $("rp-last").disabled = k === steps;
  $("replay-viewers").replaceChildren(...replay.viewers.map((v) => viewer(v, Math.min(k, tricksIn(v.record)), k === steps)));
}

function viewer(v, k, atEnd) {
  const rec = v.record;
  const plays = rec.plays.slice(0, 4 * k);
  const gone = new Set(plays.map(([, c]) => c));
  const info = [t("table.dealer", { who: SEAT_NAMES[rec.dealer] })];
  const infoNode = el("div", { class: "rp-info" });
  if (rec.declarer !== null) info.push(t("contract.by", { bid: rec.bid, who: SEAT_NAMES[rec.declarer] }));
  infoNode.append(info.join(" · "));
  if (rec.trump !== null) infoNode.append(" · ", ...tn("table.trump", { suit: suitSpan(rec.trump) }));
  if (rec.exposed_card !== null) infoNode.append(" · ", ...tn("table.exposed", { card: cardSpan(rec.exposed_card) }));
  const grid = el("div", { class: "rp-grid" });
  for (let seat = 0; seat < 4; seat++) {
    const left = sortHand(rec.deal[seat].filter((c) => !gone.has(c)));
    const hand = el("div", { class: "rp-hand", "data-seat": seat, "data-cards": left.join(",") },
      el("div", { class: "who", text: playerLabel(v.players[seat], seat) }));
    const rows = el("div", { class: "rows" });
    for (const suit of HAND_SUIT_ORDER) {
      const ranks = left.filter((c) => suitOf(c) === suit).map((c) => RANKS[c % 13]);
      rows.append(el("div", { class: "suitrow " + (isRed(suit) ? "suit-red" : "suit-black"),
        text: `${SUITS[suit]} ${ranks.join(" ") || "—"}` }));
    }
    hand.append(rows);
    grid.append(hand);
  }
  const trick = el("div", { class: "rp-trick" });
  if (k > 0) {
    const cards = rec.plays.slice(4 * k - 4, 4 * k);
    const winner = rec.trick_winners[k - 1];
    for (const [seat, c] of cards) {
      trick.append(el("div", { class: "slot", "data-seat": seat },
        cardEl(c, "div", { class: "card" + (isRed(suitOf(c)) ? " red" : "") + (seat === winner ? " winning" : "") })));
    }
  }
  grid.append(trick);
  const won = [0, 0];
  rec.trick_winners.slice(0, k).forEach((w) => { won[w % 2] += 1; });
  const result = el("div", { class: "rp-result" });
  if (k > 0) {
    const w = rec.trick_winners[k - 1];
    result.append(`${t("trick.n", { n: k })}: ${t(w === 0 ? "trick.you_win_short" : "trick.wins_short", { who: SEAT_NAMES[w] })} · `);
  }
  result.append(t("replay.so_far", { us: won[0], them: won[1] }));
  if (atEnd) {
    const d = rec.score_delta;
    result.append(el("br"), el("b", { text: rec.thrown_in ? t("replay.thrown_in")
      : t("replay.score_change", { du: signed(d[0]), dt: signed(d[1]), us: rec.scores[0], them: rec.scores[1] }) }));
  }
  const auction = rec.auction.some(([, a]) => a < TRUMP_BASE) ? el("div", { class: "rp-auction" }, `${t("table.auction")}: `, auctionLine(rec.auction)) : null;
  const heading = v.title.custom || entryTitle(v.title);
  return el("div", { class: "viewer" }, el("h3", { text: heading + (v.title.info ? ` · ${outcomeText(v.title.info)}` : "") }),
    infoNode, grid, auction, result);
}

function stepReplay(to) {
  if (!replay) return;
  replay.step = to;
  drawReplay();
}

async function upload(event) {
  const file = event.target.files[0];
  if (!file) return;
  const text = await file.text();
  try {
    const data = await api("POST", "/api/replay/upload", { name: file.name, text });
    const name = data.source.slice("upload:".length);
    if (!uploads.includes(name)) uploads.push(name);
    await loadSources();
    $("replay-source").value = data.source;
    fillList(data.entries);
    clearReplay();
    if (data.entries.length === 1) openRecord(0);
  } catch (e) {
    clearReplay();
    toast(errorText(e));
  }
  event.target.value = "";
}

// ------------------------------------------------------------------ the post-hand review
// The hand just played, in the replay viewer, with each of your decisions beside the Hint's.
async function reviewHand() {
  const s = state;
  const index = s.duplicate ? 2 * (s.duplicate.results.length - 1) : s.records - 1;
  try {
    const record = await fetchRecord("game", index);
    const data = await api("GET", `/api/review?index=${index}`);
    showView("replay");
    await loadSources();
    $("replay-source").value = "game";
    await listDeals();
    showReplay([record]);
    const items = data.decisions.map((d) => {
      const when = d.phase === "play" ? t("trick.n", { n: d.trick }) : d.phase === "trump" ? t("review.trump") : t("review.bid");
      const same = d.change === null;
      const line = [el("b", { text: `${when}: ` }), `${t("review.you")} `, actionNode(d.yours)];
      if (same) line.push(` — ${t("review.agrees")}`);
      else {
        // change: your choice's net for your side minus the strong player's; green when yours did better
        line.push(` · ${t("review.strong")} `, actionNode(d.hint));
        line.push(el("span", { class: d.change > 0 ? "good" : d.change < 0 ? "bad" : "",
          text: ` · ${d.change ? t("review.change", { n: signed(d.change) }) : t("review.same_points")}` }));
      }
      const step = d.phase === "play" ? d.trick - 1 : 0;
      return el("li", { class: same ? "same" : "differs", onclick: () => stepReplay(step) }, ...line);
    });
    $("review").replaceChildren(...items);
    $("review").hidden = $("review-note").hidden = false;
  } catch (e) { toast(errorText(e)); }
}

// ------------------------------------------------------------------ the keyboard
const TRUMP_KEYS = "cdhs"; // in action order: clubs, diamonds, hearts, spades
const TYPING_MS = 800; // after a "1", how long to wait for a second digit (10-13)
let typed = "";
let typedTimer = null;

// Digits bid (P passes), C D H S name trump, arrows pick a card and Enter plays it; arrows step a replay.
function onKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || e.target.matches("input, select, textarea")) return;
  if (!$("view-replay").hidden) {
    if (replay && e.key === "ArrowLeft") stepReplay(replay.step - 1);
    if (replay && e.key === "ArrowRight") stepReplay(replay.step + 1);
    return;
  }
  const s = state;
  if ($("view-table").hidden || !s || s.to_act !== 0 || s.waiting) return;
  const legal = new Set(s.legal);
  if (s.phase === "bidding") {
    if (e.key.toLowerCase() === "p" && legal.has(PASS)) act(PASS);
    if (!/^[0-9]$/.test(e.key)) return;
    typed += e.key;
    clearTimeout(typedTimer);
    const bids = [...legal].filter((a) => a > PASS && a < TRUMP_BASE).map((a) => String(a - BID_BASE));
    const go = () => {
      const bid = Number(typed);
      typed = "";
      if (legal.has(BID_BASE + bid) && bid > 0) act(BID_BASE + bid);
      else toast(t("err.bid_now", { n: bid }));
    };
    if (bids.some((b) => b.startsWith(typed) && b !== typed)) typedTimer = setTimeout(go, TYPING_MS);
    else go();
  } else if (s.phase === "trump") {
    const suit = TRUMP_KEYS.indexOf(e.key.toLowerCase());
    if (suit >= 0 && legal.has(TRUMP_BASE + suit)) act(TRUMP_BASE + suit);
  } else if (s.phase === "play" && (e.key === "ArrowLeft" || e.key === "ArrowRight")) {
    const cards = [...document.querySelectorAll("#hand button.card:not([disabled])")];
    if (!cards.length) return;
    const i = cards.indexOf(document.activeElement);
    const step = e.key === "ArrowRight" ? 1 : -1;
    cards[i < 0 ? 0 : (i + step + cards.length) % cards.length].focus(); // Enter then plays it (a button)
    e.preventDefault();
  }
}

// ------------------------------------------------------------------ views and start-up
function showView(name) {
  for (const v of ["table", "replay", "challenge"]) {
    $(`view-${v}`).hidden = v !== name;
    $(`tab-${v}`).classList.toggle("active", v === name);
  }
  if (name === "replay") loadSources().then(() => { if (!replay) listDeals(); });
}

async function newSession() {
  dismissed = null;
  const data = await api("POST", "/api/session", {});
  session = data.session;
  sessionStorage.setItem("tarneeb-session", session);
  render(data.state);
  return data;
}

async function start() {
  document.querySelectorAll(".tab").forEach((b) => b.addEventListener("click", () => showView(b.dataset.view)));
  $("lang").replaceChildren(...Object.entries(LANGUAGES).map(([k, name]) => el("option", { value: k, text: name, lang: k })));
  await setLanguage(chooseLanguage(), false);
  $("lang").addEventListener("change", () => setLanguage($("lang").value, true));
  config = await api("GET", "/api/config");
  $("new-game").addEventListener("click", openSetup);
  $("setup-start").addEventListener("click", startSetup);
  $("setup-cancel").addEventListener("click", () => { $("setup").hidden = true; });
  $("pick-rules").addEventListener("change", () => {
    $("pick-target").value = choiceOf($("pick-rules").value).target;
    fillLevels($("pick-partner").value, $("pick-opponents").value);
  });
  $("pick-target").addEventListener("input", () => fillLevels($("pick-partner").value, $("pick-opponents").value));
  $("pick-partner").addEventListener("change", showLevelNotes);
  $("pick-opponents").addEventListener("change", showLevelNotes);
  $("rules-toggle").addEventListener("click", toggleRules);
  $("result-sheet").addEventListener("click", () => {
    const box = $("result-sheet-table");
    box.hidden = !box.hidden;
    if (!box.hidden) box.replaceChildren($("sheet").querySelector("table").cloneNode(true));
  });
  $("over-new").addEventListener("click", () => newGame(true));
  $("over-results").addEventListener("click", () => showView("challenge"));
  $("notice-close").addEventListener("click", () => { $("notice").hidden = true; });
  $("next-deal").addEventListener("click", nextDeal);
  $("review-hand").addEventListener("click", reviewHand);
  $("hint").addEventListener("click", hint);
  $("last").addEventListener("click", toggleLast);
  $("sheet-toggle").addEventListener("click", toggleSheet);
  $("speed").value = localStorage.getItem(SPEED_KEY) || "1";
  $("speed").addEventListener("change", () => { localStorage.setItem(SPEED_KEY, $("speed").value); });
  $("dup-start").addEventListener("click", async () => {
    if (!mayAbandon()) return;
    dismissed = null;
    const players = { partner: state.agents.partner, opponents: state.agents.opponents };
    const data = await call("POST", "/api/duplicate", players);
    if (data) showView("table");
  });
  $("replay-source").addEventListener("change", listDeals);
  $("replay-upload").addEventListener("change", upload);
  $("rp-first").addEventListener("click", () => stepReplay(0));
  $("rp-prev").addEventListener("click", () => stepReplay(replay.step - 1));
  $("rp-next").addEventListener("click", () => stepReplay(replay.step + 1));
  $("rp-last").addEventListener("click", () => stepReplay(99));
  document.addEventListener("keydown", onKey);
  if (!session) return newSession();
  for (let tries = 0; ; tries++) {
    try {
      render((await api("GET", "/api/state")).state);
      return;
    } catch (e) {
      // a reload while the server still decides this game's last move (asked by the page before): ask again
      if (e.status === 409 && tries < 40) { await new Promise((ok) => { setTimeout(ok, 250); }); continue; }
      if (!gameLost(e)) throw e;
      await replaceLostGame(e);
      return;
    }
  }
}

start().catch((e) => toast(t("err.start", { message: errorText(e) })));
