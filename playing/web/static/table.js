// The web table's page: draws what the server sends and sends back clicks. The server decides everything.
const SUITS = "♣♦♥♠";
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const SEAT_NAMES = ["You", "Right", "Partner", "Left"];
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
const team = (seat) => (seat % 2 === 0 ? "Us" : "Them");

function actionNode(a) {
  if (a < 52) return cardSpan(a);
  if (a === PASS) return document.createTextNode("pass");
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
  const data = await r.json();
  if (!r.ok) {
    const e = new Error(data.error || r.statusText);
    e.status = r.status;
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

const gameLost = (e) => e.status === 410 || (e.status === 404 && /session/.test(e.message));

async function replaceLostGame(e) {
  await newSession();
  notice(`Your game was lost: ${e.message.replace(/: reload the page.*$/, "")}. A new game has started.`);
}

async function call(method, path, body) {
  try {
    const data = await api(method, path, body);
    if (data.state) render(data.state);
    return data;
  } catch (e) {
    if (gameLost(e) && path !== "/api/session") {
      await replaceLostGame(e).catch((e2) => toast(e2.message));
      return null;
    }
    toast(e.message);
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
  const what = state.duplicate ? "the challenge" : "the game";
  return window.confirm(`Abandon ${what} in progress?`);
}

// ------------------------------------------------------------------ the table
function render(s) {
  state = s;
  $("score-us").textContent = s.scores[0];
  $("score-them").textContent = s.scores[1];
  const dup = s.duplicate;
  $("target-line").replaceChildren(...(dup ? [`deal ${dup.deal} of ${dup.of}`]
    : ["of ", el("b", { id: "target", text: s.rules.target })]));
  const deal = dup ? `Challenge deal ${dup.deal} of ${dup.of}` : `Deal ${s.deal_number}`;
  $("deal-line").textContent = `${deal} · dealer ${SEAT_NAMES[s.dealer]} · rules ${s.rules.label}`;
  const contract = $("contract-line");
  contract.replaceChildren();
  if (s.declarer !== null) contract.append(`Contract ${s.bid} by ${SEAT_NAMES[s.declarer]} (${team(s.declarer)})`);
  if (s.trump !== null) {
    contract.append(contract.childNodes.length ? " · trump " : "Trump ", suitSpan(s.trump));
    if (s.exposed_card !== null) contract.append(" (dealer's last card ", cardSpan(s.exposed_card), ")");
  }
  const playing = s.phase === "play" || (s.phase === "done" && s.result && !s.result.thrown_in);
  $("tricks-line").replaceChildren(...(playing ? [
    "Tricks: ", el("b", { class: "us-text", text: `Us ${s.tricks_won[0]}` }), " · ",
    el("b", { class: "them-text", text: `Them ${s.tricks_won[1]}` })] : []));
  for (let seat = 0; seat < 4; seat++) renderSeat(s, seat);
  renderCentre(s);
  renderPrompt(s);
  renderHand(s);
  $("hint").disabled = s.to_act !== 0;
  $("last").disabled = !s.last_trick;
  if (!s.last_trick) $("last-trick").hidden = true;
  if (s.to_act !== 0) $("hint-text").hidden = true;
  $("auction-log").replaceChildren(...(s.auction.some(([, a]) => a < TRUMP_BASE) && s.rules.auction !== "none"
    ? ["Auction: ", auctionLine(s.auction)] : []));
  renderResult(s);
  renderSheet(s);
  renderChallenge(s);
  $("pick-partner").value = s.agents.partner;
  $("pick-opponents").value = s.agents.opponents;
  schedule(s);
}

function renderSeat(s, seat) {
  const box = $(`seat-${seat}`);
  box.classList.toggle("on-turn", s.to_act === seat);
  const name = el("div", { class: "name" }, s.seats[seat]);
  if (seat === s.dealer) name.append(el("span", { class: "dealer", title: "dealer", text: "D" }));
  const parts = [name];
  const calls = s.auction.filter(([who, a]) => who === seat && a < TRUMP_BASE);
  if (s.rules.auction === "individual" && s.bids[seat]) parts.push(el("div", { class: "call" }, `bid ${s.bids[seat]}`));
  else if (s.phase === "bidding" && calls.length) {
    const last = calls[calls.length - 1][1];
    parts.push(el("div", { class: "call" }, last === PASS ? "pass" : `bid ${last - BID_BASE}`));
  }
  if (s.phase === "play" || s.phase === "done") {
    const n = s.tricks_by_seat[seat];
    parts.push(el("div", { class: "meta", text: `${n} trick${n === 1 ? "" : "s"}` }));
  }
  if (seat !== 0) {
    const backs = el("div", { class: "backs", "aria-label": `${s.cards_left[seat]} cards` });
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
  if (s.trick.length) note = `${SEAT_NAMES[winner]} ${winner === 0 ? "are" : "is"} winning`;
  else if (justDone) {
    cards = s.last_trick.cards;
    winner = s.last_trick.winner;
    note = `${SEAT_NAMES[winner]} ${winner === 0 ? "win" : "wins"} trick ${s.last_trick.number}`;
  } else if (s.phase === "trump" && s.to_act > 0) note = `${SEAT_NAMES[s.to_act]} is naming trump`;
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
    prompt.textContent = s.to_act > 0 ? `${s.seats[s.to_act]} is thinking…` : "";
    return;
  }
  const legal = new Set(s.legal);
  if (s.phase === "bidding") {
    const individual = s.rules.auction === "individual";
    prompt.textContent = individual ? "Your bid: how many tricks will you take?" : "Your bid";
    if (!individual) choices.append(choiceButton(PASS, "Pass", legal));
    for (let b = individual ? 2 : s.rules.min_bid; b <= 13; b++) choices.append(choiceButton(BID_BASE + b, String(b), legal));
  } else if (s.phase === "trump") {
    prompt.textContent = "Name trump";
    for (const suit of HAND_SUIT_ORDER) {
      const b = choiceButton(TRUMP_BASE + suit, SUITS[suit], legal);
      b.classList.add("suit", isRed(suit) ? "suit-red" : "suit-black");
      choices.append(b);
    }
  } else if (s.phase === "play") {
    const led = s.trick.length ? suitOf(s.trick[0][1]) : null;
    const follow = led !== null && s.legal.every((c) => suitOf(c) === led);
    prompt.replaceChildren("Your play", ...(follow ? [" — follow ", suitSpan(led)] : []));
  }
}

function choiceButton(action, label, legal) {
  return el("button", { "data-action": action, disabled: !legal.has(action), onclick: () => act(action) }, label);
}

function renderHand(s) {
  const hand = $("hand");
  const legal = new Set(s.phase === "play" ? s.legal : []);
  hand.classList.toggle("my-turn", s.to_act === 0 && s.phase === "play");
  const nodes = [];
  let prev = null;
  for (const c of s.hand) {
    if (prev !== null && suitOf(c) !== prev) nodes.push(el("span", { class: "gap" }));
    prev = suitOf(c);
    nodes.push(cardEl(c, "button", { "data-action": c, disabled: !legal.has(c), onclick: () => act(c) }));
  }
  hand.replaceChildren(...nodes);
}

function renderSheet(s) {
  $("sheet-toggle").disabled = !s.sheet.length;
  if (!s.sheet.length) $("sheet").hidden = true;
  const rows = s.sheet.map((r, k) => {
    const word = r.thrown_in ? "thrown in" : r.made === null ? "" : r.made ? "made" : "down";
    const tricks = r.thrown_in ? "" : `${r.tricks[0]}–${r.tricks[1]}`;
    return el("tr", {}, el("td", { text: k + 1 }), el("td", { text: r.contract }), el("td", { text: tricks }),
      el("td", { class: word === "made" ? "made" : word === "down" ? "down" : "", text: word }),
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
    $("challenge-over-text").textContent = `The challenge is over: your total margin is ${signed(s.duplicate.total)}.`;
  }
  if (box.hidden) return;
  const r = s.result;
  const body = [];
  let title = "Hand over";
  if (r.thrown_in) {
    title = "Thrown in";
    body.push(el("p", { text: s.rules.auction === "individual"
      ? `The bids total ${r.bids.reduce((a, b) => a + b, 0)}: too few, the deal is thrown in.`
      : "Everyone passed: the cards are dealt again." }));
  } else {
    const net = r.score_delta[0] - r.score_delta[1];
    const side = net > 0 ? "good" : net < 0 ? "bad" : "";
    if (r.made !== null) {
      const taken = r.tricks_won[r.declarer % 2];
      const who = SEAT_NAMES[r.declarer];
      title = r.made ? `${who} made ${taken} of ${r.bid}` : `${who} went down: ${taken} of ${r.bid}`;
    }
    body.push(el("p", {}, el("b", { text: r.contract })),
      el("p", { id: "result-outcome", class: side, text: `${pointsLine(r.score_delta)}` }),
      el("p", { text: `Tricks: Us ${r.tricks_won[0]} · Them ${r.tricks_won[1]}` }));
    if (s.rules.auction === "individual") {
      const t = el("table", {}, el("tr", {}, el("th", { text: "Player" }), el("th", { text: "Bid" }),
        el("th", { text: "Tricks" }), el("th", { text: "Points" })));
      for (let seat = 0; seat < 4; seat++) {
        const d = r.seat_score_delta[seat];
        t.append(el("tr", {}, el("td", { text: SEAT_NAMES[seat] }), el("td", { text: r.bids[seat] }),
          el("td", { text: r.tricks_by_seat[seat] }), el("td", { text: (d > 0 ? "+" : "") + d })));
      }
      body.push(t);
    }
  }
  body.push(el("p", { id: "result-score" }, "Score: ", el("b", { class: "us-text", text: `Us ${r.scores[0]}` }), " – ",
    el("b", { class: "them-text", text: `Them ${r.scores[1]}` }), s.duplicate ? "" : ` (target ${s.rules.target})`));
  const button = $("next-deal");
  const dup = s.duplicate;
  $("review-hand").hidden = r.thrown_in;
  if (dup && !r.thrown_in && dup.results.length) {
    const last = dup.results[dup.results.length - 1];
    body.push(el("p", {}, `The computer in your seat: ${last.computer}, net ${signed(last.computer_net)}. `,
      el("b", { text: `Your margin: ${signed(last.margin)}` })));
    button.textContent = dup.done ? "See the challenge results" : "Next challenge deal";
  } else if (s.game_over) {
    title = s.winner === 0 ? "You and your partner win!" : s.winner === 1 ? "Right and Left win" : "Game over";
    button.textContent = "New game";
  } else button.textContent = "Next deal";
  $("result-title").textContent = title;
  $("result-title").className = r.thrown_in || s.game_over ? "" : (r.score_delta[0] > r.score_delta[1] ? "good"
    : r.score_delta[0] < r.score_delta[1] ? "bad" : "");
  $("result-body").replaceChildren(...body);
}

const signed = (n) => (n >= 0 ? "+" : "") + n;

// "+9 us" / "+10 them" / "+4 us, +3 them": who gained, in the person's words.
function pointsLine(delta) {
  const parts = [];
  if (delta[0]) parts.push(`${signed(delta[0])} us`);
  if (delta[1]) parts.push(`${signed(delta[1])} them`);
  return parts.length ? parts.join(", ") : "no points";
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

async function newGame(asked = false) {
  if (!asked && !mayAbandon()) return;
  dismissed = null;
  await call("POST", "/api/new", { partner: $("pick-partner").value, opponents: $("pick-opponents").value });
  showView("table");
}

async function hint() {
  try {
    const h = await api("GET", "/api/hint");
    const verb = h.action < 52 ? "play " : h.action === PASS ? "" : h.action < TRUMP_BASE ? "bid " : "name trump ";
    $("hint-text").replaceChildren("The rule player would ", verb, actionNode(h.action), ` — ${h.reason}.`);
    $("hint-text").hidden = false;
  } catch (e) { toast(e.message); }
}

function toggleLast() {
  const box = $("last-trick");
  const t = state.last_trick;
  if (!box.hidden || !t) { box.hidden = true; return; }
  const line = [`Trick ${t.number}: `];
  t.cards.forEach(([seat, c], i) => line.push(i ? " · " : "", `${SEAT_NAMES[seat]} `, cardSpan(c)));
  line.push(` → ${SEAT_NAMES[t.winner]} ${t.winner === 0 ? "win" : "wins"}`);
  box.replaceChildren(...line);
  box.hidden = false;
}

// ------------------------------------------------------------------ the challenge
function renderChallenge(s) {
  const dup = s.duplicate;
  $("dup-count").textContent = config.duplicate_deals;
  const body = document.querySelector("#dup-results tbody");
  const foot = document.querySelector("#dup-results tfoot");
  if (!dup) {
    $("dup-progress").textContent = "";
    $("dup-start").textContent = "Start the challenge";
    body.replaceChildren();
    foot.replaceChildren();
    return;
  }
  const set = dup.named ? ` Deal set ${dup.seed}: the same deals for everyone on this server.`
    : dup.seed !== null ? ` These were deal set ${dup.seed} (python evaluate.py … --seed ${dup.seed} plays them).`
    : "";
  $("dup-progress").textContent = (dup.done ? `Challenge over: your total margin is ${signed(dup.total)}.`
    : `Playing deal ${dup.deal} of ${dup.of} (open the Table tab).`) + set;
  $("dup-start").textContent = dup.done ? "Start a new challenge" : "Restart the challenge";
  const outcome = (contract, made, net) => {
    const word = made === null ? "" : made ? "made" : "down";
    return [contract, el("br"), el("span", { class: word, text: word }), ` net ${signed(net)}`];
  };
  body.replaceChildren(...dup.results.map((r, k) => el("tr", {},
    el("td", { text: r.deal }), el("td", {}, ...outcome(r.you, r.you_made, r.you_net)),
    el("td", {}, ...outcome(r.computer, r.computer_made, r.computer_net)),
    el("td", { class: r.margin > 0 ? "pos" : r.margin < 0 ? "neg" : "", text: signed(r.margin) }),
    el("td", {}, el("button", { class: "compare", onclick: () => openCompare(k) }, "Compare")))));
  foot.replaceChildren(el("tr", {}, el("th", { text: "Total" }), el("td"), el("td"),
    el("th", { id: "dup-total", class: dup.total > 0 ? "pos" : dup.total < 0 ? "neg" : "", text: signed(dup.total) }), el("td")));
}

// ------------------------------------------------------------------ replays
async function loadSources() {
  const select = $("replay-source");
  const keep = select.value;
  const files = await api("GET", "/api/replay/files");
  const options = [el("option", { value: "game", text: "This tab's deals" })];
  for (const name of uploads) options.push(el("option", { value: `upload:${name}`, text: `Opened: ${name}` }));
  for (const name of files.files) options.push(el("option", { value: `dir:${name}`, text: name }));
  select.replaceChildren(...options);
  if ([...select.options].some((o) => o.value === keep)) select.value = keep;
}

async function listDeals() {
  const source = $("replay-source").value;
  try {
    const data = await api("GET", `/api/replay/deals?source=${encodeURIComponent(source)}`);
    fillList(data.entries);
  } catch (e) { toast(e.message); }
}

function fillList(entries) {
  const body = document.querySelector("#replay-list tbody");
  body.replaceChildren(...entries.map((e) => el("tr", { "data-index": e.index, class: e.refused ? "refused" : "",
    title: e.refused || false, onclick: () => openRecord(e.index) },
    el("td", { text: e.title }), el("td", { text: e.contract }),
    el("td", { text: e.refused ? "refused: does not replay" : e.result }))));
  if (!entries.length) body.append(el("tr", {}, el("td", { colspan: 3, text: "No finished deals yet." })));
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
    toast(e.message);
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
    mine.title = { title: `Deal ${k + 1}: you` };
    computer.title = { title: `Deal ${k + 1}: the computer in your seat` };
    showView("replay");
    await loadSources();
    $("replay-source").value = "game";
    await listDeals();
    showReplay([mine, computer]);
  } catch (e) { toast(e.message); }
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
  $("rp-step").textContent = k === 0 ? `The deal (${steps} tricks)` : `Trick ${k} of ${steps}`;
  $("rp-prev").disabled = $("rp-first").disabled = k === 0;
  $("rp-next").disabled = $("rp-last").disabled = k === steps;
  $("replay-viewers").replaceChildren(...replay.viewers.map((v) => viewer(v, Math.min(k, tricksIn(v.record)), k === steps)));
}

function viewer(v, k, atEnd) {
  const rec = v.record;
  const plays = rec.plays.slice(0, 4 * k);
  const gone = new Set(plays.map(([, c]) => c));
  const info = [`Dealer ${SEAT_NAMES[rec.dealer]}`];
  const infoNode = el("div", { class: "rp-info" });
  if (rec.declarer !== null) info.push(`contract ${rec.bid} by ${SEAT_NAMES[rec.declarer]}`);
  infoNode.append(info.join(" · "));
  if (rec.trump !== null) infoNode.append(" · trump ", suitSpan(rec.trump));
  if (rec.exposed_card !== null) infoNode.append(" · dealer's last card ", cardSpan(rec.exposed_card));
  const grid = el("div", { class: "rp-grid" });
  for (let seat = 0; seat < 4; seat++) {
    const left = sortHand(rec.deal[seat].filter((c) => !gone.has(c)));
    const hand = el("div", { class: "rp-hand", "data-seat": seat, "data-cards": left.join(",") },
      el("div", { class: "who", text: v.players[seat] }));
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
    result.append(`Trick ${k}: ${SEAT_NAMES[w]} ${w === 0 ? "win" : "wins"} · `);
  }
  result.append(`tricks so far: Us ${won[0]} · Them ${won[1]}`);
  if (atEnd) {
    const d = rec.score_delta;
    result.append(el("br"), el("b", { text: rec.thrown_in ? "Thrown in: no score."
      : `Score change: Us ${signed(d[0])} · Them ${signed(d[1])} → Us ${rec.scores[0]} – Them ${rec.scores[1]}` }));
  }
  const auction = rec.auction.some(([, a]) => a < TRUMP_BASE) ? el("div", { class: "rp-auction" }, "Auction: ", auctionLine(rec.auction)) : null;
  return el("div", { class: "viewer" }, el("h3", { text: v.title.title + (v.title.result ? ` · ${v.title.result}` : "") }),
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
    toast(e.message);
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
      const when = d.phase === "play" ? `Trick ${d.trick}` : d.phase === "trump" ? "Trump" : "Bid";
      const same = d.change === null;
      const line = [el("b", { text: `${when}: ` }), "you ", actionNode(d.yours)];
      if (same) line.push(" — the Hint agrees");
      else {
        line.push(" · Hint ", actionNode(d.hint), ` (${d.reason})`);
        line.push(el("span", { class: d.change > 0 ? "bad" : d.change < 0 ? "good" : "",
          text: d.change ? ` · ${signed(d.change)} for us` : " · the same points" }));
      }
      const step = d.phase === "play" ? d.trick - 1 : 0;
      return el("li", { class: same ? "same" : "differs", onclick: () => stepReplay(step) }, ...line);
    });
    $("review").replaceChildren(...items);
    $("review").hidden = $("review-note").hidden = false;
  } catch (e) { toast(e.message); }
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
      else toast(`${bid} is not a bid you can make now`);
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
  config = await api("GET", "/api/config");
  for (const id of ["pick-partner", "pick-opponents"]) {
    $(id).replaceChildren(...config.agents.map((a) => el("option", { value: a, text: a })));
  }
  document.querySelectorAll(".tab").forEach((b) => b.addEventListener("click", () => showView(b.dataset.view)));
  $("new-game").addEventListener("click", () => newGame());
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
    const players = { partner: $("pick-partner").value, opponents: $("pick-opponents").value };
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
  try {
    render((await api("GET", "/api/state")).state);
  } catch (e) {
    if (!gameLost(e)) throw e;
    await replaceLostGame(e);
  }
}

start().catch((e) => toast(`The table could not start: ${e.message}`));
