// bryo report: the interactive parts of the overview and pair pages.
// Plain JavaScript, no libraries; loaded from a file beside the pages (the
// pages' Content-Security-Policy allows no inline script). Every page works
// without it, only sorting, filtering and fragment navigation need it.
'use strict';

(function () {
  // Line numbers: each code block's gutter is filled here from its line
  // count, which keeps the pages small.
  Array.prototype.forEach.call(document.querySelectorAll('pre.ln[data-lines]'), function (pre) {
    var n = Number(pre.getAttribute('data-lines'));
    var parts = new Array(n);
    for (var i = 0; i < n; i++) {
      parts[i] = String(i + 1);
    }
    pre.textContent = parts.join('\n');
  });

  var table = document.getElementById('pairs-table');
  if (table) {
    initPairsTable(table);
  }
  if (document.body.classList.contains('pair')) {
    initPairPage();
  }

  // ---- Overview: sort the pairs table by any column, filter its rows ----

  function initPairsTable(table) {
    var tbody = table.tBodies[0];
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    var rows = Array.prototype.slice.call(tbody.rows);
    // The rank never changes: it breaks ties, so every sort is total.
    rows.forEach(function (row) {
      row.rank = Number(row.cells[0].getAttribute('data-v'));
    });

    function key(row, col, type) {
      var cell = row.cells[col];
      if (type === 'num') {
        return Number(cell.getAttribute('data-v'));
      }
      return cell.textContent.toLowerCase();
    }

    headers.forEach(function (th) {
      var button = th.querySelector('button');
      button.addEventListener('click', function () {
        var col = Number(th.getAttribute('data-col'));
        var type = th.getAttribute('data-type');
        var current = th.getAttribute('aria-sort');
        // First click: text ascending, numbers descending (rank ascending).
        var ascending;
        if (current === 'ascending') {
          ascending = false;
        } else if (current === 'descending') {
          ascending = true;
        } else {
          ascending = type === 'text' || col === 0;
        }
        headers.forEach(function (h) {
          h.removeAttribute('aria-sort');
        });
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        var sign = ascending ? 1 : -1;
        rows.sort(function (x, y) {
          var kx = key(x, col, type);
          var ky = key(y, col, type);
          if (kx < ky) return -sign;
          if (kx > ky) return sign;
          return x.rank - y.rank;
        });
        var fragment = document.createDocumentFragment();
        rows.forEach(function (row) {
          fragment.appendChild(row);
        });
        tbody.appendChild(fragment);
      });
    });

    var nameInput = document.getElementById('filter-name');
    var minInput = document.getElementById('filter-min');
    var maxInput = document.getElementById('filter-max');
    var count = document.getElementById('shown-count');

    function number(input, fallback) {
      var v = parseFloat(input.value);
      return isNaN(v) ? fallback : v;
    }

    function applyFilter() {
      var needle = nameInput.value.trim().toLowerCase();
      var lo = number(minInput, 0);
      var hi = number(maxInput, 100);
      var shown = 0;
      rows.forEach(function (row) {
        var sim = Number(row.getAttribute('data-sim'));
        var names = row.getAttribute('data-names');
        var visible = sim >= lo && sim <= hi && (needle === '' || names.indexOf(needle) >= 0);
        row.classList.toggle('hidden', !visible);
        if (visible) shown += 1;
      });
      count.textContent = shown + ' of ' + rows.length + ' pairs';
    }

    [nameInput, minInput, maxInput].forEach(function (input) {
      input.addEventListener('input', applyFilter);
    });
    applyFilter();
  }

  // ---- Pair page: fragment highlighting, partner scrolling, keys ----

  // Parses "start,end,fragment start,end,fragment …" (offsets in the
  // shown text, UTF-16 code units) into [[start, end, fragment], …].
  function parseRanges(text) {
    if (!text) return [];
    return text.split(' ').map(function (triple) {
      return triple.split(',').map(Number);
    });
  }

  // Wraps the text of `pre` between the offsets of each range (sorted,
  // disjoint) in elements made by `make`: a range that crosses highlighted
  // tokens becomes several pieces, one per text node, all alike.
  function wrapRanges(pre, ranges, make) {
    if (ranges.length === 0) return;
    var walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    var nodes = [];
    var node;
    while ((node = walker.nextNode())) nodes.push(node);
    var pos = 0;
    var r = 0;
    nodes.forEach(function (textNode) {
      var nodeStart = pos;
      var nodeEnd = pos + textNode.data.length;
      pos = nodeEnd;
      var current = textNode;
      var currentStart = nodeStart;
      while (r < ranges.length && ranges[r][0] < nodeEnd) {
        var start = Math.max(ranges[r][0], currentStart);
        var end = Math.min(ranges[r][1], nodeEnd);
        if (start < end) {
          var piece = start > currentStart ? current.splitText(start - currentStart) : current;
          var rest = end < nodeEnd ? piece.splitText(end - start) : null;
          var wrapper = make(ranges[r]);
          piece.parentNode.insertBefore(wrapper, piece);
          wrapper.appendChild(piece);
          if (rest === null) {
            if (ranges[r][1] <= nodeEnd) r += 1;
            break;
          }
          current = rest;
          currentStart = end;
        }
        if (ranges[r][1] <= nodeEnd) {
          r += 1;
        } else {
          break;
        }
      }
    });
  }

  // Fills each code block with its file's highlighted text (registered by
  // the file's script under files/) and lays the fragments, the gaps of
  // merged fragments and base code over it.
  function renderCode() {
    var sources = window.bryoSources || {};
    Array.prototype.forEach.call(document.querySelectorAll('pre.code[data-src]'), function (pre) {
      var html = sources[pre.getAttribute('data-src')];
      if (typeof html !== 'string') {
        pre.textContent = 'The text of this file is missing from the report (files/' +
          pre.getAttribute('data-src') + '.js).';
        pre.classList.add('missing');
        return;
      }
      // The HTML was generated and escaped by bryo, never taken from a
      // submission as is.
      pre.innerHTML = html;
      var side = pre.closest('#side-a') ? 'a' : 'b';
      var seen = {};
      wrapRanges(pre, parseRanges(pre.getAttribute('data-marks')), function (range) {
        var f = range[2];
        var mark = document.createElement('mark');
        mark.className = 'f c' + (f % 24);
        mark.setAttribute('data-f', String(f));
        if (!seen[f]) {
          mark.id = side + f;
          seen[f] = true;
        }
        return mark;
      });
      // Gaps of merged fragments: inside the fragment's mark, shown apart.
      wrapRanges(pre, parseRanges(pre.getAttribute('data-gaps')), function (range) {
        var mark = document.createElement('mark');
        mark.className = 'gap';
        mark.title = 'gap inside fragment ' + (range[2] + 1) + ': not matched';
        return mark;
      });
      wrapRanges(pre, parseRanges(pre.getAttribute('data-base')), function () {
        var mark = document.createElement('mark');
        mark.className = 'base';
        mark.title = 'base code';
        return mark;
      });
    });
  }

  function initPairPage() {
    renderCode();
    var marks = Array.prototype.slice.call(document.querySelectorAll('mark.f'));
    var swatches = Array.prototype.slice.call(document.querySelectorAll('.swatch[data-f]'));
    var count = document.querySelectorAll('#fragment-table tbody tr').length;
    var current = -1;

    // 24 colours come from the style sheet; further fragments get their
    // own hue here (golden-angle steps keep neighbours apart).
    marks.concat(swatches).forEach(function (el) {
      var f = Number(el.getAttribute('data-f'));
      if (f >= 24) {
        el.style.backgroundColor = 'hsl(' + ((f * 137.508) % 360).toFixed(0) + ' 75% 78%)';
      }
    });

    function select(f) {
      Array.prototype.forEach.call(document.querySelectorAll('.active'), function (el) {
        el.classList.remove('active');
      });
      Array.prototype.forEach.call(document.querySelectorAll('[data-f="' + f + '"]'), function (el) {
        if (el.tagName === 'MARK' || el.tagName === 'TR') {
          el.classList.add('active');
        }
      });
      current = f;
    }

    // Brings the start of fragment f on side ('a' or 'b') into view within
    // its own scrolling column.
    function reveal(side, f) {
      var el = document.getElementById(side + f);
      if (el) {
        el.scrollIntoView({ block: 'center', inline: 'nearest' });
      }
    }

    marks.forEach(function (mark) {
      mark.addEventListener('click', function () {
        var f = Number(mark.getAttribute('data-f'));
        var inA = mark.closest('#side-a') !== null;
        select(f);
        reveal(inA ? 'b' : 'a', f);
      });
    });

    Array.prototype.forEach.call(document.querySelectorAll('#fragment-table a[data-f]'), function (a) {
      a.addEventListener('click', function (event) {
        event.preventDefault();
        go(Number(a.getAttribute('data-f')));
      });
    });

    function go(f) {
      if (count === 0) return;
      f = ((f % count) + count) % count;
      select(f);
      reveal('a', f);
      reveal('b', f);
      var row = document.querySelector('#fragment-table tr[data-f="' + f + '"]');
      if (row) row.scrollIntoView({ block: 'nearest' });
    }

    document.addEventListener('keydown', function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      var target = event.target;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA')) return;
      if (event.key === 'n' || event.key === 'j') {
        go(current + 1);
      } else if (event.key === 'p' || event.key === 'k') {
        go(current < 0 ? count - 1 : current - 1);
      }
    });
  }
})();
