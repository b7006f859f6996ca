/* Diagrams for the course site: every ```mermaid block (rendered by the markdown as
   <pre class="mcp-mermaid">) is drawn with the vendored mermaid at its natural size, never
   shrunk to fit. When that is wider than the column (a phone), it is drawn again, compact:
   narrower participant boxes, smaller margins, text at 12 px wrapped to them, so that it fits
   a 356 px column and needs no sideways scroll (browser_check.py checks it at 390 px); the
   box still scrolls if a diagram cannot fit even so. At either size, a sequence diagram's
   labels are broken into lines here (compactSource), at spaces and after punctuation, never inside
   a word: mermaid's own wrapping cuts a word too long for its box with a hyphen ("mode-l"),
   and a label that already has <br/> in it is one mermaid leaves alone. The source stays on
   the figure (data-source), for the check. A click, or "Open full size", shows the
   full-size drawing in a dialog over the whole window, with zoom. Works from file://. */
(function () {
  "use strict";

  var FONT = 15; // px: every diagram's text at its default size
  var FULL_LINE = 220; // px: a label's longest line at that size (broken here, not by mermaid: see lines())
  var count = 0;

  var COMPACT = 12; // px: the text of a diagram drawn again to fit a narrow column
  var SMALLEST = 11; // px: the last try for one that still does not fit (browser_check's floor)

  // The compact participant width: the column shared by the diagram's participants.
  function actorWidth(text, column) {
    var n = (text.match(/^\s*(participant|actor)\s/gm) || []).length;
    return n ? Math.max(50, Math.min(110, Math.floor((column - 8 - 4 * (n - 1)) / n))) : 56;
  }

  // A label's lines, each at most `px` wide at `font` px: a break only after a space, or
  // inside a word after one of _ / , = : - . ? & or an opening parenthesis that is not its
  // first character, each only where a word goes on after it (so "before_call(" |
  // "call, tool)", "mcp__" | "docs__" | "search", but "..." whole), never inside a run of
  // letters and digits; such a run wider than `px` stays whole.
  var PIECE = /\S+?(?:[_\/,=:.?&\-]+(?=[A-Za-z0-9<\[{'"])|\((?=[A-Za-z0-9<\[{'"])|(?=\s)|$)\s*/g;
  var canvas = null;
  function lines(label, px, font) {
    canvas = canvas || document.createElement("canvas").getContext("2d");
    canvas.font = font + "px " + getComputedStyle(document.body).fontFamily;
    var out = [];
    label.split(/<br\s*\/?>/i).forEach(function (part) {
      var line = "";
      (part.match(PIECE) || []).forEach(function (chunk) {
        if (!chunk) return;
        if (line && canvas.measureText((line + chunk).trimEnd()).width > px) { out.push(line.trimEnd()); line = chunk.trimStart(); }
        else line += chunk;
      });
      if (line.trim()) out.push(line.trimEnd());
    });
    return out;
  }

  // A sequence diagram's source with every label broken into lines of at most `px`.
  var LABELLED = /^(\s*(?:participant|actor)\s+\S+\s+as\s+)(.+)$|^(\s*(?:loop|alt|else|opt|par|and|critical|break)\s+)(.+)$|^(\s*[^:%]+?:)(.+)$/;
  function compactSource(text, px, font) {
    if (!/^\s*sequenceDiagram/.test(text)) return text;
    return text.split("\n").map(function (row) {
      var m = LABELLED.exec(row);
      if (!m) return row;
      var head = m[1] || m[3] || m[5], label = m[2] || m[4] || m[6];
      return head + lines(label.trim(), px, font).join("<br/>");
    }).join("\n");
  }

  function config(compact, width, size) {
    var font = size || (compact ? COMPACT : FONT);
    return {
      startOnLoad: false,
      securityLevel: "strict",
      theme: "default",
      fontFamily: getComputedStyle(document.body).fontFamily,
      fontSize: font,
      sequence: compact
        ? { useMaxWidth: false, actorFontSize: font, messageFontSize: font, noteFontSize: font - 1, wrap: false,
            width: width || 56, actorMargin: 4, boxMargin: 4, diagramMarginX: 2, noteMargin: 4, messageMargin: 24, mirrorActors: false,
            wrapPadding: 2 }
        : { useMaxWidth: false, actorFontSize: font, messageFontSize: font, noteFontSize: font - 1,
            wrap: false, width: 140, actorMargin: 30, mirrorActors: true },
      flowchart: compact ? { useMaxWidth: false, htmlLabels: false, nodeSpacing: 20, rankSpacing: 30, padding: 6 }
                         : { useMaxWidth: false, htmlLabels: false },
      state: { useMaxWidth: false },
      class: { useMaxWidth: false }
    };
  }

  function button(label, onClick) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "mcp-button";
    b.textContent = label;
    b.addEventListener("click", onClick);
    return b;
  }

  function naturalWidth(svg) {
    var box = svg.viewBox && svg.viewBox.baseVal;
    return box && box.width ? box.width : svg.getBoundingClientRect().width;
  }

  function openFull(svg, title) {
    var dialog = document.createElement("dialog");
    dialog.className = "mcp-zoom";
    var bar = document.createElement("div");
    bar.className = "mcp-zoom__bar";
    var name = document.createElement("span");
    name.className = "mcp-zoom__title";
    name.textContent = title;
    var body = document.createElement("div");
    body.className = "mcp-zoom__body";
    var copy = svg.cloneNode(true);
    var width = naturalWidth(svg), scale = 1;
    function zoom(factor) {
      scale = factor === 0 ? Math.min(1, (body.clientWidth - 32) / width) : Math.max(0.25, Math.min(3, scale * factor));
      copy.setAttribute("width", String(Math.round(width * scale)));
      copy.removeAttribute("height");
      copy.style.width = Math.round(width * scale) + "px";
    }
    bar.appendChild(name);
    bar.appendChild(button("−", function () { zoom(1 / 1.25); }));
    bar.appendChild(button("100 %", function () { scale = 1; zoom(1); }));
    bar.appendChild(button("+", function () { zoom(1.25); }));
    bar.appendChild(button("Fit width", function () { zoom(0); }));
    bar.appendChild(button("Close", function () { dialog.close(); }));
    body.appendChild(copy);
    dialog.appendChild(bar);
    dialog.appendChild(body);
    dialog.addEventListener("close", function () { dialog.remove(); });
    document.body.appendChild(dialog);
    dialog.showModal();
    zoom(1);
  }

  function titleFor(pre) {
    var heading = pre.previousElementSibling;
    while (heading && !/^H[1-6]$/.test(heading.tagName)) heading = heading.previousElementSibling;
    return "Diagram" + (heading ? ": " + heading.textContent.replace(/¶$/, "").trim() : "");
  }

  async function draw(pre) {
    var text = pre.textContent;
    var id = "mcp-diagram-" + (++count);
    var figure = document.createElement("figure");
    figure.className = "mcp-diagram";
    figure.setAttribute("data-source", text);
    var scroll = document.createElement("div");
    scroll.className = "mcp-diagram__scroll";
    scroll.tabIndex = 0;
    scroll.setAttribute("role", "img");
    var title = titleFor(pre);
    scroll.setAttribute("aria-label", title + " (scroll sideways to see all of it)");
    var full;
    try {
      await mermaid.parse(text); // throws on a syntax error, before render() draws an error picture
      mermaid.initialize(config(false));
      full = (await mermaid.render(id, compactSource(text, FULL_LINE, FONT))).svg;
      scroll.innerHTML = full;
    } catch (e) {
      var stray = document.getElementById("d" + id); // render's scratch node, left behind on failure
      if (stray) stray.remove();
      pre.classList.add("mcp-mermaid--error");
      pre.setAttribute("data-error", String(e && e.message || e).split("\n")[0]);
      return;
    }
    var svg = scroll.querySelector("svg");
    var width = naturalWidth(svg);
    var holder = document.createElement("div");
    holder.innerHTML = full;
    var fullSvg = holder.querySelector("svg");  // the full-size drawing, for "Open full size"
    svg.setAttribute("width", String(Math.ceil(width)));
    svg.style.maxWidth = "none";
    var caption = document.createElement("figcaption");
    caption.appendChild(button("Open full size", function () { openFull(fullSvg, title); }));
    var hint = document.createElement("span");
    hint.className = "mcp-diagram__hint";
    caption.appendChild(hint);
    scroll.addEventListener("click", function () { openFull(fullSvg, title); });
    figure.appendChild(scroll);
    figure.appendChild(caption);
    pre.replaceWith(figure);
    function hintText() {
      hint.textContent = scroll.scrollWidth > scroll.clientWidth + 1 ? "Wider than the column: scroll it sideways." : "";
    }
    // Too wide for the column it is in now: draw it compact, with narrower participants
    // until it fits (or they are 50 px). Again when the window changes (a phone turned).
    var tries = 0;
    async function fit() {
      var column = scroll.clientWidth;
      var drawn = scroll.querySelector("svg");
      if (column && naturalWidth(drawn) <= column) return hintText();
      var w = actorWidth(text, column);
      for (var i = 0; column && naturalWidth(scroll.querySelector("svg")) > column && i < 4; i++) {
        mermaid.initialize(config(true, w));
        scroll.innerHTML = (await mermaid.render(id + "-compact" + (++tries), compactSource(text, w - 8, COMPACT))).svg;
        scroll.setAttribute("data-compact", String(w));
        var next = scroll.querySelector("svg");
        next.setAttribute("width", String(Math.ceil(naturalWidth(next))));
        next.style.maxWidth = "none";
        if (w <= 50) break;
        w = Math.max(50, Math.floor(w * 0.8));
      }
      if (column && naturalWidth(scroll.querySelector("svg")) > column) {  // still too wide: the smallest text allowed
        w = Math.max(40, w - 8);
        mermaid.initialize(config(true, w, SMALLEST));
        scroll.innerHTML = (await mermaid.render(id + "-compact" + (++tries), compactSource(text, w - 8, SMALLEST))).svg;
        var last = scroll.querySelector("svg");
        last.setAttribute("width", String(Math.ceil(naturalWidth(last))));
        last.style.maxWidth = "none";
      }
      hintText();
    }
    await fit();
    var timer = null;
    window.addEventListener("resize", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { queue = queue.then(fit, fit); }, 200);
    });
  }

  var queue = Promise.resolve(); // one render at a time: mermaid renders in a shared scratch node

  async function drawAll() {
    var blocks = Array.prototype.slice.call(document.querySelectorAll("pre.mcp-mermaid"));
    if (!blocks.length || typeof mermaid === "undefined") {
      document.documentElement.setAttribute("data-diagrams", "done");
      return;
    }
    for (var i = 0; i < blocks.length; i++) await draw(blocks[i]); // one at a time: mermaid renders in a shared scratch node
    document.documentElement.setAttribute("data-diagrams", "done");
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", drawAll);
  else drawAll();
})();
