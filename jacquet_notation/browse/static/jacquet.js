// The game page, better with JavaScript: arrow keys step through the game, the board is fetched
// as SVG for each ply and the address keeps ?ply=N so that the link can be shared. Without this
// script, the first/previous/next/last links do the same through plain page loads.
(function () {
  "use strict";
  var section = document.getElementById("board");
  var data = document.getElementById("jacquet-states");
  if (!section || !data) { return; }
  var states = JSON.parse(data.textContent);
  var current = parseInt(section.getAttribute("data-current"), 10) || 0;
  var last = states.length - 1;
  var holder = section.querySelector(".jacquet-board-holder");
  var cache = {};

  // cached by address, not by key: a cube action leaves the men as they were but turns the cube
  function fetchBoard(key, url) {
    if (!cache[url]) {
      cache[url] = fetch(url).then(function (response) {
        if (!response.ok) { throw new Error("board " + response.status); }
        return response.text();
      });
    }
    return cache[url];
  }

  function setLink(selector, index) {
    var link = section.querySelector(selector);
    if (link) { link.setAttribute("href", states[index].url + "#board"); }
  }

  function show(index, push) {
    index = Math.max(0, Math.min(last, index));
    var state = states[index];
    current = index;
    section.setAttribute("data-current", String(index));
    section.querySelector(".jacquet-ply-number").textContent = String(index);
    section.querySelector(".jacquet-dice").textContent = state.dice || "";
    section.querySelector(".jacquet-caption").textContent = state.caption;
    // after an illegal play the board stays put: say so at that ply and every later one
    var stopped = section.querySelector(".jacquet-stopped");
    if (stopped) {
      stopped.textContent = state.stopped || "";
      stopped.hidden = !state.stopped;
    }
    var permalink = section.querySelector(".jacquet-permalink");
    permalink.setAttribute("href", state.url);
    permalink.textContent = state.url;
    var positionLink = section.querySelector(".jacquet-position-link");
    positionLink.setAttribute("href", state.position_url);
    positionLink.querySelector("code").textContent = state.key;
    // the exchange IDs of a match's game (match_ids.py), copied by copy.js from data-copy
    [["gnubg-id", "gnubg", state.gnubg_id], ["xgid", "xgid", state.xgid]].forEach(function (id) {
      var code = section.querySelector("code.jacquet-" + id[0]);
      var button = section.querySelector("button.jacquet-copy-" + id[1]);
      if (code && button) {
        code.textContent = id[2] || "";
        button.setAttribute("data-copy", id[2] || "");
        button.textContent = "Copy";
      }
    });
    setLink("a.first", 0);
    setLink("a.prev", Math.max(0, index - 1));
    setLink("a.next", Math.min(last, index + 1));
    setLink("a.last", last);
    document.querySelectorAll(".jacquet-sheet-ply").forEach(function (link) {
      link.classList.toggle("current", link.getAttribute("data-ply") === String(index));
    });
    followSheet();
    if (push) { history.replaceState({ ply: index }, "", state.url + "#board"); }
    fetchBoard(state.key, state.board).then(function (svg) {
      if (current !== index) { return; }  // a later step won the race
      holder.innerHTML = svg;
      holder.setAttribute("data-key", state.key);
      // the ply the board shows, set once it is drawn (data-current moves before the fetch ends)
      holder.setAttribute("data-ply", String(index));
    }).catch(function () {
      window.location.href = state.url;  // fall back to the plain page
    });
    if (index < last) { fetchBoard(states[index + 1].key, states[index + 1].board); }
  }

  // The score sheet scrolls on its own (a long game is taller than the screen): keep the
  // current play in view, moving the sheet only, never the page.
  function followSheet() {
    var sheet = document.getElementById("sheet");
    var link = sheet && sheet.querySelector(".jacquet-sheet-ply.current");
    if (!link) { return; }
    var box = sheet.getBoundingClientRect();
    var row = link.getBoundingClientRect();
    var header = sheet.querySelector("thead");
    var top = box.top + (header ? header.getBoundingClientRect().height : 0);
    if (row.top < top || row.bottom > box.bottom) {
      sheet.scrollTop += row.top - top - (box.bottom - top - row.height) / 2;
    }
  }

  function step(event, index) {
    event.preventDefault();
    show(index, true);
  }

  section.querySelector("a.first").addEventListener("click", function (e) { step(e, 0); });
  section.querySelector("a.prev").addEventListener("click", function (e) { step(e, current - 1); });
  section.querySelector("a.next").addEventListener("click", function (e) { step(e, current + 1); });
  section.querySelector("a.last").addEventListener("click", function (e) { step(e, last); });
  document.querySelectorAll(".jacquet-sheet-ply").forEach(function (link) {
    link.addEventListener("click", function (e) {
      step(e, parseInt(link.getAttribute("data-ply"), 10));
    });
  });
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey) { return; }
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
      return;
    }
    if (event.key === "ArrowRight") { step(event, current + 1); }
    else if (event.key === "ArrowLeft") { step(event, current - 1); }
    else if (event.key === "Home") { step(event, 0); }
    else if (event.key === "End") { step(event, last); }
  });
  followSheet();
  if (current < last) { fetchBoard(states[current + 1].key, states[current + 1].board); }
})();
