// Runs in headless Chromium inside harness.html (built by scripts/check-report.sh): loads a report
// in an iframe, waits for it, forces layout, and checks what was drawn against what the result
// files say should be there, computed here independently of cudabench:
//   - one samples chart per workload with a headline metric (or a failed run), one dot per
//     headline sample of every ok workload in every file;
//   - one SM-clock / power chart per workload that recorded them, one dot per repetition;
//   - every chart laid out with a non-zero size, every multi-point series with a non-zero box;
//   - per candidate: bars + rows listed without a bar = workloads in the baseline or that candidate;
//   - no element that can run or fetch (script, img, iframe, object, embed, link, on* attributes),
//     one stylesheet (the report's own) with no @import or url();
//   - with HOSTILE set: the hostile label is shown as text.
// It writes "RESULT ok ..." or "RESULT FAIL <reasons>" into <pre id="out">, which --dump-dom prints.
(function () {
  var out = document.getElementById('out');
  var cfg = JSON.parse(document.getElementById('cfg').textContent);
  var files = JSON.parse(document.getElementById('data').textContent);
  var fails = [];
  function expect(what, got, want) { if (got !== want) fails.push(what + ': got ' + got + ', expected ' + want); }

  function expected() {
    var per = {}, order = [];
    files.forEach(function (f, i) {
      f.workloads.forEach(function (w) {
        if (!(w.id in per)) { per[w.id] = []; order.push(w.id); }
        per[w.id][i] = w;
      });
    });
    var e = { samples: 0, points: 0, clock: 0, clockPoints: 0, power: 0, powerPoints: 0, rows: [] };
    order.forEach(function (id) {
      var ws = per[id], headline = null, any = false, failed = false, sm = false, pw = false;
      for (var i = 0; i < files.length && !headline; i++)
        if (ws[i] && ws[i].metrics && Object.keys(ws[i].metrics).length) headline = Object.keys(ws[i].metrics)[0];
      for (var j = 0; j < files.length; j++) {
        var w = ws[j];
        if (!w) continue;
        if (w.status !== 'ok') failed = true;
        var m = headline && w.metrics ? w.metrics[headline] : null;
        if (w.status === 'ok' && m && m.samples.length) { any = true; e.points += m.samples.length; }
        var c = w.clocks || {};
        if (c.sm_mhz && c.sm_mhz.length) { sm = true; e.clockPoints += c.sm_mhz.length; }
        if (c.power_w && c.power_w.length) { pw = true; e.powerPoints += c.power_w.length; }
      }
      if (headline && (any || failed)) e.samples++;
      if (sm) e.clock++;
      if (pw) e.power++;
    });
    for (var c = 1; c < files.length; c++) {
      var n = 0;
      order.forEach(function (id) { if (per[id][0] || per[id][c]) n++; });
      e.rows.push(n);
    }
    return e;
  }

  function check(doc, ms) {
    var e = expected();
    var charts = doc.querySelectorAll('svg[data-chart]');
    var count = { samples: 0, clock: 0, power: 0, change: 0 }, pts = { samples: 0, clock: 0, power: 0 };
    var empty = 0, flat = 0;
    charts.forEach(function (svg) {
      var kind = svg.getAttribute('data-chart');
      count[kind] = (count[kind] || 0) + 1;
      var r = svg.getBoundingClientRect();
      if (!(r.width > 0 && r.height > 0)) empty++;
      svg.querySelectorAll('[data-points]').forEach(function (p) {
        var n = +p.getAttribute('data-points');
        pts[kind] = (pts[kind] || 0) + n;
        var b = p.getBBox();
        if (n > 1 && !(b.width > 0 || b.height > 0)) flat++;
      });
    });
    var laidOut = performance.now() - ms;
    expect('samples charts', count.samples, e.samples);
    expect('sample points', pts.samples, e.points);
    expect('clock charts', count.clock, e.clock);
    expect('clock points', pts.clock, e.clockPoints);
    expect('power charts', count.power, e.power);
    expect('power points', pts.power, e.powerPoints);
    expect('charts with zero size', empty, 0);
    expect('series drawn with an empty box', flat, 0);
    expect('comparison charts', count.change, Math.max(0, files.length - 1));
    // Per candidate: the bars in its chart plus the rows of the table right after it.
    doc.querySelectorAll('svg[data-chart="change"]').forEach(function (svg, c) {
      var bars = 0;
      svg.querySelectorAll('[data-bars]').forEach(function (p) { bars += +p.getAttribute('data-bars'); });
      var next = svg.nextElementSibling, listed = 0;
      if (next && next.tagName === 'TABLE') listed = next.querySelectorAll('tr').length - 1;
      if (bars < 1) fails.push('candidate ' + (c + 1) + ': no bar drawn');
      expect('candidate ' + (c + 1) + ' rows (bars + listed)', bars + listed, e.rows[c]);
    });
    var active = doc.querySelectorAll('script,img,iframe,object,embed,link,base,meta[http-equiv="refresh"]').length;
    expect('active elements (script, img, iframe, ...)', active, 0);
    var styles = doc.querySelectorAll('style');
    expect('style elements', styles.length, 1);
    if (styles.length && /@import|url\(/i.test(styles[0].textContent)) fails.push('the stylesheet imports or fetches');
    var handlers = 0;
    doc.querySelectorAll('*').forEach(function (el) {
      for (var i = 0; i < el.attributes.length; i++)
        if (/^on/i.test(el.attributes[i].name)) handlers++;
    });
    expect('event-handler attributes', handlers, 0);
    if (cfg.hostile && doc.body.textContent.indexOf(cfg.hostile) < 0) fails.push('hostile label not shown as text');
    out.textContent = 'RESULT ' + (fails.length ? 'FAIL ' + fails.join('; ') : 'ok') +
      ' charts=' + charts.length + ' samples=' + count.samples + ' points=' + pts.samples +
      ' clock=' + count.clock + ' power=' + count.power + ' change=' + count.change +
      ' load_ms=' + Math.round(cfg.loadMs) + ' first_layout_ms=' + Math.round(cfg.firstMs) +
      ' all_layout_ms=' + Math.round(laidOut);
  }

  var frame = document.createElement('iframe');
  frame.width = 1280; frame.height = 2000;
  var t0 = performance.now();
  frame.addEventListener('load', function () {
    try {
      cfg.loadMs = performance.now() - t0;
      var doc = frame.contentDocument;
      if (!doc || !doc.body) throw new Error('the report did not load (file access?)');
      doc.body.offsetHeight;  // style and layout of the page (off-screen cards are skipped: content-visibility)
      cfg.firstMs = performance.now() - t0;
      check(doc, t0);
    } catch (err) {
      out.textContent = 'RESULT FAIL ' + err;
    }
  });
  frame.src = cfg.report;
  document.body.appendChild(frame);
})();
