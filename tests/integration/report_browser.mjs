// report_browser.mjs — open a page of hatrace report in headless Chromium
// from disk, with the network off, and check it (tests/integration/report_browser.sh):
// no JavaScript error, every view there, the figures shown equal to stats
// --json's, the sites table sorts and filters, the flame graph has the
// expected root and frames; a screenshot of each view into SHOTS.
//
//   node report_browser.mjs PLAYWRIGHT_CORE CHROMIUM PAGE.html STATS.json EXPECT.json SHOTS [PARTIAL [REPLAY.json]]
// EXPECT.json: {"frames": [names the flame graph must hold], "calls": total
// calls of the sites, "bytes": their bytes, "cut": [the frames drawn dashed as
// a cut chain's root], optional, "places": [the sites' places, when given],
// "chain": [a site's call chain as its click shows it, the first line naming
// the site], "callers_of": a function, "fn_calls": the calls of the sites whose
// chain holds it, "callers" and "callees": {function: calls} through it,
// "resident_missing": the intervals drawn without a resident point}. PARTIAL: the page must say the trace is
// damaged (an empty word: it must not). REPLAY.json: what hatrace replay
// --json printed for the allocators the page was made with (report --replay):
// the allocators view shows them (ops, calls and peak live bytes the same, the
// times positive), the recorded program's row when replay names its resident
// peak, and the chart one series per allocator; without it the view is hidden.
// A page made with --tune shows its settings view as the page's data has it.
// Exit 0 ok, 1 with the failures listed.
import { readFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [pwPath, chromium, pagePath, statsPath, expectPath, shots, partial, replayPath] = process.argv.slice(2);
const { chromium: browserType } = createRequire(import.meta.url)(pwPath);
const stats = JSON.parse(readFileSync(statsPath, 'utf8'));
const expect = JSON.parse(readFileSync(expectPath, 'utf8'));
const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); };
mkdirSync(shots, { recursive: true });

const browser = await browserType.launch({
  executablePath: chromium,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--disable-sync', '--no-first-run'],
});
try {
  const context = await browser.newContext({ offline: true, viewport: { width: 1280, height: 900 } });
  const requests = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    requests.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  page.on('pageerror', (e) => errors.push('page error: ' + e.message));
  await page.goto(pathToFileURL(pagePath).href);
  try {
    await page.waitForSelector('body[data-ready="1"]', { state: 'attached', timeout: 15000 });
  } catch (e) {
    throw new Error(`the page never finished drawing: ${errors.join(' | ') || e.message}`);
  }

  // every view, with something drawn in it
  for (const id of ['summary', 'overtime', 'sites', 'flame', 'tables']) check(await page.locator('#' + id).count() === 1, `view #${id} missing`);
  check(await page.locator('#overtime-chart canvas').count() >= 1, 'no chart of memory over time');
  // resident memory beside the live bytes where the recorder sampled it (stats says how many samples)
  const lines = await page.$eval('#overtime-chart', (d) => d.dataset.series || '');
  const sampled = !!(stats.container && stats.container.resident_samples > 0) || expect.resident_missing !== undefined;
  check(lines.includes('resident bytes (sampled)') === sampled, `memory over time: lines ${lines}, resident samples ${sampled}`);
  if (expect.resident_missing !== undefined) {
    const missing = await page.$eval('#overtime-chart', (d) => d.dataset.residentMissing);
    check(missing === String(expect.resident_missing), `memory over time: ${missing} intervals without resident, want ${expect.resident_missing}`);
  }
  check(await page.locator('#sites-table tbody tr').count() > 0, 'empty sites table');
  check(await page.locator('#flame-chart svg g').count() > 0, 'empty flame graph');

  // the summary's figures are stats --json's
  const value = async (sel) => page.locator(sel).first().getAttribute('data-value');
  for (const key of ['records', 'allocs', 'frees', 'reallocs', 'total_bytes', 'max_live_bytes', 'max_live_objects',
                     'live_bytes_at_end'])
    check(await value('#sum-' + key) === String(stats[key]), `summary ${key}: page ${await value('#sum-' + key)}, stats ${stats[key]}`);
  check(await value('#sum-threads') === String(stats.threads.length), 'summary threads');
  check(await value('#sum-duration') === String(stats.duration_ns), 'summary duration');
  if (stats.container) check(await value('#sum-pid') === String(stats.container.pid), 'summary pid');
  const cmd = await page.locator('#sum-cmdline').textContent();
  if (stats.container) check(cmd === stats.container.cmdline, `summary program: ${cmd}`);
  for (const [f, n] of Object.entries(stats.functions))
    check(await value(`#functions-table tr[data-function="${f}"] td:nth-child(2)`) === String(n), `calls of ${f}`);
  check(await page.locator('#overtime').getAttribute('data-peak') === String(stats.max_live_bytes), 'memory over time: the peak');
  // sizes, threads, heaps
  const hist = await page.$$eval('#hist-table tbody tr', (rs) => rs.map((r) => [Number(r.dataset.min), Number(r.cells[1].dataset.value)]));
  check(JSON.stringify(hist) === JSON.stringify(stats.size_histogram.map((h) => [h.min, h.count])), 'size histogram');
  const threads = await page.$$eval('#threads-table tbody tr', (rs) => rs.map((r) => [...r.cells].map((c) => c.dataset.value)));
  check(JSON.stringify(threads) === JSON.stringify(stats.threads.map((t) => [String(t.id), undefined, String(t.allocs),
    String(t.frees), String(t.reallocs), String(t.bytes)])), 'threads table');
  const heaps = await page.$$eval('#heaps-table tbody tr', (rs) => rs.map((r) => r.cells[0].dataset.value + ':' + r.cells[5].dataset.value));
  check(JSON.stringify(heaps) === JSON.stringify(stats.heaps.map((h) => `${h.id}:${h.bytes}`)), 'heaps table');
  // damage is said at the top, and only then
  const banner = await page.locator('#banner').isVisible();
  check(banner === !!partial, partial ? 'no banner on a damaged trace' : 'a banner on a complete trace');
  if (partial) check(/covers only what could be read/.test(await page.locator('#banner').textContent()), 'banner text');

  // the sites table: its figures add up to the sites', it sorts and filters
  const column = async (i) => page.$$eval(`#sites-table tbody tr.site td:nth-child(${i})`, (cs) => cs.map((c) => Number(c.dataset.value)));
  const sum = (v) => v.reduce((a, b) => a + b, 0);
  check(sum(await column(3)) === expect.calls, `sites table calls ${sum(await column(3))}, want ${expect.calls}`);
  check(sum(await column(4)) === expect.bytes, `sites table bytes ${sum(await column(4))}, want ${expect.bytes}`);
  await page.click('#sites-table th[data-key="calls"]');
  let calls = await column(3);
  check(calls.every((v, i) => !i || calls[i - 1] >= v), 'calls column not sorted down after a click');
  await page.click('#sites-table th[data-key="calls"]');
  calls = await column(3);
  check(calls.every((v, i) => !i || calls[i - 1] <= v), 'calls column not sorted up after a second click');
  await page.locator('#sites').screenshot({ path: `${shots}/sites.png` });
  if (expect.search) {
  await page.fill('#sites-search', expect.search);
  const places = await page.$$eval('#sites-table tbody tr.site td:nth-child(2)', (cs) => cs.map((c) => c.textContent));
  check(places.length >= 1 && places.length < calls.length, `search '${expect.search}': ${places.length} rows of ${calls.length}`);
  check(places.some((p) => p.includes(expect.search)), `search '${expect.search}' finds no such place`);
  await page.fill('#sites-search', '');
  }
  // one definition of the bytes allocated: the sites' (allocs and reallocs)
  check(await value('#sum-bytes') === String(expect.bytes), `summary bytes allocated ${await value('#sum-bytes')}, sites ${expect.bytes}`);
  // sites that share an innermost frame are told apart; where expected, the places themselves
  const stackPlaces = await page.$$eval('#sites-table tbody tr.site td:nth-child(2)', (cs) => cs.map((c) => c.textContent));
  check(new Set(stackPlaces).size === stackPlaces.length, `two sites with the same place: ${stackPlaces.join(' | ')}`);
  if (expect.places.length)
    check(JSON.stringify([...stackPlaces].sort()) === JSON.stringify([...expect.places].sort()), `sites' places: ${stackPlaces.join(' | ')}`);
  // a click on a site: its whole call chain, innermost first, each frame a line; none a bare
  // address when its module is known
  const site = page.locator('#sites-table tbody tr.site', { hasText: expect.chain.length ? expect.chain[0] : '' }).first();
  if (await site.count()) {
    await site.click();
    const chain = await page.$$eval('#sites-table tr.frames div.frame', (ds) => ds.map((d) => d.textContent));
    if (expect.chain.length) check(JSON.stringify(chain) === JSON.stringify(expect.chain), `call chain on a click: ${chain.join(' | ')}`);
    check(!chain.some((t) => /^0x[0-9a-f]+ \(/.test(t)), `a frame in a known module shown as a bare address: ${chain.join(' | ')}`);
    const said = await page.locator('#sites-table tr.frames').textContent();
    check(chain.length >= 1 || /^\((no stack|stack not in the trace)\)$/.test(said), `no call chain on a click: ${said}`);
    await site.click();
    check(await page.locator('#sites-table tr.frames').count() === 0, 'a second click does not close the chain');
  }
  // callers and callees: a function's inclusive calls, who calls it, what it calls, as the sites' chains add up
  if (expect.callers_of) {
    const fn = expect.callers_of;
    await page.locator('#sites-table tbody tr.site').first().click();
    const inChain = page.locator(`#sites-table tr.frames div.frame[data-function="${fn}"]`);
    if (!await inChain.count()) {  // not in the first site's chain: from the functions table
      await page.locator('#sites-table tbody tr.site').first().click();
      await page.fill('#callers-search', fn);
      await page.locator(`#callers-table tr.function[data-function="${fn}"]`).click();
    } else {
      await inChain.first().click();
      await page.locator('#sites-table tbody tr.site').first().click();
    }
    check(await page.locator('#callers-detail').getAttribute('data-function') === fn, `callers and callees: ${fn} not shown`);
    const incl = await value(`#callers-table tr.function[data-function="${fn}"] td:nth-child(4)`);
    check(incl === String(expect.fn_calls), `${fn}: inclusive calls ${incl}, want ${expect.fn_calls}`);
    const edges = async (id) => Object.fromEntries(await page.$$eval(`#${id} tbody tr`, (rs) =>
      rs.map((r) => [r.dataset.function, Number(r.cells[1].dataset.value)])));
    const up = await edges('callers-up'), down = await edges('callers-down');
    check(JSON.stringify(up, Object.keys(up).sort()) === JSON.stringify(expect.callers, Object.keys(expect.callers).sort()),
      `${fn}: callers ${JSON.stringify(up)}, want ${JSON.stringify(expect.callers)}`);
    check(JSON.stringify(down, Object.keys(down).sort()) === JSON.stringify(expect.callees, Object.keys(expect.callees).sort()),
      `${fn}: callees ${JSON.stringify(down)}, want ${JSON.stringify(expect.callees)}`);
    await page.fill('#callers-search', '');
    await page.locator('#callers').screenshot({ path: `${shots}/callers.png` });
  }
  await page.selectOption('#sites-by', 'function');
  const fnPlaces = await page.$$eval('#sites-table tbody tr.site td:nth-child(2)', (cs) => cs.map((c) => c.textContent));
  for (const f of expect.functions) check(fnPlaces.includes(f), `by function: no row ${f}`);
  await page.selectOption('#sites-by', 'stack');

  // the flame graph: root "all", its value the sites' calls; the known frames there
  await page.selectOption('#flame-figure', 'calls');
  const names = await page.$$eval('#flame-chart svg g', (gs) => gs.map((g) => g.getAttribute('name')));
  check(names.includes('all'), 'flame graph: no root "all"');
  check(await page.locator('#flame-chart').getAttribute('data-total') === String(expect.calls), 'flame graph: calls at the root');
  for (const f of expect.frames) check(names.includes(f), `flame graph: no frame ${f}`);
  const top = await page.$$eval('#flame-chart svg g', (gs) => {
    const root = gs.find((g) => g.getAttribute('name') === 'all');
    const y = (g) => Number(/translate\([^,]+,([^)]+)\)/.exec(g.getAttribute('transform'))[1]);
    const y1 = y(root) - Number(root.getAttribute('height'));
    return gs.filter((g) => Math.abs(y(g) - y1) < 0.5).map((g) => g.getAttribute('name'));
  });
  for (const f of expect.outermost) check(top.includes(f), `flame graph: ${f} is not above the root (${top})`);
  const cut = await page.$$eval('#flame-chart g.frame.cut', (gs) => gs.map((g) => g.getAttribute('name')));
  check(JSON.stringify(cut) === JSON.stringify(expect.cut || []), `flame graph: frames drawn as cut ${JSON.stringify(cut)}`);

  // the allocators (report --replay): replay --json's figures, within what a rerun changes
  if (replayPath) {
    const want = JSON.parse(readFileSync(replayPath, 'utf8'));
    check(await page.locator('#replay').isVisible(), 'no allocators view');
    const got = await page.$$eval('#replay-table tbody tr[data-allocator]', (rs) => rs.map((r) =>
      ({ allocator: r.dataset.allocator, values: [...r.cells].map((c) => c.dataset.value) })));
    check(JSON.stringify(got.map((g) => g.allocator)) === JSON.stringify(want.map((a) => a.allocator)),
      `allocators view: rows ${got.map((g) => g.allocator)}, replay ran ${want.map((a) => a.allocator)}`);
    for (const [i, a] of want.entries()) {
      const v = got[i] ? got[i].values : [];
      const n = (k) => Number(v[k]);
      check(v[15] === String(a.ops) && v[16] === String(a.calls), `${a.allocator}: ops ${v[15]}, calls ${v[16]}; replay ${a.ops}, ${a.calls}`);
      check(v[17] === String(a.peak_live_bytes), `${a.allocator}: peak live ${v[17]}, replay ${a.peak_live_bytes}`);
      check(n(1) > 0 && n(2) > 0 && n(3) > 0, `${a.allocator}: times not positive: ${v.slice(1, 4)}`);
      check(n(10) > 0, `${a.allocator}: peak resident ${v[10]}`);
      check([11, 12, 13, 14].every((k) => Number.isFinite(n(k))), `${a.allocator}: fragmentation ${v.slice(11, 15)}`);
      if (a.latency_ns.malloc) check(n(4) > 0 && n(5) >= n(4) && n(6) >= n(5), `${a.allocator}: malloc latency ${v.slice(4, 7)}`);
    }
    const program = await page.$$eval('#replay-table tbody tr[data-program]', (rs) => rs.map((r) => r.cells[10].dataset.value));
    const rss = want[0] && want[0].program_peak_resident_bytes;
    check(JSON.stringify(program) === JSON.stringify(rss ? [String(rss)] : []), `the recorded program's row: ${program}, replay says ${rss}`);
    check(await page.locator('#replay-chart canvas').count() >= 1, 'no chart of the allocators');
    const labels = await page.$$eval('#replay-chart .u-legend .u-series .u-label', (ls) => ls.map((l) => l.textContent));
    const resident = labels.filter((l) => l.endsWith(' resident')).map((l) => l.slice(0, -' resident'.length));
    check(JSON.stringify(resident) === JSON.stringify(want.map((a) => a.allocator)), `allocators chart series: ${labels}`);
    check(labels.includes('live bytes'), 'allocators chart: no live bytes');
    await page.locator('#replay').screenshot({ path: `${shots}/replay.png` });
  } else {
    check(!(await page.locator('#replay').isVisible()), 'an allocators view without --replay');
  }

  // the allocator settings (report --tune): a row per setting of the page's replay --tune
  // figures, each as computed, the best marked, a point per setting that ran
  const tune = await page.evaluate(() => JSON.parse(document.getElementById('hatrace-data').textContent).tune || null);
  if (tune) {
    check(await page.locator('#tune').isVisible(), 'no settings view');
    const rows = await page.$$eval('#tune-table tbody tr', (rs) => rs.map((r) =>
      ({ setting: r.dataset.setting, best: r.className === 'best', peak: r.cells[2].dataset.value })));
    check(rows.length === tune.settings.length, `settings view: ${rows.length} rows, ${tune.settings.length} settings`);
    tune.settings.forEach((t, i) => {
      const r = rows[i] || {};
      check(r.setting === `${t.allocator} ${t.setting}`, `settings row ${i}: ${r.setting}`);
      check(r.best === (i === tune.best), `settings row ${i}: best ${r.best}, the JSON's ${tune.best}`);
      if (t.status === 'ok') check(Number(r.peak) === t.figures.peak_rss_bytes.median, `${r.setting}: peak ${r.peak}`);
    });
    const ran = tune.settings.filter((t) => t.status === 'ok').length;
    check(ran > 0 && await page.locator('#tune-chart circle.tune-point').count() === ran, `settings chart: not ${ran} points`);
    await page.locator('#tune').screenshot({ path: `${shots}/tune.png` });
  } else {
    check(!(await page.locator('#tune').isVisible()), 'a settings view without --tune');
  }

  check(errors.length === 0, 'JavaScript errors: ' + errors.join(' | '));
  check(requests.length === 0, 'the page asked the network for: ' + requests.join(' '));
  for (const id of ['summary', 'overtime', 'flame', 'tables']) await page.locator('#' + id).screenshot({ path: `${shots}/${id}.png` });
} finally {
  await browser.close();
}
if (failures.length) {
  console.log('FAIL:\n  ' + failures.join('\n  '));
  process.exit(1);
}
console.log('ok: the page shows what stats --json says');
