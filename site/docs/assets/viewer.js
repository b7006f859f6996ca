/* The step-through viewer: replays a lesson's pinned run one event at a time.

   Its data is the <script type="application/json" class="mcp-viewer-data"> that
   site/sitegen/viewer.py puts on the page at build time: the pinned files of
   tests/snapshots/sNN/ as they are, nothing hand-made. So it works offline and from
   file://, and always shows what the snapshot tests pin.

   The transcript is parsed here, by the markers harness/transcript.py's render() prints
   (user>, system|, tools (N):, pool:, assistant>, ->, <-, <!, ??, !!, state:, log:, note:,
   warning:, error:); an indented line continues the event above it. The tool pool is
   followed through `tools (N):` and `pool:` lines. Frames (JSON lines) are tied to
   transcript events by what they carry: a call `-> mcp__docs__search` reveals the frames
   up to the answer of the matching `tools/call` of server docs; `connect_mcp {"name": X}`
   and `state: X: ... -> connected` reveal X's handshake and `tools/list`. The frames
   file has no clock, so the wire pane shows every frame up to the last one matched by
   this step or an earlier one; the last step shows them all.

   State for tests: the root element carries data-step, data-steps, data-frames-shown and
   data-pool (the number of tools); buttons carry data-action. */
(function () {
  "use strict";

  var EXPLAIN = {
    user: "user> the user's prompt: the first message of the conversation.",
    system: "system| the system prompt the model gets this turn; printed again only when it changes.",
    tools: "tools (N): the whole tool pool, in the order the model is handed it.",
    pool: "pool: what changed in the pool since the last turn (+ joined, - left). The model sees the new pool from this turn on.",
    assistant: "assistant> what the model says; its tool calls follow.",
    call: "-> a tool call: the model-facing name and the input as JSON.",
    result: "<- the tool's result, as the model reads it.",
    "result-error": "<! an error result: the model reads it like any result and carries on.",
    ask: "?? the harness asked the user before running the call; who answered, and what.",
    allow: "ok the harness allowed the call without asking, and says which rule or claim allowed it.",
    deny: "!! the harness denied the call without asking.",
    state: "state: a server changed state (pending, connected, failed, needs-auth, disabled, blocked, closed).",
    log: "log: a log message a server sent (with its call, or queued for the next turn).",
    note: "note: what the harness did or found, for you; the model never sees it.",
    warning: "warning: something went wrong, and the run goes on.",
    error: "error: the run stopped here.",
    "frame-send": ">> a JSON-RPC frame sent to a server.",
    "frame-recv": "<< a JSON-RPC frame received from a server."
  };

  function classify(line) {
    var prefixes = [["user> ", "user"], ["system|", "system"], ["tools (", "tools"], ["pool: ", "pool"],
      ["assistant> ", "assistant"], ["  -> ", "call"], ["  <- ", "result"], ["  <! ", "result-error"],
      ["  ?? ", "ask"], ["  ok ", "allow"], ["  !! ", "deny"], ["    >> ", "frame-send"], ["    << ", "frame-recv"]];
    for (var i = 0; i < prefixes.length; i++) if (line.indexOf(prefixes[i][0]) === 0) return prefixes[i][1];
    var word = /^([a-z_]+): /.exec(line);
    if (word) return word[1];
    return null; // a continuation line
  }

  function parseTranscript(text) {
    var lines = text.replace(/\n$/, "").split("\n"), events = [];
    lines.forEach(function (line, number) {
      var kind = classify(line), last = events[events.length - 1];
      var continues = kind === null || (line === "user>" && last && last.kind === "user") ||
        (kind === "system" && last && last.kind === "system");
      if (continues && last) { last.text += "\n" + line; last.last = number + 1; return; }
      events.push({ kind: kind || "note", text: line, first: number + 1, last: number + 1 });
    });
    return events;
  }

  function norm(name) { return String(name).replace(/[^A-Za-z0-9_-]/g, "_"); }

  function parseCall(text) {
    var m = /^ {2}-> (\S+) (.*)$/s.exec(text);
    if (!m) return null;
    var input = {};
    try { input = JSON.parse(m[2]); } catch (e) { input = {}; }
    return { name: m[1], input: input };
  }

  /* Which frames each event reveals: an index into frames, never going back. */
  function revealPoints(events, frames) {
    var claimed = {}, points = [], shown = 0;
    function send(pred, from) {
      for (var i = from || 0; i < frames.length; i++) {
        var f = frames[i];
        if (!claimed[i] && f.direction === "send" && pred(f.message || {}, f.server)) return i;
      }
      return -1;
    }
    function answer(i) {
      var f = frames[i], id = f.message && f.message.id;
      if (id === undefined) return i;
      for (var j = i + 1; j < frames.length; j++) {
        var g = frames[j];
        if (g.direction === "recv" && g.server === f.server && g.message && g.message.id === id) return j;
      }
      return i;
    }
    function handshake(server) {
      var i = send(function (m, s) { return s === server && m.method === "initialize"; });
      if (i < 0) return -1;
      claimed[i] = true;
      var list = send(function (m, s) { return s === server && m.method === "tools/list"; }, i);
      if (list < 0) return answer(i);
      claimed[list] = true;
      return answer(list);
    }
    function toolCall(name) {
      var i = send(function (m, s) {
        if (m.method !== "tools/call" || !m.params) return false;
        var full = "mcp__" + norm(s) + "__" + norm(m.params.name);
        return full === name || (full.length > 64 && name.indexOf(full.slice(0, 55)) === 0);
      });
      if (i < 0) return -1;
      claimed[i] = true;
      var end = answer(i), server = frames[i].server, tool = frames[i].message.params.name;
      // a retry of the same call on a new session (s25) belongs to this step too
      var next = send(function (m, s) { return s === server && m.method === "tools/call"; }, end);
      if (next > 0 && frames[next].message.params.name === tool) {
        var reopened = false;
        for (var k = end; k < next; k++) if (frames[k].server === server && frames[k].message.method === "initialize") reopened = true;
        if (reopened) { claimed[next] = true; end = answer(next); }
      }
      return end;
    }
    events.forEach(function (event, index) {
      var end = -1, call, m;
      if (event.kind === "call" && (call = parseCall(event.text))) {
        if (call.name === "connect_mcp") end = handshake(call.input.name);
        else if (call.name === "read_mcp_resource") {
          var r = send(function (msg, s) { return msg.method === "resources/read" && msg.params && msg.params.uri === call.input.uri; });
          if (r >= 0) { claimed[r] = true; end = answer(r); }
        } else if (call.name === "list_mcp_resources") {
          var l = send(function (msg) { return msg.method === "resources/list"; });
          if (l >= 0) { claimed[l] = true; end = answer(l); }
        } else if (call.name.indexOf("mcp__") === 0) end = toolCall(call.name);
      } else if (event.kind === "state" && (m = /^state: (.+?): \S+ -> connected:/.exec(event.text))) {
        end = handshake(m[1]);
      }
      shown = Math.max(shown, end + 1);
      if (index === events.length - 1) shown = frames.length;
      points.push(shown);
    });
    return points;
  }

  function poolStates(events) {
    var tools = [], states = [];
    events.forEach(function (event) {
      var added = [], removed = [], changed = false;
      if (event.kind === "tools") {
        var list = event.text.replace(/^tools \(\d+\): ?/, "");
        added = list ? list.split(", ") : [];
        tools = added.slice();
        changed = true;
      } else if (event.kind === "pool") {
        event.text.replace(/^pool: /, "").split(", ").forEach(function (item) {
          var name = item.slice(1);
          if (item[0] === "+") { added.push(name); if (tools.indexOf(name) < 0) tools.push(name); }
          if (item[0] === "-") { removed.push(name); tools = tools.filter(function (t) { return t !== name; }); }
        });
        changed = true;
      }
      states.push({ tools: tools.slice(), added: added, removed: removed, changed: changed });
    });
    return states;
  }

  function frameSummary(frame) {
    var m = frame.message || {}, arrow = frame.direction === "send" ? ">>" : "<<", what;
    if (m.method) what = m.method + (m.id !== undefined ? " (id " + m.id + ")" : "");
    else if (m.error) what = "error (id " + m.id + "): " + (m.error.message || "");
    else {
      what = "result (id " + m.id + ")";
      var r = m.result || {};
      if (r.tools) what += ": tools " + r.tools.map(function (t) { return t.name; }).join(", ");
      else if (r.content && r.content[0] && r.content[0].text) what += ": " + r.content[0].text.slice(0, 80);
      else if (r.serverInfo) what += ": " + r.serverInfo.name + " " + (r.protocolVersion || "");
    }
    return arrow + " " + frame.server + "  " + what;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function Viewer(root, data) {
    this.root = root;
    this.data = data;
    this.build();
    this.load(0);
  }

  Viewer.prototype.build = function () {
    var self = this, root = this.root;
    root.textContent = "";
    root.tabIndex = 0;
    var bar = el("div", "mcp-viewer__bar");
    if (this.data.cases.length > 1) {
      var select = el("select");
      select.setAttribute("aria-label", "pinned run");
      this.data.cases.forEach(function (c, i) { var o = el("option", null, c.name); o.value = String(i); select.appendChild(o); });
      select.addEventListener("change", function () { self.load(Number(select.value)); });
      var label = el("label", null, "run ");
      label.appendChild(select);
      bar.appendChild(label);
    }
    function add(action, label, title, fn) {
      var b = el("button", "mcp-button", label);
      b.type = "button";
      b.title = title;
      b.setAttribute("data-action", action);
      b.addEventListener("click", fn);
      bar.appendChild(b);
      return b;
    }
    this.buttons = {
      first: add("first", "◀◀", "first event", function () { self.go(0); }),
      back: add("back", "◀ back", "previous event (←)", function () { self.go(self.step - 1); }),
      next: add("next", "next ▶", "next event (→)", function () { self.go(self.step + 1); }),
      last: add("last", "▶▶", "last event", function () { self.go(self.events.length - 1); }),
      poolBack: add("pool-back", "◀ pool change", "previous change of the tool pool", function () { self.jumpPool(-1); }),
      poolNext: add("pool-next", "pool change ▶", "next change of the tool pool", function () { self.jumpPool(1); })
    };
    this.pos = el("span", "mcp-viewer__pos");
    this.pos.setAttribute("aria-live", "polite");
    bar.appendChild(this.pos);
    root.appendChild(bar);

    var grid = el("div", "mcp-viewer__grid");
    var left = el("div", "mcp-viewer__pane");
    this.transcriptTitle = el("h4");
    left.appendChild(this.transcriptTitle);
    this.eventsBox = el("div", "mcp-viewer__events");
    left.appendChild(this.eventsBox);
    var right = el("div", "mcp-viewer__side");
    var poolPane = el("div", "mcp-viewer__pane");
    this.poolTitle = el("h4");
    poolPane.appendChild(this.poolTitle);
    this.poolBox = el("div", "mcp-viewer__pool");
    poolPane.appendChild(this.poolBox);
    right.appendChild(poolPane);
    this.framesPane = el("div", "mcp-viewer__pane");
    this.framesPane.style.marginTop = "0.6em";
    this.framesTitle = el("h4");
    this.framesPane.appendChild(this.framesTitle);
    this.framesBox = el("div", "mcp-viewer__frames");
    this.framesPane.appendChild(this.framesBox);
    right.appendChild(this.framesPane);
    grid.appendChild(left);
    grid.appendChild(right);
    root.appendChild(grid);
    this.explain = el("p", "mcp-viewer__explain");
    root.appendChild(this.explain);
    root.addEventListener("keydown", function (e) {
      if (e.target.tagName === "SELECT") return;
      if (e.key === "ArrowRight") { self.go(self.step + 1); e.preventDefault(); }
      if (e.key === "ArrowLeft") { self.go(self.step - 1); e.preventDefault(); }
    });
  };

  Viewer.prototype.load = function (index) {
    var c = this.data.cases[index], self = this;
    this.events = parseTranscript(c.transcript);
    this.frames = c.frames ? c.frames.replace(/\n$/, "").split("\n").filter(Boolean).map(function (l) { return JSON.parse(l); }) : [];
    this.pools = poolStates(this.events);
    this.reveal = revealPoints(this.events, this.frames);
    var source = this.data.source + c.name;
    this.transcriptTitle.textContent = "Transcript: " + source + ".transcript";
    this.framesTitle.textContent = "Frames: " + source + ".frames";
    this.framesPane.hidden = !this.frames.length;
    this.eventsBox.textContent = "";
    this.eventNodes = this.events.map(function (event) {
      var node = el("div", "mcp-viewer__event", event.text);
      node.setAttribute("data-kind", event.kind);
      self.eventsBox.appendChild(node);
      return node;
    });
    this.framesBox.textContent = "";
    this.frameNodes = this.frames.map(function (frame) {
      var node = el("details", "mcp-viewer__frame");
      node.appendChild(el("summary", null, frameSummary(frame)));
      node.appendChild(el("pre", null, JSON.stringify(frame.message, null, 2)));
      self.framesBox.appendChild(node);
      return node;
    });
    this.step = -1;
    this.go(0);
  };

  Viewer.prototype.jumpPool = function (direction) {
    for (var i = this.step + direction; i >= 0 && i < this.events.length; i += direction) {
      if (this.pools[i].changed) { this.go(i); return; }
    }
  };

  Viewer.prototype.hasPoolChange = function (direction) {
    for (var i = this.step + direction; i >= 0 && i < this.events.length; i += direction) if (this.pools[i].changed) return true;
    return false;
  };

  Viewer.prototype.go = function (step) {
    if (!this.events.length) return;
    step = Math.max(0, Math.min(this.events.length - 1, step));
    var previous = this.step;
    this.step = step;
    this.eventNodes.forEach(function (node, i) {
      node.classList.toggle("is-future", i > step);
      node.classList.toggle("is-current", i === step);
      node.classList.toggle("is-past", i < step);
    });
    var shown = this.reveal[step], before = step > 0 ? this.reveal[step - 1] : 0;
    this.frameNodes.forEach(function (node, i) {
      node.classList.toggle("is-future", i >= shown);
      node.classList.toggle("is-new", i >= before && i < shown);
      node.classList.toggle("is-old", i < before);
    });
    var pool = this.pools[step], box = this.poolBox;
    box.textContent = "";
    pool.tools.forEach(function (name) {
      var chip = el("span", "mcp-viewer__tool" + (pool.added.indexOf(name) >= 0 && pool.changed ? " is-added" : ""), name);
      box.appendChild(chip);
    });
    pool.removed.forEach(function (name) { box.appendChild(el("span", "mcp-viewer__tool is-removed", name)); });
    if (!pool.tools.length && !pool.removed.length) box.appendChild(el("span", "mcp-viewer__empty", "not handed to the model yet"));
    this.poolTitle.textContent = "Tool pool at this step (" + pool.tools.length + ")" + (pool.changed ? ": changed here" : "");
    var event = this.events[step];
    this.explain.textContent = (EXPLAIN[event.kind] || event.kind + ": an event of this lesson.") +
      "  Line " + event.first + (event.last > event.first ? "-" + event.last : "") + " of the pinned transcript.";
    this.pos.textContent = "event " + (step + 1) + " of " + this.events.length;
    this.framesTitle.textContent = this.framesTitle.textContent.replace(/ \(\d+ of \d+\)$/, "") +
      " (" + shown + " of " + this.frames.length + ")";
    this.buttons.first.disabled = this.buttons.back.disabled = step === 0;
    this.buttons.next.disabled = this.buttons.last.disabled = step === this.events.length - 1;
    this.buttons.poolBack.disabled = !this.hasPoolChange(-1);
    this.buttons.poolNext.disabled = !this.hasPoolChange(1);
    this.root.setAttribute("data-step", String(step));
    this.root.setAttribute("data-steps", String(this.events.length));
    this.root.setAttribute("data-frames-shown", String(shown));
    this.root.setAttribute("data-pool", String(pool.tools.length));
    // keep the current event and the newest frame in view, scrolling the panes, never the page
    keepInView(this.eventsBox, this.eventNodes[step]);
    var newest = this.frameNodes[shown - 1];
    if (newest && previous !== step) keepInView(this.framesBox, newest);
  };

  function keepInView(box, node) {
    if (!node) return;
    var top = node.offsetTop - box.offsetTop, bottom = top + node.offsetHeight;
    if (top < box.scrollTop) box.scrollTop = top;
    else if (bottom > box.scrollTop + box.clientHeight) box.scrollTop = bottom - box.clientHeight;
  }

  function start() {
    var roots = document.querySelectorAll(".mcp-viewer");
    var blobs = document.querySelectorAll("script.mcp-viewer-data");
    for (var i = 0; i < roots.length && i < blobs.length; i++) {
      try { new Viewer(roots[i], JSON.parse(blobs[i].textContent)); }
      catch (e) { roots[i].setAttribute("data-error", String(e && e.message || e)); }
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
