// report.js — hatrace report's views, drawn from the figures hatrace computed
// (the JSON in #hatrace-data): summary, memory over time (uPlot), allocation
// sites (a sortable, searchable table), flame graph (d3-flame-graph), and the
// size, thread and heap tables. Every figure is shown as computed; elements
// that show one carry it in data-value (the browser test reads them back).
'use strict';
(function () {
  const D = JSON.parse(document.getElementById('hatrace-data').textContent);
  const S = D.stats;
  const $ = (id) => document.getElementById(id);
  const fmt = (n) => Number(n).toLocaleString('en-US');
  function bytes(n) {
    const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = Number(n), i = 0;
    while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
    return i ? `${fmt(n)} B (${v.toFixed(1)} ${u[i]})` : `${fmt(n)} B`;
  }
  function duration(ns) {
    if (ns >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
    if (ns >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
    if (ns >= 1e3) return (ns / 1e3).toFixed(1) + ' µs';
    return ns + ' ns';
  }
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // a table row: cells as [text, value (data-value), class]
  function row(cells) {
    const tr = el('tr');
    for (const c of cells) {
      const td = el('td', c[2] ? { class: c[2] } : {}, c[0]);
      if (c[1] !== undefined) td.dataset.value = c[1];
      tr.appendChild(td);
    }
    return tr;
  }
  const num = (n) => [fmt(n), n];

  // ---- summary and the banner ----
  const C = S.container;
  const tl = D.timeline;
  const byTime = tl.unit === 'ns';
  const at = (x) => (byTime ? duration(x) : `record ${fmt(x)}`);
  $('title-file').textContent = S.file;
  $('about-version').textContent = D.hatrace;
  const problems = [];
  if (C && !C.complete) problems.push('the trace is not complete (cut, or the program did not close it)');
  if (C && C.damage.length) C.damage.forEach((d) => problems.push('damage: ' + d));
  if (C && C.dropped) problems.push(`${fmt(C.dropped)} events were dropped by the recorder`);
  if (S.unknown_frees) problems.push(`${fmt(S.unknown_frees)} frees or reallocs of addresses not live (hatrace validate says which)`);
  if (D.partial) problems.unshift('this report covers only what could be read of the trace');
  if (problems.length) {
    const b = $('banner');
    b.hidden = false;
    b.dataset.problems = problems.length;
    b.appendChild(el('div', {}, 'The trace is incomplete or damaged:'));
    const ul = el('ul');
    problems.forEach((p) => ul.appendChild(el('li', {}, p)));
    b.appendChild(ul);
  }
  const siteBytes = D.flame.totals[D.flame.figures.indexOf('bytes')];
  const facts = [
    ['file', 'file', S.file + ` (${S.format})`],
    ['program', 'cmdline', C ? C.cmdline || '(not recorded)' : '(the format has no header)'],
    ['pid', 'pid', C ? C.pid : '-', C ? C.pid : undefined],
    ['threads', 'threads', fmt(S.threads.length), S.threads.length],
    ['duration', 'duration', duration(S.duration_ns), S.duration_ns],
    ['records', 'records', fmt(S.records), S.records],
    ['allocations', 'allocs', fmt(S.allocs), S.allocs],
    ['frees', 'frees', fmt(S.frees), S.frees],
    ['reallocs', 'reallocs', fmt(S.reallocs), S.reallocs],
    // one definition on the whole page, the sites' and the flame graph's: allocs and reallocs
    ['bytes allocated', 'bytes', `${bytes(siteBytes)}: what allocations and reallocs asked for (a realloc its new size),` +
      ' as the sites table and the flame graph count it', siteBytes],
    ['of it by allocations', 'total_bytes', `${bytes(S.total_bytes)} (stats' total_bytes; the threads and heaps tables count these)`,
      S.total_bytes],
    ['peak live bytes', 'max_live_bytes', `${bytes(S.max_live_bytes)} at ${at(tl.peak_at)}`, S.max_live_bytes],
    ['peak live objects', 'max_live_objects', fmt(S.max_live_objects), S.max_live_objects],
    // a process that died of a signal did not exit: what was live then is no leak
    S.died ? ['live when it died', 'live_bytes_at_end', `${bytes(S.live_bytes_at_end)} in ${fmt(S.live_objects_at_end)} objects (not leaks)`, S.live_bytes_at_end]
           : ['leaked at the end', 'live_bytes_at_end', `${bytes(S.live_bytes_at_end)} in ${fmt(S.live_objects_at_end)} objects`, S.live_bytes_at_end],
    ['temporary allocations', 'temporary', `${fmt(D.sites.stack.temporary)}: objects freed before their thread made any` +
      ' other allocation (heaptrack counts by another rule: docs/tools.md, "stats")', D.sites.stack.temporary],
    ['complete', 'complete', C ? (C.complete && !C.damage.length && !C.dropped ? 'yes' : 'NO') : 'unknown (no container)'],
  ];
  if (C) facts.push(['dropped events', 'dropped', fmt(C.dropped), C.dropped]);
  if (S.died) {
    const d = S.died;
    const where = d.code > 0 ? `at address 0x${d.addr.toString(16)}` : `sent by process ${d.pid}`;
    facts.push(['died of', 'died', `signal ${d.signal} (${d.name}, code ${d.code}) on thread ${d.thread} ${where}`, d.signal]);
  }
  if (S.signals_handled) facts.push(['signals handled', 'signals_handled', fmt(S.signals_handled), S.signals_handled]);
  // leaks taken out of the sites' leaked figures by suppressions (--suppress, the built-in list): each with what it hid
  for (const x of D.sites.stack.suppressed || [])
    facts.push(['suppressed leaks', 'suppressed-' + x.origin, `${bytes(x.bytes)} in ${fmt(x.objects)} objects: ${x.suppression} (${x.origin})`, x.bytes]);
  const dl = $('summary-list');
  for (const [label, key, text, value] of facts) {
    dl.appendChild(el('dt', {}, label));
    const dd = el('dd', { id: 'sum-' + key }, text);
    if (value !== undefined) dd.dataset.value = value;
    if ((key === 'complete' && text !== 'yes') || key === 'died') dd.className = 'bad';
    dl.appendChild(dd);
  }
  const ftb = $('functions-table').tBodies[0];
  for (const [f, n] of Object.entries(S.functions)) {
    const r = row([[f, undefined, 'text'], num(n)]);
    r.dataset.function = f;
    ftb.appendChild(r);
  }
  $('functions-table').rows[0].cells[0].className = 'text';

  // ---- memory over time ----
  const iv = tl.intervals;
  const unitDiv = byTime ? 1e6 : 1;  // ms, or records
  $('overtime-note').textContent =
    `${iv.length} intervals of ${byTime ? duration(tl.interval) : fmt(tl.interval) + ' records'}` +
    ` (at most ${fmt(D.limits.points)}; each point the live bytes at the end of an interval, the upper line the most in it).` +
    ` Peak: ${bytes(tl.max_live_bytes)} at ${at(tl.peak_at)}.`;
  $('overtime').dataset.peak = tl.max_live_bytes;
  $('overtime').dataset.intervals = iv.length;
  const xs = [0].concat(iv.map((v) => v.end / unitDiv));
  const first = iv.length ? iv[0] : null;
  const live = [0].concat(iv.map((v) => v.live_bytes));
  const most = [first ? first.max_live_bytes : 0].concat(iv.map((v) => v.max_live_bytes));
  const peakX = tl.peak_at / unitDiv;
  const peakMark = {
    hooks: {
      draw: [(u) => {
        const ctx = u.ctx, x = u.valToPos(peakX, 'x', true), y = u.valToPos(tl.max_live_bytes, 'y', true);
        if (x < u.bbox.left - 1 || x > u.bbox.left + u.bbox.width + 1) return;
        ctx.save();
        ctx.strokeStyle = '#c0392b';
        ctx.setLineDash([5, 4]);
        ctx.lineWidth = 1.5 * devicePixelRatio;
        ctx.beginPath();
        ctx.moveTo(x, u.bbox.top);
        ctx.lineTo(x, u.bbox.top + u.bbox.height);
        ctx.stroke();
        ctx.fillStyle = '#c0392b';
        ctx.font = `${12 * devicePixelRatio}px sans-serif`;
        ctx.fillText('peak ' + bytes(tl.max_live_bytes), x + 4 * devicePixelRatio, Math.max(u.bbox.top + 16 * devicePixelRatio, y + 16 * devicePixelRatio));
        ctx.restore();
      }],
    },
  };
  const chartDiv = $('overtime-chart');
  // the process's resident memory as the recorder sampled it, where the trace has it: before
  // the first sample an interval has none (a gap in the line, not 0)
  const resOf = (v) => (typeof v.resident_bytes === 'number' ? v.resident_bytes : null);
  const hasRes = iv.some((v) => resOf(v) !== null);
  const series = [{ label: byTime ? 'ms' : 'record' },
                  { label: 'live bytes (end of interval)', stroke: '#2b6cb0', fill: 'rgba(43,108,176,0.12)', width: 1.5 },
                  { label: 'most live bytes in interval', stroke: '#888', dash: [4, 3], width: 1 }];
  const data = [xs, live, most];
  if (hasRes) {
    series.push({ label: 'resident bytes (sampled)', stroke: '#2f855a', width: 1.5 });
    data.push([resOf(iv[0])].concat(iv.map(resOf)));
    chartDiv.dataset.residentMissing = iv.filter((v) => resOf(v) === null).length;
  }
  chartDiv.dataset.series = series.slice(1).map((x) => x.label).join('|');
  const plot = new uPlot({
    width: Math.max(400, chartDiv.clientWidth || 900), height: 320,
    plugins: [peakMark],
    scales: { x: { time: false } },
    axes: [{ label: byTime ? 'ms from the first event' : 'records' },
           { label: 'bytes', size: 80, values: (u, v) => v.map((b) => bytes(b).replace(/^.*\(|\)$/g, '')) }],
    series,
  }, data, chartDiv);
  $('overtime-reset').onclick = () => plot.setScale('x', { min: xs[0], max: xs[xs.length - 1] });
  window.addEventListener('resize', () => plot.setSize({ width: Math.max(400, chartDiv.clientWidth), height: 320 }));

  // ---- allocation sites ----
  const frameTable = D.sites.stack.frame_table || [];
  // a frame's function as shown; one nothing names by its module and offset (its flame graph node)
  const frameName = (f) => f.demangled || f.node || f.addr;
  // a frame's lines as the call chain shows them, [text, function]: the functions inlined at
  // the call, innermost first, then its own
  function frameLines(f) {
    const src = f.file ? ` ${f.file}:${f.line}` : '';
    const lines = (f.inlined || []).map((i) => [`${i.demangled} (inlined) ${i.file}:${i.line}`, i.demangled || i.function]);
    lines.push([f.demangled ? `${f.demangled}${f.offset ? '+0x' + f.offset.toString(16) : ''}${f.module ? ` (${f.module})` : ''}${src}`
                            : frameName(f) + src, frameName(f)]);
    return lines;
  }
  const isNew = (name) => name.startsWith('operator new');
  // a stack's place: its innermost frame that is not operator new, as --by function; the
  // frames' names outside it, its callers
  function placeOf(s) {
    const fs = s.frames.map((i) => frameTable[i]);
    const at = fs.findIndex((f) => !(f.demangled && isNew(f.demangled)));
    const callers = fs.slice(at + 1);
    if (at >= 0) return [frameName(fs[at]) + (fs[at].file ? `  ${fs[at].file}:${fs[at].line}` : ''), callers];
    return [s.stack ? (fs.length ? frameName(fs[0]) : '(stack not in the trace)') : '(no stack)', callers];
  }
  // sites that share a place are told apart by their callers' names, as many as it takes (past
  // three, the first and the one that differs, "…" for those between, unless that is ambiguous);
  // sites whose chains have the same names, by the first caller that differs in its offset or line
  function tellApart(rows) {
    const byPlace = new Map();
    for (const r of rows) (byPlace.get(r.place) || byPlace.set(r.place, []).get(r.place)).push(r);
    const key = (cs, n, how) => cs.slice(0, n).map(how).join('\u0000');
    const last = (f) => frameLines(f).at(-1)[0];
    const ARROW = ' \u2190 ', SKIP = '\u2026';
    for (const group of byPlace.values()) {
      if (group.length < 2) continue;
      const callers = group.map((r) => r.callers);
      const labels = group.map((r, j) => {
        const mine = callers[j], alike = (n, how) => callers.some((cs, m) => m !== j && key(cs, n, how) === key(mine, n, how));
        let d = 1;
        while (d < mine.length && alike(d, frameName)) d++;
        if (mine.length && !alike(d, frameName)) {
          const names = mine.slice(0, d).map(frameName);
          return { full: ARROW + names.join(ARROW), short: ARROW + (d > 3 ? [names[0], SKIP, names[d - 1]] : names).join(ARROW) };
        }
        const at = mine.findIndex((f, k) => !alike(k + 1, last));
        const text = at < 0 ? ` [stack ${r.stack}]` : `${ARROW}${at ? SKIP + ARROW : ''}${last(mine[at])}`;
        return { full: text, short: text };
      });
      const shorts = labels.map((l) => l.short);
      group.forEach((r, j) => {
        r.place += shorts.indexOf(shorts[j]) === shorts.lastIndexOf(shorts[j]) ? labels[j].short : labels[j].full;
      });
    }
  }
  const views = {
    stack: D.sites.stack.top.map((s, i) => {
      const [place, callers] = placeOf(s);
      return Object.assign({}, s, { rank: i + 1, place, callers,
        lines: s.frames.flatMap((k) => frameLines(frameTable[k])) });
    }),
  };
  tellApart(views.stack);
  for (const r of views.stack) r.text = r.lines.map((l) => l[0]).join('\n');
  for (const by of ['function', 'line']) {
    views[by] = D.sites[by].top.map((g, i) => Object.assign({}, g, { rank: i + 1, peak_bytes: undefined,
      text: `${g.stacks.length} stack${g.stacks.length === 1 ? '' : 's'}: ${g.stacks.slice(0, 20).join(', ')}${g.stacks.length > 20 ? ', ...' : ''}` }));
  }
  for (const v of Object.values(views)) for (const r of v) r.search = (r.place + '\n' + r.text).toLowerCase();
  let sortKey = 'rank', sortDesc = false, limit = 500;  // rows drawn; "show more" draws more
  const table = $('sites-table'), tbody = table.tBodies[0];
  function drawSites() {
    const by = $('sites-by').value, q = $('sites-search').value.trim().toLowerCase();
    let rows = views[by].filter((r) => !q || r.search.includes(q));
    const k = sortKey;
    rows = rows.slice().sort((a, b) => {
      let x = a[k], y = b[k];
      if (k === 'place') return sortDesc ? String(y).localeCompare(String(x)) : String(x).localeCompare(String(y));
      x = x === undefined ? -1 : x; y = y === undefined ? -1 : y;
      return sortDesc ? y - x || a.rank - b.rank : x - y || a.rank - b.rank;
    });
    for (const th of table.tHead.rows[0].cells) {
      th.classList.toggle('sorted-desc', th.dataset.key === k && sortDesc);
      th.classList.toggle('sorted-asc', th.dataset.key === k && !sortDesc);
      if (th.dataset.key === 'peak_bytes') th.hidden = by !== 'stack';
    }
    const frag = document.createDocumentFragment();
    for (const r of rows.slice(0, limit)) {
      const cells = [[String(r.rank), r.rank], [r.place, undefined, 'text'], num(r.calls), num(r.bytes)];
      if (by === 'stack') cells.push(num(r.peak_bytes));
      cells.push(num(r.at_peak_bytes), num(r.leaked_bytes), num(r.temporary));
      const tr = row(cells);
      tr.className = 'site';
      tr.dataset.rank = r.rank;
      tr.onclick = () => {
        const next = tr.nextSibling;
        if (next && next.classList.contains('frames')) { next.remove(); return; }
        const fr = el('tr', { class: 'frames' }), td = el('td', { colspan: cells.length });
        if (!r.lines) td.appendChild(el('div', {}, r.text || '(no frames)'));
        else if (!r.lines.length) td.appendChild(el('div', {}, r.stack ? '(stack not in the trace)' : '(no stack)'));
        // the call chain, innermost first; a function's line opens its callers and callees
        for (const [text, name] of r.lines || []) {
          const line = el('div', { class: 'frame', title: 'callers and callees of ' + name }, text);
          line.dataset.function = name;
          line.onclick = (e) => { e.stopPropagation(); showFunction(name); };
          td.appendChild(line);
        }
        fr.appendChild(td);
        tr.after(fr);
      };
      frag.appendChild(tr);
    }
    if (rows.length > limit) {
      const more = el('tr', { class: 'more' }), td = el('td', { colspan: 8 });
      const b = el('button', { type: 'button' }, `show ${fmt(Math.min(rows.length - limit, 500))} more of ${fmt(rows.length - limit)}`);
      b.onclick = () => { limit += 500; drawSites(); };
      td.appendChild(b);
      more.appendChild(td);
      frag.appendChild(more);
    }
    tbody.replaceChildren(frag);
    const all = views[by].length;
    $('sites-count').textContent = (q ? `${fmt(rows.length)} of ${fmt(all)} rows match` : `${fmt(all)} rows`) +
      (rows.length > limit ? `, the first ${fmt(limit)} drawn` : '');
    $('sites-count').dataset.shown = rows.length;
    const d = D.sites[by];
    const groups = by === 'stack' ? d.sites : null;
    $('sites-note').textContent =
      `${fmt(d.sites)} call stacks; ${fmt(d.records_with_stack)} of ${fmt(d.records)} alloc and realloc records have a stack` +
      (d.records_with_stack ? '' : ' (record with hatrace record --stacks to see where memory is allocated)') + '. ' +
      (groups !== null && all < groups ? `Shown: the first ${fmt(all)} by ${D.limits.sort} (--top); ${fmt(groups - all)} sites left out. ` :
       by !== 'stack' && all >= D.limits.top && D.limits.top ? `Shown: the first ${fmt(all)} by ${D.limits.group_sort} (--top); any more are left out. ` : '') +
      'Click a column to sort, a row for its call chain (innermost first), a function in it for its callers and callees.';
  }
  for (const th of table.tHead.rows[0].cells) {
    th.onclick = () => {
      if (sortKey === th.dataset.key) sortDesc = !sortDesc;
      else { sortKey = th.dataset.key; sortDesc = !['rank', 'place'].includes(sortKey); }
      drawSites();
    };
  }
  $('sites-by').onchange = () => { limit = 500; drawSites(); };
  $('sites-search').oninput = () => { limit = 500; drawSites(); };
  drawSites();

  // ---- callers and callees (as heaptrack_gui shows them), of the sites the page holds ----
  // computed by hatrace (analyze/callgraph.c): per function, self (the sites whose innermost
  // function it is), inclusive (the sites whose chain holds it, once per site) and per caller
  // and callee (the sites that pass through that call), of the figures that add up; the
  // callers and callees come in the order to show
  const figures = { calls: 'calls', bytes: 'bytes', at_peak_bytes: "at the heap's peak", leaked_bytes: 'leaked',
    temporary: 'temporary' };
  const figKeys = Object.keys(figures);
  for (const id of ['callers-table', 'callers-up', 'callers-down'])
    for (const k of figKeys) $(id).tHead.rows[0].appendChild(el('th', { 'data-key': k }, figures[k]));
  const CG = D.callers, figsOf = (v) => Object.fromEntries(CG.figures.map((k, i) => [k, v[i]]));
  const edgesOf = (list) => list.map(([n, v]) => Object.assign({ name: CG.names[n] }, figsOf(v)));
  const fnStats = new Map(CG.functions.map(([self, incl, up, down], i) => [CG.names[i],
    { name: CG.names[i], self: figsOf(self), incl: figsOf(incl), callers: edgesOf(up), callees: edgesOf(down) }]));
  const fnRows = [...fnStats.values()].map((e) => Object.assign({ name: e.name, self_calls: e.self.calls,
    self_bytes: e.self.bytes }, e.incl));
  const figCells = (x) => figKeys.map((k) => num(x[k]));
  const ctable = $('callers-table'), cbody = ctable.tBodies[0];
  let cKey = 'bytes', cDesc = true;
  function drawFunctions() {
    const q = $('callers-search').value.trim().toLowerCase();
    const rows = fnRows.filter((r) => !q || r.name.toLowerCase().includes(q)).sort((a, b) => {
      if (cKey === 'name') return cDesc ? b.name.localeCompare(a.name) : a.name.localeCompare(b.name);
      return (cDesc ? b[cKey] - a[cKey] : a[cKey] - b[cKey]) || a.name.localeCompare(b.name);
    });
    for (const th of ctable.tHead.rows[0].cells) {
      th.classList.toggle('sorted-desc', th.dataset.key === cKey && cDesc);
      th.classList.toggle('sorted-asc', th.dataset.key === cKey && !cDesc);
    }
    const frag = document.createDocumentFragment();
    for (const r of rows.slice(0, 500)) {
      const tr = row([[r.name, undefined, 'text'], num(r.self_calls), num(r.self_bytes)].concat(figCells(r)));
      tr.className = 'function';
      tr.dataset.function = r.name;
      tr.onclick = () => showFunction(r.name);
      frag.appendChild(tr);
    }
    cbody.replaceChildren(frag);
    $('callers-count').textContent = `${fmt(rows.length)} functions` + (rows.length > 500 ? ', the first 500 drawn' : '');
  }
  for (const th of ctable.tHead.rows[0].cells) {
    th.onclick = () => {
      if (cKey === th.dataset.key) cDesc = !cDesc;
      else { cKey = th.dataset.key; cDesc = cKey !== 'name'; }
      drawFunctions();
    };
  }
  $('callers-search').oninput = drawFunctions;
  const shownSites = CG.sites;
  $('callers-note').textContent = `${fmt(fnRows.length)} functions in the chains of the ${fmt(shownSites)} sites with a stack` +
    ` the page holds (those of the sites table, --top). Self: the sites whose innermost function it is (operator new` +
    ` left out); the other figures, inclusive: every site whose chain holds the function, once. Click a function` +
    ` for who calls it and what it calls.`;
  function edgeTable(id, edges) {
    const body = $(id).tBodies[0], frag = document.createDocumentFragment();
    for (const x of edges) {
      const tr = row([[x.name, undefined, 'text']].concat(figCells(x)));
      tr.dataset.function = x.name;
      if (fnStats.has(x.name)) tr.onclick = () => showFunction(x.name);
      frag.appendChild(tr);
    }
    body.replaceChildren(frag);
  }
  function showFunction(name) {
    const e = fnStats.get(name);
    if (!e) return;
    const d = $('callers-detail');
    d.hidden = false;
    d.dataset.function = name;
    $('callers-title').textContent = name;
    $('callers-figures').textContent = `inclusive: ${fmt(e.incl.calls)} calls, ${bytes(e.incl.bytes)};` +
      ` self: ${fmt(e.self.calls)} calls, ${bytes(e.self.bytes)}`;
    edgeTable('callers-up', e.callers);
    edgeTable('callers-down', e.callees);
    for (const tr of cbody.rows) tr.classList.toggle('chosen', tr.dataset.function === name);
    $('callers').scrollIntoView();
  }
  drawFunctions();

  // ---- flame graph ----
  const F = D.flame;
  const figs = F.figures;
  function tree(fi) {
    const root = { name: 'all', value: 0, children: [] };
    for (const [cut, nodes, values] of F.chains) {
      const v = values[fi];
      if (!v) continue;
      root.value += v;
      let n = root;
      for (const [i, k] of nodes.entries()) {
        const name = F.names[k];
        let c = n.index && n.index.get(name);
        if (!c) {
          c = { name, value: 0, children: [], cut: !!cut && i === 0 };  // a cut chain's root: "[truncated]"
          (n.index || (n.index = new Map())).set(name, c);
          n.children.push(c);
        }
        c.value += v;
        n = c;
      }
    }
    const strip = (n) => { delete n.index; n.children.forEach(strip); };
    strip(root);
    return root;
  }
  let flame = null;
  function drawFlame() {
    const key = $('flame-figure').value, fi = figs.indexOf(key);
    const data = tree(fi);
    const div = $('flame-chart');
    div.replaceChildren();
    const shownSum = data.value, allSum = F.totals[fi];
    const label = $('flame-figure').selectedOptions[0].textContent;
    $('flame-note').textContent = `${label}: ${fmt(shownSum)} of ${fmt(allSum)} in ${fmt(F.chains.length)} chains` +
      (F.shown < F.sites ? `, from ${fmt(F.shown)} of ${fmt(F.sites)} sites (the first ${fmt(D.limits.flame_top)} by each figure, --flame-top; ${fmt(allSum - shownSum)} left out)` : '') +
      '. Outermost frame at the bottom' +
      (F.cut_depth ? `; chains cut at the recording depth (${F.cut_depth} frames) start at a dashed "[truncated]" frame` : '') +
      '. Click a frame to zoom.';
    div.dataset.figure = key;
    div.dataset.total = shownSum;
    if (!shownSum) { div.appendChild(el('p', { class: 'hint' }, 'Nothing to draw for this figure.')); flame = null; return; }
    flame = flamegraph.default()
      .width(Math.max(600, div.clientWidth || 1000))
      .cellHeight(18)
      .transitionDuration(0)
      .minFrameSize(1)
      .sort(true)
      .title('')
      .label((d) => `${d.data.name}: ${fmt(d.value)} ${label} (${(100 * d.value / shownSum).toFixed(2)} %)`)
      .setDetailsElement($('flame-details'));
    d3.select(div).datum(data).call(flame);
    d3.select(div).selectAll('g.frame').filter((d) => d.data.cut).classed('cut', true);
  }
  $('flame-figure').onchange = drawFlame;
  $('flame-search').oninput = () => { if (flame) flame.search($('flame-search').value); };
  $('flame-reset').onclick = () => { if (flame) flame.resetZoom(); };
  drawFlame();

  // ---- sizes, threads, heaps ----
  const hb = $('hist-table').tBodies[0];
  const hmax = Math.max(1, ...S.size_histogram.map((h) => h.count));
  for (const h of S.size_histogram) {
    const r = row([[h.min === h.max ? fmt(h.min) : `${fmt(h.min)} .. ${fmt(h.max)}`, undefined, 'text'], num(h.count)]);
    const td = el('td', { class: 'bar' }), bar = el('div');
    bar.style.width = (100 * h.count / hmax) + '%';
    td.appendChild(bar);
    r.appendChild(td);
    r.dataset.min = h.min;
    hb.appendChild(r);
  }
  const tb = $('threads-table').tBodies[0];
  for (const t of S.threads)
    tb.appendChild(row([num(t.id), [t.name || '-', undefined, 'text'], num(t.allocs), num(t.frees), num(t.reallocs), num(t.bytes)]));
  const heapFigures = (h) => [num(h.allocs), num(h.frees), num(h.reallocs), num(h.bytes), num(h.max_live_objects),
    num(h.max_live_bytes), num(h.destroy_frees)];
  const hp = $('heaps-table').tBodies[0];
  for (const h of S.heaps) hp.appendChild(row([num(h.id), [h.name || '-', undefined, 'text']].concat(heapFigures(h))));
  if (S.heap_names.length) {
    $('heap-names-part').hidden = false;
    const nb = $('heap-names-table').tBodies[0];
    for (const h of S.heap_names) nb.appendChild(row([[h.name, undefined, 'text'], num(h.heaps)].concat(heapFigures(h))));
  }
  // ---- allocators: the replay (report --replay), as replay --json and --series give it ----
  const R = D.replay;
  if (R) {
    $('replay').hidden = false;
    $('replay-link').hidden = false;
    const A = R.allocators;
    const a0 = A[0] || {};
    $('replay-note').textContent =
      `The trace replayed against ${A.map((a) => a.allocator).join(', ')}, each in its own process` +
      ` (as hatrace replay --allocator ${A.map((a) => a.allocator).join(',')} --json: threads ${a0.threads},` +
      ` touch ${a0.touch}, ${a0.repeat} run each, 1 call in ${a0.latency_every} timed): ${fmt(R.ops)} trace operations,` +
      ` peak live ${bytes(R.peak_live_bytes)}. Fragmentation is resident over live bytes: averaged over the run,` +
      ` at the peak of live bytes, at the peak of resident bytes, and peak over peak.` +
      (R.program_peak_resident_bytes ? ` The recorded program's own peak resident memory (sampled while recording,` +
        ` the recorder's own memory taken out) is the last row.` : ' The trace has no resident samples of the recorded program.');
    const fixed = (v, d) => [Number(v).toFixed(d), v];
    const short = (n) => bytes(n).replace(/^.*\(|\)$/g, '');  // the unit alone; the exact bytes in the tooltip
    const lat = (a, k, q) => {
      const l = a.latency_ns[k];
      return l ? fixed(l[q], 1) : ['-', undefined];
    };
    const rb = $('replay-table').tBodies[0];
    const titled = (r) => { for (const c of r.cells) if (/B$/.test(c.textContent)) c.title = bytes(c.dataset.value); return r; };
    for (const a of A) {
      const r = row([[a.allocator, undefined, 'text'], fixed(a.wall_s, 6), fixed(a.ops_per_s / 1e6, 3), fixed(a.ns_per_op, 2),
        lat(a, 'malloc', 'p50'), lat(a, 'malloc', 'p99'), lat(a, 'malloc', 'p99.9'),
        lat(a, 'free', 'p50'), lat(a, 'free', 'p99'), lat(a, 'free', 'p99.9'),
        [short(a.peak_rss_bytes), a.peak_rss_bytes],
        fixed(a.frag_time_avg, 3), fixed(a.frag_at_peak_live, 3), fixed(a.frag_at_peak_rss, 3), fixed(a.frag_peak_over_peak, 3),
        num(a.ops), num(a.calls), [short(a.peak_live_bytes), a.peak_live_bytes]]);
      r.dataset.allocator = a.allocator;
      if (a.warning) r.title = a.warning;
      rb.appendChild(titled(r));
    }
    if (R.program_peak_resident_bytes) {
      const p = R.program_peak_resident_bytes, none = ['-', undefined];
      const cells = [['recorded program', undefined, 'text']];
      for (let i = 0; i < 9; i++) cells.push(none);
      cells.push([short(p), p], none, none, none,
        R.peak_live_bytes ? fixed(p / R.peak_live_bytes, 3) : none, none, none, [short(R.peak_live_bytes), R.peak_live_bytes]);
      const r = row(cells);
      r.dataset.program = '1';
      r.className = 'program';
      rb.appendChild(titled(r));
    }
    // one x: the calls done at each allocator's samples; gaps where an allocator has none
    const xset = new Set();
    for (const s of R.series) s.op.forEach((x) => xset.add(x));
    const rx = [...xset].sort((a, b) => a - b);
    const pos = new Map(rx.map((x, i) => [x, i]));
    const lines = R.series.map((s) => {
      const v = new Array(rx.length).fill(null);
      s.op.forEach((x, i) => { v[pos.get(x)] = s.rss[i]; });
      return v;
    });
    const liveLine = new Array(rx.length).fill(null);
    for (const s of R.series) s.op.forEach((x, i) => { if (liveLine[pos.get(x)] === null) liveLine[pos.get(x)] = s.live[i]; });
    const colours = ['#2b6cb0', '#c0392b', '#2a7a2a', '#8e44ad', '#d68910', '#17a589', '#7f8c8d', '#a04000'];
    const rdiv = $('replay-chart');
    rdiv.dataset.series = R.series.map((s) => s.allocator).join(',');
    const rplot = new uPlot({
      width: Math.max(400, rdiv.clientWidth || 900), height: 320,
      scales: { x: { time: false } },
      axes: [{ label: 'allocator calls done' },
             { label: 'bytes', size: 80, values: (u, v) => v.map((b) => bytes(b).replace(/^.*\(|\)$/g, '')) }],
      series: [{ label: 'calls' }]
        .concat(R.series.map((s, i) => ({ label: s.allocator + ' resident', stroke: colours[i % colours.length], width: 1.5, spanGaps: true })))
        .concat([{ label: 'live bytes', stroke: '#444', dash: [4, 3], width: 1, spanGaps: true }]),
    }, [rx].concat(lines, [liveLine]), rdiv);
    $('replay-reset').onclick = () => rplot.setScale('x', { min: rx[0], max: rx[rx.length - 1] });
    window.addEventListener('resize', () => rplot.setSize({ width: Math.max(400, rdiv.clientWidth), height: 320 }));
  }
  // ---- settings: the tuning (report --tune), as replay --tune --json gives it ----
  const T = D.tune;
  if (T) {
    $('tune').hidden = false;
    $('tune-link').hidden = false;
    const allocs = [...new Set(T.settings.map((r) => r.allocator))];
    $('tune-note').textContent =
      `The trace replayed under each setting of ${allocs.join(', ')}, each run ${T.repeat} times in its own process` +
      ` (as hatrace replay --tune --allocator ${allocs.join(',')} --json: threads ${T.threads}, touch ${T.touch}).` +
      ' Each figure is the median over the runs, and [the smallest-the largest]: ranges that do not overlap are a real' +
      ' difference. ● marks the Pareto front (no other setting has both less peak resident memory and more throughput).' +
      (T.program_peak_resident_bytes ? ` The recorded program's own peak resident memory: ${bytes(T.program_peak_resident_bytes)}.` : '');
    const MiB = 1048576;
    const spread = (f, k, d) => [`${(f.median / k).toFixed(d)} [${(f.min / k).toFixed(d)}-${(f.max / k).toFixed(d)}]`, f.median];
    const tb = $('tune-table').tBodies[0];
    T.settings.forEach((r, i) => {
      const name = [`${r.allocator} ${r.setting}`, undefined, 'text'];
      let cells;
      if (r.status !== 'ok') {
        cells = [name, ['', undefined, 'text'], [`failed: ${r.error}`, undefined, 'text']];
      } else {
        const f = r.figures;
        cells = [name, [r.pareto ? '●' : '', r.pareto ? 1 : 0, 'text'], spread(f.peak_rss_bytes, MiB, 1),
          T.program_peak_resident_bytes ? [(f.peak_rss_bytes.median / T.program_peak_resident_bytes).toFixed(2)] : ['-'],
          spread(f.frag_time_avg, 1, 2), spread(f.frag_at_peak_live, 1, 2), spread(f.frag_at_peak_rss, 1, 2),
          spread(f.frag_peak_over_peak, 1, 2), spread(f.ops_per_s, 1e6, 3), spread(f.p99_ns, 1e3, 1),
          [r.production || '(defaults)', undefined, 'text']];
      }
      const tr = row(cells);
      tr.dataset.setting = `${r.allocator} ${r.setting}`;
      if (i === T.best) tr.className = 'best';
      tb.appendChild(tr);
    });
    const B = T.settings[T.best];
    $('tune-best').textContent = B ? `Best for ${T.objective}: ${B.allocator} ${B.setting}; in production: ` +
      (B.production || '(the defaults: no variable to set)') : 'No setting ran to the end.';
    // one point per setting: throughput across, peak resident up, bars from the smallest to the largest run
    const ok = T.settings.filter((r) => r.status === 'ok');
    const W = 900, H = 380, L = 70, R = 20, TOP = 20, BOT = 50;
    const xmax = Math.max(...ok.map((r) => r.figures.ops_per_s.max), 1) * 1.1;
    const ymax = Math.max(...ok.map((r) => r.figures.peak_rss_bytes.max), T.program_peak_resident_bytes || 0, 1) * 1.1;
    const X = (v) => L + (v / xmax) * (W - L - R), Y = (v) => H - BOT - (v / ymax) * (H - TOP - BOT);
    const ns = 'http://www.w3.org/2000/svg';
    const svg = document.createElementNS(ns, 'svg');
    svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
    svg.setAttribute('width', W);
    svg.setAttribute('height', H);
    const add = (tag, attrs, text) => {
      const e = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text !== undefined) e.textContent = text;
      svg.appendChild(e);
      return e;
    };
    add('line', { x1: L, y1: H - BOT, x2: W - R, y2: H - BOT, stroke: '#444' });
    add('line', { x1: L, y1: TOP, x2: L, y2: H - BOT, stroke: '#444' });
    for (let k = 0; k <= 4; k++) {
      add('text', { x: X((xmax * k) / 4), y: H - BOT + 16, 'text-anchor': 'middle', 'font-size': 11 }, ((xmax * k) / 4 / 1e6).toFixed(2));
      add('text', { x: L - 6, y: Y((ymax * k) / 4) + 4, 'text-anchor': 'end', 'font-size': 11 }, ((ymax * k) / 4 / MiB).toFixed(1));
    }
    add('text', { x: (L + W - R) / 2, y: H - 10, 'text-anchor': 'middle', 'font-size': 12 }, 'throughput (Mcalls/s)');
    add('text', { x: 14, y: (TOP + H - BOT) / 2, 'text-anchor': 'middle', 'font-size': 12,
      transform: `rotate(-90 14 ${(TOP + H - BOT) / 2})` }, 'peak resident (MiB)');
    if (T.program_peak_resident_bytes) {
      const y = Y(T.program_peak_resident_bytes);
      add('line', { x1: L, y1: y, x2: W - R, y2: y, stroke: '#444', 'stroke-dasharray': '4 3' });
      add('text', { x: L + 4, y: y - 4, 'font-size': 11 }, 'recorded program');
    }
    for (const r of ok) {
      const t = r.figures.ops_per_s, m = r.figures.peak_rss_bytes;
      const best = T.settings[T.best] === r;
      add('line', { x1: X(t.min), y1: Y(m.median), x2: X(t.max), y2: Y(m.median), stroke: '#999' });
      add('line', { x1: X(t.median), y1: Y(m.min), x2: X(t.median), y2: Y(m.max), stroke: '#999' });
      const c = add('circle', { cx: X(t.median), cy: Y(m.median), r: best ? 7 : 5, fill: r.pareto ? '#c0392b' : '#2b6cb0',
        class: 'tune-point', 'data-setting': `${r.allocator} ${r.setting}` });
      add('title', {}, `${r.allocator} ${r.setting}: ${bytes(Math.round(m.median))}, ${(t.median / 1e6).toFixed(3)} Mcalls/s`);
      c.appendChild(svg.lastChild);
      add('text', { x: X(t.median) + 8, y: Y(m.median) - 6, 'font-size': 10 }, `${r.allocator} ${r.setting}${best ? ' (best)' : ''}`);
    }
    $('tune-chart').appendChild(svg);
  }
  document.body.dataset.ready = '1';
})();
