// The viewer's script, inlined into the page by temporal_tasks/tools/view/page.py (no library, no network).
// It reads the JSON data block, keeps the view state in the URL fragment
// (#task=…&filter=failed,disagree&category=speed&q=…&page=2&group=…) and renders one page of groups at a time,
// so a run of 10,000 questions opens and filters without freezing the browser.
// Every value a test checks is rendered into an element with a stable id or data- attribute (see the README).
// Text from the run is always set with textContent (never parsed as HTML); only our own SVG charts are inserted
// as markup.
(function () {
  "use strict";
  var started = performance.now();
  var DATA = JSON.parse(document.getElementById("view-data").textContent);
  var PAGE = 50;
  var FILTERS = ["failed", "disagree", "unreadable", "cut_off", "repeats_differ"];
  var PAIR = ["flipped", "better", "worse"];
  var two = DATA.runs.length === 2;
  var state = {};

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in (attrs || {})) {
      if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
    }
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function fmt(x, d) { return (x === null || x === undefined) ? "n/a" : Number(x).toFixed(d === undefined ? 1 : d); }
  function pfmt(p) { return (p === null || p === undefined) ? "n/a" : (p >= 0.0001 ? p.toFixed(4) : "<0.0001"); }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }

  function readHash() {
    var s = {task: DATA.tasks[0].task, filter: [], category: "", q: "", page: 1, group: "", label: ""};
    var h = location.hash.replace(/^#/, "");
    h.split("&").forEach(function (part) {
      if (!part) return;
      var i = part.indexOf("=");
      var k = decodeURIComponent(i < 0 ? part : part.slice(0, i));
      var v = i < 0 ? "" : decodeURIComponent(part.slice(i + 1).replace(/\+/g, " "));
      if (k === "filter") s.filter = v.split(",").filter(Boolean);
      else if (k === "page") s.page = Math.max(1, parseInt(v, 10) || 1);
      else if (k in s) s[k] = v;
    });
    if (!taskData(s.task)) s.task = DATA.tasks[0].task;
    return s;
  }
  function writeHash() {
    var parts = ["task=" + encodeURIComponent(state.task)];
    if (state.filter.length) parts.push("filter=" + state.filter.map(encodeURIComponent).join(","));
    if (state.category) parts.push("category=" + encodeURIComponent(state.category));
    if (state.q) parts.push("q=" + encodeURIComponent(state.q));
    if (state.page > 1) parts.push("page=" + state.page);
    if (state.group) parts.push("group=" + encodeURIComponent(state.group));
    if (state.label) parts.push("label=" + encodeURIComponent(state.label));
    var h = "#" + parts.join("&");
    if (location.hash !== h) history.replaceState(null, "", h);
    document.getElementById("permalink").setAttribute("href", h);
  }
  function taskData(name) {
    for (var i = 0; i < DATA.tasks.length; i++) if (DATA.tasks[i].task === name) return DATA.tasks[i];
    return null;
  }

  // ------------------------------------------------------------------ task overview
  function renderRuns() {
    var box = clear(document.getElementById("runs"));
    DATA.runs.forEach(function (r, i) {
      var li = el("li", {"data-run": i}, (two ? (i ? "NEW: " : "BASE: ") : "") + r.label + " (" + r.name + ")");
      if (r.note) li.appendChild(el("div", {"class": "note"}, r.note));
      box.appendChild(li);
    });
    var notes = clear(document.getElementById("notes"));
    DATA.notes.forEach(function (n) { notes.appendChild(el("li", null, n)); });
    var sel = clear(document.getElementById("task-select"));
    DATA.tasks.forEach(function (t) { sel.appendChild(el("option", {value: t.task}, t.task)); });
  }

  function runName(i) { return two ? (i ? "NEW" : "BASE") : "run"; }

  function renderOverview(t) {
    document.getElementById("task").setAttribute("data-task", t.task);
    var diag = clear(document.getElementById("diagnostics"));
    var charts = clear(document.getElementById("charts"));
    var prov = clear(document.getElementById("provenance"));
    var shapes = clear(document.getElementById("shapes"));
    renderHeadline(t);
    t.runs.forEach(function (r, i) {
      if (!r) return;
      r.diagnostics.forEach(function (row) {
        var tr = el("tr", {"data-run": i, "data-metric": row[0], "data-value": fmt(row[2], 2)});
        tr.appendChild(el("td", null, runName(i)));
        tr.appendChild(el("td", null, row[1] + " (" + row[0] + ")"));
        tr.appendChild(el("td", {"class": "num"}, fmt(row[2], 2) + " %"));
        diag.appendChild(tr);
      });
      var c = r.counts;
      var sum = el("p", {"class": "counts", "data-run": i, "data-right": c.right, "data-failed": c.failed,
        "data-unscored": c.unscored, "data-questions": r.questions},
        runName(i) + ": " + r.questions + " questions; groups by " + r.metric_label + " (" + r.reading +
        " reading): " + c.right + " right, " + c.failed + " failed" +
        (c.unscored ? ", " + c.unscored + " not in the metric (incomplete or left out)" : ""));
      shapes.appendChild(sum);
      var ul = el("ul", {"data-run": i});
      Object.keys(r.shapes).forEach(function (s) {
        var li = el("li", {"data-run": i, "data-shape": s, "data-count": r.shapes[s]}, s + ": " + r.shapes[s]);
        ul.appendChild(li);
      });
      shapes.appendChild(ul);
      if (r.charts.length) {
        var box = el("div", {"class": "chartbox", "data-run": i});
        box.appendChild(el("div", {"class": "label"}, runName(i)));
        // our own SVG (escaped server-side), not text from the run
        r.charts.forEach(function (svg) { var d = el("div"); d.innerHTML = svg; box.appendChild(d); });
        charts.appendChild(box);
      }
      var p = el("details", {"data-run": i});
      p.appendChild(el("summary", null, runName(i) + ": " + r.provenance_line));
      p.appendChild(el("pre", null, JSON.stringify(r.provenance, null, 2)));
      prov.appendChild(p);
    });
    renderCompare(t);
    renderFrames(t);
    var cat = clear(document.getElementById("category"));
    cat.appendChild(el("option", {value: ""}, "all categories"));
    t.categories.forEach(function (c) { cat.appendChild(el("option", {value: c}, c)); });
  }

  function ciText(low, high) {
    return low === null || low === undefined ? "" : "[" + fmt(low, 2) + ", " + fmt(high, 2) + "]";
  }
  function signed(x) { return (x !== null && x >= 0 ? "+" : "") + fmt(x, 2); }

  // one run: a row per headline key; two runs: a row per key with BASE, NEW and compare's NEW - BASE side by side
  function renderHeadline(t) {
    var head = clear(document.getElementById("headline-head"));
    var body = clear(document.getElementById("headline"));
    var names = two ? ["metric", "BASE", "NEW", "NEW \u2212 BASE", "95% CI", "p-value", "groups"]
      : ["run", "metric", "value", "95% CI"];
    var hr = el("tr");
    names.forEach(function (n) { hr.appendChild(el("th", null, n)); });
    head.appendChild(hr);
    if (!two) {
      t.runs[0].headline.forEach(function (row) {
        var tr = el("tr", {"data-run": 0, "data-metric": row[0], "data-value": fmt(row[2], 2),
          "data-ci-low": fmt(row[3], 2), "data-ci-high": fmt(row[4], 2)});
        tr.appendChild(el("td", null, runName(0)));
        tr.appendChild(el("td", null, row[1] + " (" + row[0] + ")"));
        tr.appendChild(el("td", {"class": "num"}, fmt(row[2], 2)));
        tr.appendChild(el("td", null, ciText(row[3], row[4])));
        body.appendChild(tr);
      });
      return;
    }
    t.headline_pairs.forEach(function (p) {
      var c = p.compared;
      var tr = el("tr", {"data-metric": p.metric, "data-compared": c ? "true" : "false"});
      tr.appendChild(el("td", null, p.label + " (" + p.metric + ")"));
      p.runs.forEach(function (v, i) {
        var td = v ? el("td", {"class": "num", "data-run": i, "data-value": fmt(v[0], 2),
          "data-ci-low": fmt(v[1], 2), "data-ci-high": fmt(v[2], 2)}, fmt(v[0], 2) + " " + ciText(v[1], v[2]))
          : el("td", {"data-run": i, "class": "empty"}, "n/a");
        tr.appendChild(td);
      });
      if (c) {
        tr.setAttribute("data-diff", fmt(c.diff, 2));
        tr.setAttribute("data-ci-low", fmt(c.ci_low, 2));
        tr.setAttribute("data-ci-high", fmt(c.ci_high, 2));
        tr.setAttribute("data-p", pfmt(c.p_value));
        tr.setAttribute("data-groups", c.groups);
        tr.appendChild(el("td", {"class": "num diff"}, signed(c.diff)));
        tr.appendChild(el("td", {"class": "ci"}, ciText(c.ci_low, c.ci_high)));
        tr.appendChild(el("td", {"class": "num p"}, pfmt(c.p_value)));
        tr.appendChild(el("td", {"class": "num"}, c.groups));
      } else {
        tr.appendChild(el("td", {"class": "reason", "colspan": 4}, "not compared: " + p.reason));
      }
      body.appendChild(tr);
    });
  }

  // the frame-count series of this task (temporal-tasks timeorder's, over every run under the paths viewed)
  function renderFrames(t) {
    var all = (DATA.frame_series || []).filter(function (s) { return s.task === t.task; });
    var box = document.getElementById("frames-box");
    box.hidden = !all.length;
    var list = clear(document.getElementById("frame-series"));
    all.forEach(function (s, k) {
      var part = el("div", {"class": "sweep", "data-series": k, "data-task": s.task, "data-key": s.key,
        "data-model": s.model});
      part.appendChild(el("p", null, s.benchmark + ": " + s.task + " (" + s.model + "), " + s.label + " (" + s.key +
        ")"));
      var chart = el("div", {"class": "chartbox"});
      chart.innerHTML = s.chart;  // our own SVG (escaped server-side), not text from the run
      part.appendChild(chart);
      var table = el("table", {"class": "steps"});
      var hr = el("tr");
      ["step", "score at the first N", "at the next N", "difference", "95% CI", "p-value",
       "groups"].forEach(function (h) { hr.appendChild(el("th", null, h)); });
      table.appendChild(hr);
      s.steps.forEach(function (c) {
        var tr = el("tr", {"data-step": c.step, "data-diff": fmt(c.diff, 2), "data-ci-low": fmt(c.ci_low, 2),
          "data-ci-high": fmt(c.ci_high, 2), "data-p": pfmt(c.p_value), "data-groups": c.groups});
        [c.step, fmt(c.base, 2), fmt(c.new, 2), signed(c.diff), ciText(c.ci_low, c.ci_high), pfmt(c.p_value),
         c.groups].forEach(function (v) { tr.appendChild(el("td", null, v)); });
        table.appendChild(tr);
      });
      part.appendChild(table);
      var notes = el("ul", {"class": "note"});
      s.notes.forEach(function (n) { notes.appendChild(el("li", null, n)); });
      part.appendChild(notes);
      list.appendChild(part);
    });
  }

  function renderCompare(t) {
    var box = document.getElementById("compare-box");
    box.hidden = !two;
    if (!two) return;
    var refused = document.getElementById("refused");
    var table = clear(document.getElementById("compare"));
    var flips = document.getElementById("flips");
    var cmp = t.compare;
    refused.textContent = cmp.refused ? "Not compared: " + cmp.refused : (cmp.note || "");
    refused.setAttribute("data-refused", cmp.refused ? "true" : "false");
    if (cmp.flips) {
      flips.textContent = "Groups that flipped (" + t.runs[0].metric_label + "): " + cmp.flips.better +
        " failed in BASE and right in NEW, " + cmp.flips.worse + " right in BASE and failed in NEW.";
      flips.setAttribute("data-better", cmp.flips.better);
      flips.setAttribute("data-worse", cmp.flips.worse);
    } else { flips.textContent = ""; flips.removeAttribute("data-better"); flips.removeAttribute("data-worse"); }
    cmp.rows.forEach(function (r) {
      var tr = el("tr", {"data-metric": r.metric, "data-base": fmt(r.base, 2), "data-new": fmt(r.new, 2),
        "data-diff": fmt(r.diff, 2), "data-ci-low": fmt(r.ci_low, 2), "data-ci-high": fmt(r.ci_high, 2),
        "data-p": pfmt(r.p_value), "data-groups": r.groups});
      [r.metric, fmt(r.base, 2), fmt(r.new, 2), (r.diff >= 0 ? "+" : "") + fmt(r.diff, 2),
       "[" + fmt(r.ci_low, 2) + ", " + fmt(r.ci_high, 2) + "]", pfmt(r.p_value), r.groups].forEach(function (v) {
        tr.appendChild(el("td", null, v));
      });
      table.appendChild(tr);
    });
  }

  // ------------------------------------------------------------------ groups
  function flagged(g, f) {
    var a = g.r[0], b = g.r[1];
    if (f === "failed") return g.r.some(function (r) { return r && r.o === "failed"; });
    if (f === "better") return !!(a && b && a.o === "failed" && b.o === "right");
    if (f === "worse") return !!(a && b && a.o === "right" && b.o === "failed");
    if (f === "flipped") return flagged(g, "better") || flagged(g, "worse");
    return g.r.some(function (r) { return r && r.f.indexOf(f) >= 0; });
  }
  function haystack(t, g) {
    if (g._hay === undefined) {
      var parts = [g.id];
      g.r.forEach(function (r) {
        if (!r) return;
        parts.push(r.s);
        r.m.forEach(function (m) { parts.push(t.prompts[m.p], m.a, m.g, m.q, m.r); });
      });
      g._hay = parts.join("\n").toLowerCase();
    }
    return g._hay;
  }
  function matching(t) {
    var q = state.q.toLowerCase(), cat = state.category.toLowerCase();
    return t.groups.filter(function (g) {
      for (var i = 0; i < state.filter.length; i++) if (!flagged(g, state.filter[i])) return false;
      if (cat && g.c.indexOf(cat) < 0) return false;
      if (q && haystack(t, g).indexOf(q) < 0) return false;
      return true;
    });
  }

  function answerCell(m) {
    var box = el("div", {"class": "answer"});
    var a = m.a;
    if (m.k > 0) {
      var d = el("details", {"class": "reasoning"});
      d.appendChild(el("summary", null, "reasoning (" + m.k + " characters)" + (m.k >= a.length ? ", cut off" : "")));
      d.appendChild(el("pre", null, a.slice(0, m.k)));
      box.appendChild(d);
    }
    var rest = el("pre", {"class": "final"});
    if (m.h) {
      rest.appendChild(document.createTextNode(a.slice(m.k, m.h[0])));
      rest.appendChild(el("mark", {"title": "the part that was read"}, a.slice(m.h[0], m.h[1])));
      rest.appendChild(document.createTextNode(a.slice(m.h[1])));
    } else {
      rest.textContent = a.slice(m.k);
    }
    if (a.length === 0) rest.appendChild(el("span", {"class": "empty"}, "(empty answer)"));
    box.appendChild(rest);
    return box;
  }

  function runCell(m, i) {
    var td = el("td", {"class": "run " + (m.ok ? "ok" : "bad"), "data-run": i, "data-ok": m.ok ? "true" : "false"});
    td.appendChild(answerCell(m));
    var r = el("div", {"class": "readings"});
    r.appendChild(document.createTextNode("robust: "));
    r.appendChild(el("span", {"class": "robust"}, m.rb === null ? "unreadable" : m.rb));
    r.appendChild(document.createTextNode(" · official: "));
    r.appendChild(el("span", {"class": "official"}, m.of === null ? "unreadable" : m.of));
    if (m.rp) r.appendChild(el("span", {"class": "repeats"}, " · repeats: " + m.rp.map(String).join(", ")));
    td.appendChild(r);
    m.fl.forEach(function (f) { td.appendChild(el("span", {"class": "flag", "data-flag": f}, f.replace("_", " "))); });
    return td;
  }

  function thumbs(t, refs) {
    var box = el("div", {"class": "thumbs"});
    refs.forEach(function (i) {
      var v = t.videos[i];
      var strip = el("div", {"class": "strip", "title": v[0], "data-video": v[0]});
      // data: URIs made by the command (JPEG thumbnails), never a network address
      v[1].forEach(function (uri) { strip.appendChild(el("img", {src: uri, alt: v[0]})); });
      box.appendChild(strip);
    });
    return box;
  }

  function renderGroup(t, g) {
    var outcomes = g.r.map(function (r) { return r ? r.o : "absent"; });
    var box = el("details", {"class": "group", "id": "group-" + g.id, "data-group": g.id,
      "data-outcome": outcomes.join(",")});
    if (state.group === g.id) { box.setAttribute("open", ""); box.classList.add("selected"); }
    var sum = el("summary");
    sum.appendChild(el("span", {"class": "gid"}, g.id));
    g.r.forEach(function (r, i) {
      if (!r) { sum.appendChild(el("span", {"class": "badge absent"}, runName(i) + ": absent")); return; }
      sum.appendChild(el("span", {"class": "badge " + r.o}, (two ? runName(i) + ": " : "") + r.o));
      if (r.s) sum.appendChild(el("span", {"class": "shape", "data-run": i}, r.s));
    });
    if (g.c.length) sum.appendChild(el("span", {"class": "cats"}, g.c.join(", ")));
    box.appendChild(sum);
    box.addEventListener("toggle", function () {
      if (box.open && state.group !== g.id) { state.group = g.id; writeHash(); }
    });
    var table = el("table", {"class": "members"});
    var hr = el("tr");
    ["role", "question", "gold"].forEach(function (h) { hr.appendChild(el("th", null, h)); });
    g.r.forEach(function (r, i) { hr.appendChild(el("th", null, runName(i) + " answer")); });
    table.appendChild(hr);
    var rows = [], index = {};
    g.r.forEach(function (r, i) {
      if (!r) return;
      r.m.forEach(function (m) {
        if (!(m.q in index)) { index[m.q] = rows.length; rows.push({m: m, cells: []}); }
        rows[index[m.q]].cells[i] = m;
      });
    });
    rows.forEach(function (row) {
      var m = row.m;
      var tr = el("tr", {"class": "member", "data-question": m.q, "data-role": m.r});
      tr.appendChild(el("td", {"class": "role"}, m.r));
      var prompt = el("td", {"class": "prompt"}, t.prompts[m.p]);
      if (m.v && t.videos) prompt.appendChild(thumbs(t, m.v));
      tr.appendChild(prompt);
      tr.appendChild(el("td", {"class": "gold"}, m.g));
      g.r.forEach(function (r, i) { tr.appendChild(row.cells[i] ? runCell(row.cells[i], i) : el("td", null, "-")); });
      table.appendChild(tr);
    });
    box.appendChild(table);
    return box;
  }

  function renderGroups() {
    var t = taskData(state.task);
    var list = matching(t);
    var pages = Math.max(1, Math.ceil(list.length / PAGE));
    if (state.group) {
      for (var i = 0; i < list.length; i++) {
        if (list[i].id === state.group) { state.page = Math.floor(i / PAGE) + 1; break; }
      }
    }
    state.page = Math.min(state.page, pages);
    var count = document.getElementById("match-count");
    count.setAttribute("data-count", list.length);
    count.setAttribute("data-total", t.groups.length);
    count.textContent = list.length + " of " + t.groups.length + " groups";
    var box = clear(document.getElementById("groups"));
    var frag = document.createDocumentFragment();
    list.slice((state.page - 1) * PAGE, state.page * PAGE).forEach(function (g) {
      frag.appendChild(renderGroup(t, g));
    });
    box.appendChild(frag);
    var pager = document.getElementById("pager");
    pager.setAttribute("data-page", state.page);
    pager.setAttribute("data-pages", pages);
    document.getElementById("page-label").textContent = "page " + state.page + " of " + pages;
    document.getElementById("prev").disabled = state.page <= 1;
    document.getElementById("next").disabled = state.page >= pages;
    writeHash();
    var sel = state.group && document.getElementById("group-" + state.group);
    if (sel && sel.scrollIntoView) sel.scrollIntoView();
  }

  function syncControls() {
    document.getElementById("task-select").value = state.task;
    document.getElementById("category").value = state.category;
    document.getElementById("search").value = state.q;
    var boxes = document.querySelectorAll("#filters input[data-filter]");
    for (var i = 0; i < boxes.length; i++) {
      boxes[i].checked = state.filter.indexOf(boxes[i].getAttribute("data-filter")) >= 0;
    }
  }

  // ------------------------------------------------------------------ time order (temporal-tasks timeorder)
  var VARIANTS = [["main", "main task"], ["blind", "blind"], ["single_frame", "single frame"],
    ["shuffled", "shuffled"]];
  var groupIndexes = {};
  function timeOrderOf(task) {
    var all = DATA.timeorder || [];
    for (var i = 0; i < all.length; i++) if (all[i].main === task) return all[i];
    return null;
  }
  function groupOf(task, id) {
    if (!(task in groupIndexes)) {
      var index = {}, t = taskData(task);
      (t ? t.groups : []).forEach(function (g) { index[g.id] = g; });
      groupIndexes[task] = index;
    }
    return groupIndexes[task][id] || null;
  }
  function labelGroup(entry, id) {
    var label = entry.labels[id];
    var box = el("details", {"class": "group to-group", "id": "to-group-" + id, "data-group": id, "data-label": label});
    if (state.group === id) { box.setAttribute("open", ""); box.classList.add("selected"); }
    var sum = el("summary");
    sum.appendChild(el("span", {"class": "gid"}, id));
    sum.appendChild(el("span", {"class": "badge label"}, label));
    box.appendChild(sum);
    box.addEventListener("toggle", function () {
      if (box.open && state.group !== id) { state.group = id; writeHash(); }
    });
    var columns = VARIANTS.filter(function (v) { return v[0] in entry.tasks; });
    var table = el("table", {"class": "members"});
    var hr = el("tr");
    ["role", "question", "gold"].forEach(function (h) { hr.appendChild(el("th", null, h)); });
    columns.forEach(function (v) { hr.appendChild(el("th", {"data-task": entry.tasks[v[0]]}, v[1] + " answer")); });
    table.appendChild(hr);
    // one row per question of the main task's group; each control's answer to the same question beside it
    var main = groupOf(entry.main, id), prompts = taskData(entry.main).prompts;
    var byTask = columns.map(function (v) {
      var g = groupOf(entry.tasks[v[0]], id), out = {};
      if (g && g.r[0]) g.r[0].m.forEach(function (m) { out[m.q] = m; });
      return out;
    });
    (main && main.r[0] ? main.r[0].m : []).forEach(function (m) {
      var tr = el("tr", {"class": "member", "data-question": m.q, "data-role": m.r});
      tr.appendChild(el("td", {"class": "role"}, m.r));
      tr.appendChild(el("td", {"class": "prompt"}, prompts[m.p]));
      tr.appendChild(el("td", {"class": "gold"}, m.g));
      columns.forEach(function (v, i) {
        var answer = byTask[i][m.q];
        var td = answer ? runCell(answer, 0) : el("td", null, "-");
        td.setAttribute("data-task", entry.tasks[v[0]]);
        tr.appendChild(td);
      });
      table.appendChild(tr);
    });
    box.appendChild(table);
    return box;
  }
  function renderTimeOrder(t) {
    var entry = timeOrderOf(t.task);
    var box = document.getElementById("timeorder-box");
    box.hidden = !entry;
    if (!entry) return;
    var body = clear(document.getElementById("timeorder"));
    var head = el("tr", {"data-variant": "main"});
    ["video (main task)", entry.main, entry.key, "", fmt(entry.value, 2)].forEach(function (v) {
      head.appendChild(el("td", null, v));
    });
    body.appendChild(head);
    entry.rows.forEach(function (r) {
      var tr = el("tr", {"data-variant": r.variant, "data-task": r.task, "data-diff": fmt(r.diff, 2),
        "data-ci-low": fmt(r.ci_low, 2), "data-ci-high": fmt(r.ci_high, 2), "data-flips": [r.flips.both,
        r.flips.main_only, r.flips.control_only, r.flips.neither].join(",")});
      [r.input, r.task, r.metric, fmt(r.control, 2), fmt(r.main, 2), signed(r.diff),
       "[" + fmt(r.ci_low, 2) + ", " + fmt(r.ci_high, 2) + "]", pfmt(r.p_value), r.groups,
       fmt(r.relative, 2) + " [" + fmt(r.relative_ci_low, 2) + ", " + fmt(r.relative_ci_high, 2) + "]",
       r.flips.both, r.flips.main_only, r.flips.control_only, r.flips.neither].forEach(function (v) {
        tr.appendChild(el("td", null, v));
      });
      body.appendChild(tr);
    });
    var counts = clear(document.getElementById("label-counts"));
    var sel = clear(document.getElementById("label-select"));
    sel.appendChild(el("option", {value: ""}, "every labelled group"));
    entry.order.forEach(function (label) {
      if (!(label in entry.counts)) return;
      counts.appendChild(el("li", {"data-label": label, "data-count": entry.counts[label]},
        label + ": " + entry.counts[label]));
      sel.appendChild(el("option", {value: label}, label + " (" + entry.counts[label] + ")"));
    });
    if (!entry.label_key) counts.appendChild(el("li", null, "no labels: the run lacks one of the three controls"));
    sel.value = state.label;
    var ids = Object.keys(entry.labels).filter(function (id) { return !state.label || entry.labels[id] === state.label; });
    var count = document.getElementById("label-count");
    count.setAttribute("data-count", ids.length);
    count.textContent = ids.length + " groups" + (ids.length > PAGE ? " (the first " + PAGE + " shown)" : "");
    var list = clear(document.getElementById("label-groups"));
    ids.slice(0, PAGE).forEach(function (id) { list.appendChild(labelGroup(entry, id)); });
  }

  function renderAll() {
    renderOverview(taskData(state.task));
    renderTimeOrder(taskData(state.task));
    syncControls();
    renderGroups();
  }

  function buildFilters() {
    var box = document.getElementById("filters");
    FILTERS.concat(two ? PAIR : []).forEach(function (f) {
      var label = el("label");
      var input = el("input", {type: "checkbox", "data-filter": f});
      input.addEventListener("change", function () {
        state.filter = state.filter.filter(function (x) { return x !== f; });
        if (input.checked) state.filter.push(f);
        state.page = 1; state.group = ""; renderGroups();
      });
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + f.replace("_", " ")));
      box.appendChild(label);
    });
  }

  function init() {
    renderRuns();
    buildFilters();
    state = readHash();
    document.getElementById("task-select").addEventListener("change", function (e) {
      state = {task: e.target.value, filter: state.filter, category: "", q: state.q, page: 1, group: "", label: ""};
      renderAll();
    });
    document.getElementById("category").addEventListener("change", function (e) {
      state.category = e.target.value; state.page = 1; state.group = ""; renderGroups();
    });
    var timer = null;
    document.getElementById("search").addEventListener("input", function (e) {
      clearTimeout(timer);
      timer = setTimeout(function () {
        state.q = e.target.value; state.page = 1; state.group = ""; renderGroups();
      }, 150);
    });
    document.getElementById("label-select").addEventListener("change", function (e) {
      state.label = e.target.value; state.group = ""; renderTimeOrder(taskData(state.task)); writeHash();
    });
    function turn(by) { return function () { state.page += by; state.group = ""; renderGroups(); }; }
    document.getElementById("prev").addEventListener("click", turn(-1));
    document.getElementById("next").addEventListener("click", turn(1));
    window.addEventListener("hashchange", function () { state = readHash(); renderAll(); });
    renderAll();
    document.body.setAttribute("data-ready", "true");
    // milliseconds from navigation to the first render, and of those the script's (data parsing and rendering)
    document.body.setAttribute("data-load-ms", Math.round(performance.now()));
    document.body.setAttribute("data-script-ms", Math.round(performance.now() - started));
  }
  init();
})();
