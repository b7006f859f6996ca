/* Diagrams for the course site: every ```mermaid block (rendered by the markdown as
   <pre class="mcp-mermaid">) is drawn with the vendored mermaid at its natural size, in a
   box that scrolls sideways when the column is narrower, never shrunk to fit: a sequence
   diagram with six participants stays readable on a phone. A click, or "Open full size",
   shows it in a dialog over the whole window, with zoom. Works from file:// (no fetches). */
(function () {
  "use strict";

  var FONT = 15; // px: every diagram's text at its default size
  var count = 0;

  function config() {
    return {
      startOnLoad: false,
      securityLevel: "strict",
      theme: "default",
      fontFamily: getComputedStyle(document.body).fontFamily,
      fontSize: FONT,
      sequence: { useMaxWidth: false, actorFontSize: FONT, messageFontSize: FONT, noteFontSize: FONT - 1,
                  wrap: true, width: 140, actorMargin: 30, mirrorActors: true },
      flowchart: { useMaxWidth: false, htmlLabels: false },
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
    var scroll = document.createElement("div");
    scroll.className = "mcp-diagram__scroll";
    scroll.tabIndex = 0;
    scroll.setAttribute("role", "img");
    var title = titleFor(pre);
    scroll.setAttribute("aria-label", title + " (scroll sideways to see all of it)");
    try {
      await mermaid.parse(text); // throws on a syntax error, before render() draws an error picture
      var out = await mermaid.render(id, text);
      scroll.innerHTML = out.svg;
    } catch (e) {
      var stray = document.getElementById("d" + id); // render's scratch node, left behind on failure
      if (stray) stray.remove();
      pre.classList.add("mcp-mermaid--error");
      pre.setAttribute("data-error", String(e && e.message || e).split("\n")[0]);
      return;
    }
    var svg = scroll.querySelector("svg");
    var width = naturalWidth(svg);
    svg.setAttribute("width", String(Math.ceil(width)));
    svg.style.maxWidth = "none";
    var caption = document.createElement("figcaption");
    caption.appendChild(button("Open full size", function () { openFull(svg, title); }));
    var hint = document.createElement("span");
    hint.className = "mcp-diagram__hint";
    caption.appendChild(hint);
    scroll.addEventListener("click", function () { openFull(svg, title); });
    figure.appendChild(scroll);
    figure.appendChild(caption);
    pre.replaceWith(figure);
    function hintText() {
      hint.textContent = scroll.scrollWidth > scroll.clientWidth + 1 ? "Wider than the column: scroll it sideways." : "";
    }
    hintText();
    window.addEventListener("resize", hintText);
  }

  async function drawAll() {
    var blocks = Array.prototype.slice.call(document.querySelectorAll("pre.mcp-mermaid"));
    if (!blocks.length || typeof mermaid === "undefined") {
      document.documentElement.setAttribute("data-diagrams", "done");
      return;
    }
    mermaid.initialize(config());
    for (var i = 0; i < blocks.length; i++) await draw(blocks[i]); // one at a time: mermaid renders in a shared scratch node
    document.documentElement.setAttribute("data-diagrams", "done");
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", drawAll);
  else drawAll();
})();
