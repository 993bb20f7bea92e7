#!/usr/bin/env node
// A tarneeb-rl engine in JavaScript that plays uniformly random legal moves: the template for engines in any
// language. It speaks the engine protocol (docs/engine-protocol.md): JSON lines on stdin/stdout, one message a
// line. Seat it with the agent spec  engine:node examples/engines/random_engine.js
//
// What an engine must do:
//   1. write a "hello" line first (protocol version, name, version, the rules presets it plays);
//   2. keep what it wants to know per "deal" id (one seat's view of one deal; several may be open at once);
//   3. answer each "act" with one "action" line naming the deal and one of the legal action ids;
//   4. exit on "quit" or when stdin ends. Logs go to stderr, never stdout.
"use strict";
const readline = require("readline");

// A small seeded generator (mulberry32): the host sends a seed per deal, so a run is reproducible.
function mulberry32(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const deals = new Map(); // deal id -> what this engine keeps about it

function say(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

say({
  type: "hello",
  protocol: 1,
  name: "random-js",
  version: "1.0",
  presets: ["classic", "syrian41", "hearts41", "trump_by_card", "custom"],
});

const input = readline.createInterface({ input: process.stdin, terminal: false });
input.on("line", (line) => {
  if (!line.trim()) return;
  const msg = JSON.parse(line);
  switch (msg.type) {
    case "deal": // rules, seat, dealer, own hand (ids and names), exposed card, scores, seed
      deals.set(msg.deal, {
        seat: msg.seat,
        hand: new Set(msg.hand),
        random: mulberry32(msg.seed === null ? Date.now() : msg.seed),
      });
      break;
    case "play": // a card played, by any seat (the trick's 4th card carries trick_winner)
      if (msg.seat === deals.get(msg.deal).seat) deals.get(msg.deal).hand.delete(msg.card);
      break;
    case "bid":
    case "pass":
    case "trump":
      break; // a smarter engine would read the auction here
    case "act": {
      // legal: action ids (cards 0-51, pass 52, bid n = 52 + n, trump suit u = 66 + u); legal_names: the same
      // actions as text ("QH", "10S", "pass", "bid 8", "trump hearts")
      const state = deals.get(msg.deal);
      const pick = msg.legal[Math.floor(state.random() * msg.legal.length)];
      say({ type: "action", deal: msg.deal, action: pick });
      break;
    }
    case "end": // the deal is over: its public record (or null), then forget it
      deals.delete(msg.deal);
      break;
    case "quit":
      process.exit(0);
  }
});
input.on("close", () => process.exit(0));
