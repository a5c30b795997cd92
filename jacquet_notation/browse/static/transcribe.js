// The transcriber's desk (/-/transcribe): the record is posted to the plugin's check endpoint as
// it is typed (debounced), its errors are shown beside their lines, the board follows the play at
// the cursor and the legal plays of its roll can be clicked in. A set position is made by clicking
// men onto a board and written as a [Position "KEY"] tag. The server keeps nothing.
(function () {
  "use strict";
  var desk = document.getElementById("jacquet-desk");
  if (!desk) { return; }
  // every element of the desk by its id's last words: "text" is #jacquet-desk-text
  function byId(name) { return document.getElementById("jacquet-desk-" + name); }
  var DEBOUNCE_MS = 250;
  var checkUrl = desk.getAttribute("data-check-url");
  var boardPrefix = desk.getAttribute("data-board-prefix");
  var tokenTag = document.querySelector('meta[name="jacquet-csrftoken"]');
  var token = tokenTag ? tokenTag.getAttribute("content") : "";
  var text = byId("text");
  var notes = byId("notes");
  var status = byId("status");
  var consistent = byId("consistent");
  var errorList = byId("errors");
  var board = byId("board");
  var caption = byId("caption");
  var legalList = byId("legal");
  var legalNote = byId("legal-note");
  var roll = byId("roll");
  var timer = null;
  var sent = 0;
  var boards = {};
  var lastText = null;
  var lastCursor = null;

  function post(body) {
    return fetch(checkUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrftoken": token },
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().then(function (answer) {
        if (!response.ok) { throw new Error(answer.error || ("the server answered " + response.status)); }
        return answer;
      });
    });
  }

  function drawBoard(holder, url) {
    if (!boards[url]) {
      boards[url] = fetch(url).then(function (response) {
        if (!response.ok) { throw new Error("board " + response.status); }
        return response.text();
      });
    }
    return boards[url].then(function (svg) { holder.innerHTML = svg; });
  }

  // -- the record, checked as it is typed ----------------------------------------------------

  function cursor() {
    var before = text.value.slice(0, text.selectionStart);
    var lines = before.split("\n");
    return { line: lines.length, column: lines[lines.length - 1].length + 1 };
  }

  function schedule() {
    if (timer) { clearTimeout(timer); }
    timer = setTimeout(check, DEBOUNCE_MS);
  }

  function check() {
    timer = null;
    var where = cursor();
    var key = where.line + ":" + where.column;
    if (text.value === lastText && key === lastCursor) { return; }
    lastText = text.value;
    lastCursor = key;
    var number = ++sent;
    post({ text: text.value, line: where.line, column: where.column }).then(function (answer) {
      if (number === sent) { show(answer); }
    }, function (error) {
      if (number === sent) {
        status.textContent = error.message;
        status.className = "jacquet-desk-status failed";
      }
    });
  }

  function show(answer) {
    var byLine = {};
    answer.errors.forEach(function (error) {
      var line = error.line || 1;
      (byLine[line] = byLine[line] || []).push(error);
    });
    var count = text.value.split("\n").length;
    notes.textContent = "";
    for (var line = 1; line <= count; line++) {
      var item = document.createElement("li");
      item.setAttribute("data-line", String(line));
      if (byLine[line]) {
        var words = byLine[line].map(function (e) { return e.message; }).join("; ");
        item.className = "error";
        item.textContent = "◀ " + words;
        item.title = words;
      } else {
        item.textContent = " ";
      }
      notes.appendChild(item);
    }
    notes.scrollTop = text.scrollTop;
    errorList.textContent = "";
    answer.errors.forEach(function (error) {
      var item = document.createElement("li");
      item.textContent = "line " + (error.line || "?") + ", column " + (error.column || "?") +
        ": " + error.message + (error.suggestions && error.suggestions.length ?
          " (legal here: " + error.suggestions.join(", ") + ")" : "") + " [" + error.kind + "]";
      item.setAttribute("data-line", String(error.line || ""));
      errorList.appendChild(item);
    });
    status.className = "jacquet-desk-status " + (answer.errors.length ? "invalid" : "valid");
    status.textContent = answer.errors.length ?
      answer.errors.length + (answer.errors.length === 1 ? " error" : " errors") :
      "No errors in " + answer.plies.length + (answer.plies.length === 1 ? " ply." : " plies.");
    // which named rulesets the game at the cursor fits so far (jacquet infer), in one line
    consistent.textContent = answer.rules ? answer.rules.sentence : "";
    var at = answer.cursor.ply;
    var ply = null;
    answer.plies.forEach(function (each) { if (each.index === at) { ply = each; } });
    if (ply) {
      drawBoard(board, ply.board);
      // the side capitalised as the project names it (board_terms.side_name: White, Black)
      var side = ply.side.charAt(0).toUpperCase() + ply.side.slice(1);
      caption.textContent = "Turn " + ply.turn + ", " + side + " " + ply.text +
        (ply.played ? "" : " — not played: " + (ply.error || "an earlier play could not be made"));
      board.setAttribute("data-key", ply.key);
    } else {
      drawBoard(board, answer.start_board);
      caption.textContent = "The position before the first play.";
      board.setAttribute("data-key", answer.start);
    }
    showLegal(answer.cursor);
  }

  function showLegal(at) {
    legalList.textContent = "";
    roll.textContent = at.dice ? "of " + at.dice : "";
    if (at.stopped) {
      legalNote.textContent = "An earlier play could not be made: correct it first.";
    } else if (!at.dice) {
      legalNote.textContent = "Type a roll (6-5: ) to see its legal plays; click one to insert it at the cursor.";
    } else {
      legalNote.textContent = at.legal_count > at.legal.length ?
        "The first " + at.legal.length + " of " + at.legal_count + ":" : "Click one to insert it at the cursor:";
    }
    at.legal.forEach(function (play) {
      var item = document.createElement("li");
      var button = document.createElement("button");
      button.type = "button";
      button.className = "jacquet-desk-play";
      button.textContent = play;
      button.addEventListener("click", function () { insert(play === "pass" ? "pass" : play); });
      item.appendChild(button);
      legalList.appendChild(item);
    });
  }

  function insert(words) {
    var start = text.selectionStart, end = text.selectionEnd;
    var before = text.value.slice(0, start);
    var gap = before && !/\s$/.test(before) ? " " : "";
    text.setRangeText(gap + words, start, end, "end");
    text.focus();
    check();
  }

  text.addEventListener("input", schedule);
  text.addEventListener("keyup", schedule);
  text.addEventListener("click", schedule);
  text.addEventListener("scroll", function () { notes.scrollTop = text.scrollTop; });

  function download() {
    var blob = new Blob([text.value.replace(/\s*$/, "\n")], { type: "text/plain;charset=utf-8" });
    var link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = "record.jqt";
    document.body.appendChild(link);
    link.click();
    setTimeout(function () { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
  }

  function copy() {
    var said = byId("copied");
    function done() { said.textContent = "Copied."; }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text.value).then(done, fallback);
    } else {
      fallback();
    }
    function fallback() {
      text.select();
      said.textContent = document.execCommand("copy") ? "Copied." : "Select the text and copy it.";
    }
  }

  byId("download").addEventListener("click", download);
  byId("copy").addEventListener("click", copy);

  // -- a set position, clicked onto a board ----------------------------------------------------

  var setupBoard = byId("setup-board");
  var setupStatus = byId("setup-status");
  var setupTag = byId("setup-tag");
  var writeButton = byId("write");
  var turnSelect = byId("turn");
  var rulesSelect = byId("rules");
  var whiteBar = byId("white-bar");
  var blackBar = byId("black-bar");
  var men = { white: {}, black: {} };
  var answered = null;

  function setup(extra) {
    var body = {
      rules: rulesSelect.value, turn: turnSelect.value, white: men.white, black: men.black,
      white_bar: parseInt(whiteBar.value, 10) || 0, black_bar: parseInt(blackBar.value, 10) || 0
    };
    Object.keys(extra || {}).forEach(function (name) { body[name] = extra[name]; });
    return post({ setup: body });
  }

  function accept(answer) {
    if (answer.error) {
      setupFailed(answer.error);
      return false;
    }
    answered = answer;
    men = { white: answer.white, black: answer.black };
    turnSelect.value = answer.turn;  // a pasted ID says who is on roll
    whiteBar.value = answer.white_bar;
    blackBar.value = answer.black_bar;
    setupBoard.setAttribute("data-key", answer.key);
    drawBoard(setupBoard, boardPrefix + answer.key + ".svg");
    setupTag.textContent = answer.tag;
    writeButton.disabled = !!answer.problem;
    setupStatus.className = answer.problem ? "problem" : "";
    setupStatus.textContent = answer.problem ?
      "Not yet a position of these rules: " + answer.problem :
      "White " + answer.white_off + " off, Black " + answer.black_off + " off; " + answer.turn + " to move.";
    return true;
  }

  function setupFailed(message) {
    setupStatus.textContent = message;
    setupStatus.className = "failed";
  }

  function refresh(extra) {
    return setup(extra).then(accept, function (error) { setupFailed(error.message); });
  }

  function pointAt(event) {
    var svg = setupBoard.querySelector("svg");
    if (!svg) { return null; }
    var spot = svg.createSVGPoint();
    spot.x = event.clientX;
    spot.y = event.clientY;
    var p = spot.matrixTransform(svg.getScreenCTM().inverse());
    var height = svg.viewBox.baseVal.height;
    var far = p.y < height / 2;
    // the point labels: numbers drawn outside the playing area, above (13-24) or below (1-12)
    var best = null, distance = Infinity;
    Array.prototype.forEach.call(svg.children, function (label) {
      if (label.tagName.toLowerCase() !== "text") { return; }
      var number = parseInt(label.textContent, 10);
      var y = parseFloat(label.getAttribute("y"));
      if (!(number >= 1 && number <= 24) || String(number) !== label.textContent) { return; }
      if (y > height * 0.06 && y < height * 0.94) { return; }
      if (far !== (y < height / 2)) { return; }
      var d = Math.abs(parseFloat(label.getAttribute("x")) - p.x);
      if (d < distance) { best = number; distance = d; }
    });
    return distance <= 16 ? best : null;
  }

  setupBoard.addEventListener("click", function (event) {
    var point = pointAt(event);
    if (point === null) { return; }
    var chosen = document.querySelector('input[name="jacquet-desk-men"]:checked').value;
    var was = { white: Object.assign({}, men.white), black: Object.assign({}, men.black) };
    var key = String(point);
    if (chosen === "remove") {
      ["white", "black"].forEach(function (side) {
        if (men[side][key]) { men[side][key] -= 1; if (!men[side][key]) { delete men[side][key]; } }
      });
    } else {
      men[chosen][key] = (men[chosen][key] || 0) + 1;
    }
    setup().then(function (answer) {
      if (!accept(answer)) { men = was; }
    }, function (error) {
      men = was;
      setupStatus.textContent = error.message;
    });
  });

  [turnSelect, rulesSelect, whiteBar, blackBar].forEach(function (control) {
    control.addEventListener("change", function () { refresh(); });
  });
  byId("clear").addEventListener("click", function () {
    men = { white: {}, black: {} };
    whiteBar.value = "0";
    blackBar.value = "0";
    refresh();
  });
  byId("start").addEventListener("click", function () {
    refresh({ start: true });
  });
  // a pasted key, gnubg Position ID or XGID, read on the server by the one reader of them
  byId("spec-set").addEventListener("click", function () {
    refresh({ spec: byId("spec").value });
  });

  function setTag(name, value) {
    var line = "[" + name + " \"" + value + "\"]";
    var pattern = new RegExp("^\\[" + name + " \"[^\"\\n]*\"\\]$", "m");
    if (pattern.test(text.value)) {
      text.value = text.value.replace(pattern, line);
      return;
    }
    // after the last tag of the first game's tag section, or first of all
    var lines = text.value.split("\n");
    var last = -1;
    for (var i = 0; i < lines.length; i++) {
      if (/^\s*\[/.test(lines[i])) { last = i; } else if (lines[i].trim() && last >= 0) { break; }
      else if (lines[i].trim() && last < 0) { break; }
    }
    lines.splice(last + 1, 0, line);
    text.value = lines.join("\n");
  }

  writeButton.addEventListener("click", function () {
    if (!answered || answered.problem) { return; }
    if (answered.rules !== "jacquet" || /^\[Rules "/m.test(text.value)) { setTag("Rules", answered.rules); }
    setTag("Position", answered.key);
    lastText = null;
    check();
  });

  byId("setup").addEventListener("toggle", function () {
    if (!answered) { refresh({ start: true }); }
  });

  check();
})();
