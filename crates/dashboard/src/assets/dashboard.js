// swarm dashboard: renders what /api/v1 serves and keeps it live from the
// event stream. Every piece of text from the swarm (ids, paths, reasons,
// message bodies) is untrusted: it only ever reaches the page through
// textContent, attributes set one by one, or the title property.
'use strict';

(function () {
  const MAX_MESSAGES = 100;
  const RECONNECTS = 5;
  // Screens change without any file changing: looked at this often.
  const DELIVERY_EVERY_MS = 2000;
  // Usage records grow with the agents' turns: read again this often.
  const USAGE_EVERY_MS = 10000;
  const SVG = 'http://www.w3.org/2000/svg';
  const TYPES = [
    'QUESTION', 'REVIEW-REQUEST', 'BLOCKED', 'COMPLETED', 'CHALLENGE', 'INFO', 'ACK',
    'TASK-DELEGATION', 'TASK-RESULT', 'CONFLICT', 'NEGOTIATION', 'CAPABILITY-QUERY',
    'CAPABILITY-RESPONSE', 'REVIEW-FEEDBACK', 'CONTEXT-UPDATE',
  ];

  const state = {
    messages: new Map(),
    awaitingAck: new Set(),
    attempts: 0,
    source: null,
    agents: [],
    search: '',
    searchTimer: null,
    viewing: null,
    screens: {},
    lastAgents: null,
    // Who needs the person: one card per open condition, by key.
    needs: new Map(),
  };

  // The secret of the URL the dashboard printed is now in an HttpOnly
  // cookie: take it out of the address bar and the history.
  if (new URLSearchParams(location.search).has('token')) {
    history.replaceState(null, '', location.pathname + location.hash);
  }

  // This run's action token and the operator's id, put into the page by
  // the server (a meta element: the CSP allows no inline script).
  function meta(name) {
    const node = document.querySelector('meta[name="' + name + '"]');
    return node ? node.getAttribute('content') || '' : '';
  }

  function byId(id) {
    return document.getElementById(id);
  }

  function text(value) {
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : String(value);
  }

  function el(tag, className, content) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (content !== undefined && content !== null) node.textContent = text(content);
    return node;
  }

  // A path that the browser may break only after a `/`: each part is
  // kept whole, with a <wbr> after each slash.
  function pathNode(tag, className, value) {
    const node = el(tag, className);
    text(value).split(/(?<=\/)/).forEach((part, i) => {
      if (i > 0) node.append(document.createElement('wbr'));
      node.append(el('span', 'path-part', part));
    });
    return node;
  }

  // "agent-1 → agent-0", each id kept whole.
  function fromTo(tag, className, from, to) {
    const node = el(tag, className);
    node.append(el('span', 'id', from), ' → ', el('span', 'id', to));
    return node;
  }

  function list(value) {
    return Array.isArray(value) ? value : [];
  }

  // A time as the state files hold it: ISO 8601 with an offset, without
  // one (local time, as the Python tool writes message times), or Unix
  // seconds (lock files).
  function parseTime(value) {
    if (typeof value === 'number' && isFinite(value)) return new Date(value * 1000);
    if (typeof value !== 'string') return null;
    if (/^\d+(\.\d+)?$/.test(value)) return new Date(Number(value) * 1000);
    const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)?$/.exec(value);
    if (!m) return null;
    const d = new Date(m[1] + (m[2] ? m[2].slice(0, 4) : '') + (m[3] || ''));
    return isNaN(d.getTime()) ? null : d;
  }

  function span(seconds) {
    if (seconds < 60) return seconds + 's';
    if (seconds < 3600) return Math.floor(seconds / 60) + 'm' + (seconds % 60 ? ' ' + (seconds % 60) + 's' : '');
    if (seconds < 86400) return Math.floor(seconds / 3600) + 'h ' + Math.floor((seconds % 3600) / 60) + 'm';
    return Math.floor(seconds / 86400) + 'd ' + Math.floor((seconds % 86400) / 3600) + 'h';
  }

  function relative(value) {
    const d = parseTime(value);
    if (!d) return '–';
    const seconds = Math.round((Date.now() - d.getTime()) / 1000);
    return seconds < 0 ? 'in ' + span(-seconds) : span(seconds) + ' ago';
  }

  function clock(value) {
    const d = parseTime(value);
    return d ? d.toLocaleString() : text(value);
  }

  // An element showing how long ago `value` was; kept current by tick().
  function timeNode(tag, value) {
    const node = el(tag, 'time', relative(value));
    node.dataset.time = text(value);
    node.title = clock(value);
    return node;
  }

  function tick() {
    for (const node of document.querySelectorAll('[data-time]')) {
      node.textContent = relative(node.dataset.time);
    }
  }

  function typeClass(type) {
    const t = text(type).toUpperCase();
    return TYPES.includes(t) ? 'type type-' + t.toLowerCase() : 'type type-other';
  }

  function fill(bodyId, emptyId, rows) {
    byId(bodyId).replaceChildren(...rows);
    byId(emptyId).hidden = rows.length > 0;
  }

  function row(cells) {
    const tr = el('tr');
    for (const cell of cells) {
      tr.append(cell instanceof Node ? cell : el('td', null, cell));
    }
    return tr;
  }

  function wrapCell(node) {
    const td = el('td');
    td.append(node);
    return td;
  }

  function renderAgents(body) {
    state.lastAgents = body;
    const agents = list(body && body.agents);
    fill('agents', 'agents-empty', agents.map((a) => {
      const status = text(a.status) || 'unknown';
      const pane = el('td', 'mono', a.pane_index);
      if (a.tmux_pane_id) pane.title = 'tmux pane ' + text(a.tmux_pane_id);
      const link = el('button', 'link mono strong', a.id);
      link.type = 'button';
      link.title = 'show ' + text(a.id) + "'s messages, locks and pending ACKs";
      link.addEventListener('click', () => showAgent(text(a.id)));
      // The agent's screen as delivery reads it (/api/v1/delivery).
      const seen = state.screens[text(a.id)];
      const shown = seen && typeof seen === 'object' ? text(seen.state) : '';
      const limited = seen && typeof seen === 'object' && seen.limited ? ' · ' + text(seen.limited) : '';
      const screen = el('td', 'screen' + (shown ? ' sc-' + shown.replace(/[^a-z]/g, '') : ' muted'), (shown || '–') + limited);
      if (seen && seen.reason) screen.title = text(seen.reason);
      return row([
        wrapCell(link),
        pane,
        wrapCell(el('span', 'pill st-' + (['active', 'stale'].includes(status) ? status : 'other'), status)),
        screen,
        timeNode('td', a.last_seen),
      ]);
    }));
    byId('agents-count').textContent = String(agents.length);
    state.agents = agents.map((a) => text(a.id));
    renderRecipients();
    const session = body && body.session_name;
    byId('session').textContent = session ? 'session ' + text(session) : '';
  }

  // Screen states and held messages: the agents table's screen column
  // and the held list, with a button that delivers what is safe now.
  function renderDelivery(body) {
    if (!body || typeof body !== 'object') return;
    state.screens = body.screens && typeof body.screens === 'object' ? body.screens : {};
    if (state.lastAgents) renderAgents(state.lastAgents);
    const held = list(body.held);
    fill('held', 'held-empty', held.map((h) => {
      const message = el('td', 'reason', h.text);
      message.title = text(h.msg_id);
      const age = el('td', 'time', span(Math.max(0, Number(h.age_seconds) || 0)));
      age.title = clock(h.since);
      return row([el('td', 'mono strong id', h.agent), el('td', 'reason', h.reason), age, message]);
    }));
    byId('held-count').textContent = String(held.length);
    byId('held-release').hidden = held.length === 0;
  }

  function loadDelivery() {
    return load('/api/v1/delivery', renderDelivery);
  }

  function setupRelease() {
    byId('held-release').addEventListener('click', () => {
      act('/api/v1/actions/release', {}, (r) => {
        const went = list(r.released).map((x) => text(x.agent) + ': ' + text(x.outcome && x.outcome.status));
        const waits = list(r.still_held).map((x) => text(x.agent) + ' (' + text(x.reason) + ')');
        return (went.length ? 'Delivered ' + went.join(', ') : 'Nothing could go in yet') +
          (waits.length ? '; still held: ' + waits.join(', ') : '');
      }).then(loadDelivery);
    });
  }

  // Usage (/api/v1/usage?series=hour): per agent, tokens by kind, model,
  // cost, budget standing and its tokens per hour over the last day.
  function count(n) {
    const v = Number(n) || 0;
    if (v < 1000) return String(v);
    if (v < 1e6) return (v / 1e3).toFixed(1) + 'k';
    if (v < 1e9) return (v / 1e6).toFixed(1) + 'M';
    return (v / 1e9).toFixed(1) + 'G';
  }

  function money(c) {
    return typeof c === 'number' && isFinite(c) ? '$' + c.toFixed(2) : null;
  }

  // The worst of the agent's own budget lines and the swarm's:
  // [words, level] or null when no budget is set.
  function budgetWords(own, swarm, period) {
    const lines = list(own).map((l) => [l, false]).concat(list(swarm).map((l) => [l, true]));
    const rank = { ok: 0, near: 1, over: 2 };
    let worst = null;
    for (const [l, whole] of lines) {
      const score = [rank[text(l.level)] || 0, Number(l.share) || 0];
      if (!worst || score[0] > worst.score[0] || (score[0] === worst.score[0] && score[1] > worst.score[1])) {
        worst = { l: l, whole: whole, score: score };
      }
    }
    if (!worst) return null;
    const whose = worst.whole ? 'swarm ' : '';
    const level = text(worst.l.level) || 'ok';
    if (level === 'over') return ['over ' + whose + 'budget', level];
    const pct = Math.floor((Number(worst.l.share) || 0) * 100);
    return [pct + '% of ' + whose + (text(period) || 'day') + ' budget', level];
  }

  function usageChart(agent, tokens, startUnix, stepSecs) {
    const values = list(tokens).map((v) => Number(v) || 0);
    const width = 240;
    const height = 48;
    const max = Math.max(1, ...values);
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('class', 'usage-chart');
    svg.setAttribute('viewBox', '0 0 ' + width + ' ' + height);
    svg.setAttribute('preserveAspectRatio', 'none');
    svg.setAttribute('role', 'img');
    svg.dataset.agent = text(agent);
    const total = values.reduce((a, b) => a + b, 0);
    svg.setAttribute('aria-label', text(agent) + ': ' + total + ' tokens in the last day, per hour');
    const base = document.createElementNS(SVG, 'line');
    base.setAttribute('x1', '0');
    base.setAttribute('x2', String(width));
    base.setAttribute('y1', String(height - 0.5));
    base.setAttribute('y2', String(height - 0.5));
    svg.append(base);
    const step = values.length ? width / values.length : width;
    values.forEach((v, i) => {
      if (v <= 0) return;
      const h = Math.max(1, (v / max) * (height - 2));
      const bar = document.createElementNS(SVG, 'rect');
      bar.setAttribute('x', (i * step + 1).toFixed(2));
      bar.setAttribute('y', (height - h).toFixed(2));
      bar.setAttribute('width', Math.max(1, step - 2).toFixed(2));
      bar.setAttribute('height', h.toFixed(2));
      bar.dataset.tokens = String(v);
      const title = document.createElementNS(SVG, 'title');
      const from = new Date((Number(startUnix) + i * Number(stepSecs)) * 1000);
      title.textContent = v + ' tokens from ' + from.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
      bar.append(title);
      svg.append(bar);
    });
    return svg;
  }

  function usageCard(a, series, body) {
    const card = el('div', 'usage-card');
    card.dataset.agent = text(a.agent);
    const head = el('div', 'head');
    head.append(el('span', 'mono strong', a.agent));
    head.append(el('span', 'model mono', a.model || 'no model yet'));
    const cost = money(a.cost);
    const unpriced = list(a.unpriced).map(text);
    const costNode = el('span', 'usage-cost', cost || 'cost unknown');
    if (unpriced.length) costNode.title = 'no price for ' + unpriced.join(', ') + ': tokens only';
    head.append(costNode);
    const budget = budgetWords(a.budget, body.swarm_budget, body.period);
    if (budget) head.append(el('span', 'usage-budget budget-' + budget[1], budget[0]));
    card.append(head);
    const t = a.tokens || {};
    const kinds = el('dl', 'usage-kinds');
    for (const [label, key] of [['input', 'input'], ['output', 'output'], ['cache read', 'cache_read'],
      ['cache write', 'cache_write'], ['reasoning', 'reasoning']]) {
      const pair = el('div');
      pair.dataset.kind = key;
      const dd = el('dd', null, count(t[key]));
      dd.title = text(Number(t[key]) || 0);
      pair.append(el('dt', null, label), dd);
      kinds.append(pair);
    }
    card.append(kinds);
    const mine = series && list(series.agents).find((s) => text(s.agent) === text(a.agent));
    if (mine) {
      const axis = el('div', 'usage-axis');
      axis.append(el('span', null, list(mine.tokens).length + ' h ago'), el('span', null, 'tokens per hour'), el('span', null, 'now'));
      card.append(usageChart(a.agent, mine.tokens, series.start_unix, series.step_secs), axis);
    }
    if (Number(a.skipped) > 0) {
      card.append(el('p', 'muted', a.skipped + ' record(s) in a shape swarm does not know, skipped'));
    }
    return card;
  }

  function renderUsage(body) {
    const agents = list(body && body.agents);
    const series = body && body.series;
    byId('usage').replaceChildren(...agents.map((a) => usageCard(a, series, body)));
    byId('usage-empty').hidden = agents.length > 0;
    byId('usage-count').textContent = agents.length ? String(agents.length) : '';
    const total = body && body.total;
    const sum = total && total.tokens ? (Number(total.tokens.input) || 0) + (Number(total.tokens.output) || 0) : 0;
    const cost = money(total && total.cost);
    byId('usage-total').textContent = agents.length
      ? count(sum) + ' tokens (input+output)' + (cost ? ', ' + cost : '')
      : '';
  }

  function loadUsage() {
    return load('/api/v1/usage?series=hour', renderUsage);
  }

  function renderLocks(body) {
    const locks = list(body && body.locks);
    fill('locks', 'locks-empty', locks.map((l) => {
      const path = pathNode('td', 'mono strong', l.filepath);
      if (l.lock_file) path.title = text(l.lock_file);
      const release = el('button', 'small danger', 'release');
      release.type = 'button';
      release.title = 'force-release this lock (recorded in the audit log, as swarm unlock --force)';
      release.addEventListener('click', () => {
        if (!window.confirm('Release the lock on ' + text(l.filepath) + ' held by ' + text(l.agent_id) + '?')) return;
        act('/api/v1/actions/unlock', { path: text(l.filepath) }, (r) =>
          'Released ' + text(r.path) + (r.holder ? ' (held by ' + text(r.holder) + ')' : ''));
      });
      return row([path, el('td', 'mono id', l.agent_id), timeNode('td', l.locked_at), el('td', 'reason', l.reason), wrapCell(release)]);
    }));
    byId('locks-count').textContent = String(locks.length);
  }

  // Files two or more agents changed on their worktree branches; the
  // section shows only while there are some.
  function renderOverlaps(body) {
    const overlaps = list(body && body.overlaps);
    byId('overlaps').replaceChildren(...overlaps.map((o) =>
      row([pathNode('td', 'mono strong', o.path), el('td', 'mono id', list(o.agents).map(text).join(', '))])));
    byId('overlaps-count').textContent = String(overlaps.length);
    byId('overlaps-section').hidden = overlaps.length === 0;
  }

  function loadOverlaps() {
    return load('/api/v1/overlaps', renderOverlaps);
  }

  function renderAcks(body) {
    const acks = list(body && body.pending_acks);
    state.awaitingAck = new Set(acks.map((a) => text(a.msg_id)));
    fill('acks', 'acks-empty', acks.map((a) => {
      const id = el('td', 'mono', text(a.msg_id).slice(0, 8));
      const message = a.message && typeof a.message === 'object' ? a.message : {};
      id.title = text(a.msg_id) + (message.content ? '\n\n' + text(message.content) : '');
      return row([
        id,
        fromTo('td', 'mono', a.sender_id, a.recipient_id),
        timeNode('td', a.sent_at),
        el('td', 'num-cell', a.retry_count),
        timeNode('td', a.next_retry_at),
        wrapCell(ackButton(a)),
      ]);
    }));
    byId('acks-count').textContent = String(acks.length);
    byId('stat-acks').textContent = String(acks.length);
    renderMessages();
  }

  function renderStats(body) {
    if (!body || typeof body !== 'object') return;
    byId('stat-agents').textContent = text(body.agent_count);
    byId('stat-locks').textContent = text(body.lock_count);
    byId('stat-messages').textContent = text(body.message_count);
    const watcher = byId('watcher');
    const running = body.watcher && body.watcher.running;
    watcher.textContent = running === true ? 'watcher running'
      : running === false ? 'watcher not running' : 'watcher unknown';
    watcher.className = 'pill ' + (running === true ? 'pill-live' : 'pill-wait');
    const latest = byId('stat-latest');
    latest.textContent = relative(body.latest_activity);
    latest.dataset.time = text(body.latest_activity);
    latest.title = clock(body.latest_activity);
    const types = body.message_types && typeof body.message_types === 'object' ? body.message_types : {};
    byId('types').replaceChildren(...Object.keys(types).sort().map((t) => {
      const chip = el('span', typeClass(t), t + ' ' + text(types[t]));
      chip.title = text(types[t]) + ' of the latest messages are ' + t;
      return chip;
    }));
  }

  function messageKey(m) {
    return m.msg_id ? text(m.msg_id)
      : [m.timestamp, m.sender, m.msg_type, list(m.recipients).join(',')].map(text).join('-');
  }

  // `replace`: the body is the whole recent history, not an update.
  function takeMessages(body, replace) {
    const incoming = list(body && body.messages).filter((m) => m && typeof m === 'object');
    if (replace) state.messages.clear();
    const known = incoming.filter((m) => state.messages.has(messageKey(m))).length;
    for (const m of incoming) state.messages.set(messageKey(m), m);
    while (state.messages.size > MAX_MESSAGES) {
      state.messages.delete(state.messages.keys().next().value);
    }
    renderMessages();
    // More arrived at once than an event carries: fetch the history again
    // so that none is missing in between.
    const limit = body && typeof body.limit === 'number' ? body.limit : 0;
    if (!replace && known === 0 && incoming.length > 0 && incoming.length >= limit && state.messages.size > incoming.length) {
      load('/api/v1/messages?limit=' + MAX_MESSAGES, (b) => takeMessages(b, true));
    }
  }

  function messageItem(m) {
    const li = el('li', 'message');
    const head = el('div', 'head');
    head.append(
      timeNode('span', m.timestamp),
      el('span', 'mono strong', m.sender),
      el('span', 'arrow', '→'),
      el('span', 'mono', list(m.recipients).map(text).join(', ')),
      el('span', typeClass(m.msg_type), m.msg_type),
    );
    if (state.awaitingAck.has(text(m.msg_id))) head.append(el('span', 'flag flag-ack', 'awaiting ACK'));
    const status = m.delivery_status && typeof m.delivery_status === 'object' ? m.delivery_status : {};
    const states = m.delivery && typeof m.delivery === 'object' ? m.delivery : {};
    const queued = Object.keys(status).filter((r) => status[r] === false && !(r in states));
    if (queued.length) {
      const flag = el('span', 'flag flag-queued', 'in inbox: ' + queued.join(', '));
      flag.title = 'not typed into the pane; waiting in the inbox';
      head.append(flag);
    }
    for (const r of Object.keys(states)) {
      const st = states[r] && typeof states[r] === 'object' ? states[r] : {};
      const flag = el('span', 'flag flag-state', r + ' ' + text(st.shown));
      flag.title = 'status, way in and what confirmed it, as the message log says';
      head.append(flag);
    }
    if (m.parent_msg_id) head.append(el('span', 'mono', 'reply to #' + text(m.parent_msg_id).slice(0, 8)));
    head.append(threadButton(text(m.msg_id)));
    li.append(head, el('div', 'content', m.content));
    return li;
  }

  // The whole conversation a message belongs to, in the messages list
  // (the search box says `thread:ID`; emptying it goes back).
  function threadButton(id) {
    const button = el('button', 'small', 'thread');
    button.type = 'button';
    button.title = 'the whole conversation this message belongs to, as swarm thread ' + id.slice(0, 8);
    button.addEventListener('click', () => {
      const query = 'thread:' + id;
      byId('search').value = query;
      runSearch(query);
    });
    return button;
  }

  function renderMessages() {
    if (state.search) return;
    const items = Array.from(state.messages.values()).reverse().map(messageItem);
    byId('messages').replaceChildren(...items);
    byId('messages-empty').hidden = items.length > 0;
    byId('messages-empty').textContent = 'No messages yet.';
    byId('messages-count').textContent = String(state.messages.size);
  }


  function ackButton(a) {
    const button = el('button', 'small', 'ACK for ' + text(a.recipient_id));
    button.type = 'button';
    button.title = 'acknowledge on behalf of ' + text(a.recipient_id) + ', as swarm ack ID --agent ' + text(a.recipient_id);
    button.addEventListener('click', () => {
      act('/api/v1/actions/ack', { msg_id: text(a.msg_id) }, (r) =>
        'Acknowledged ' + text(r.msg_id).slice(0, 8) + ' for ' + text(r.acknowledged_for) + '; ' + text(r.sender) + ' was told');
    });
    return button;
  }

  function show(node, message, ok) {
    node.textContent = message;
    node.className = 'result ' + (ok ? 'result-ok' : 'result-error');
  }

  function result(message, ok) {
    show(byId('action-result'), message, ok);
  }

  // An action, as the operator: same-origin, with this page's token.
  // Resolves to {ok, status, body}; rejects when the request failed.
  function post(path, body) {
    return fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Swarm-Token': meta('swarm-token') },
      body: JSON.stringify(body),
      cache: 'no-store',
      credentials: 'same-origin',
    })
      .then((r) => r.json().catch(() => ({})).then((b) => ({ ok: r.ok && !!(b && b.ok), status: r.status, body: b })));
  }

  function refusal(r) {
    const detail = r.body && r.body.detail;
    return 'Refused (HTTP ' + r.status + '): ' + (Array.isArray(detail) ? detail.map((d) => text(d && d.msg)).join('; ') : text(detail));
  }

  function failed(e) {
    return 'Failed: ' + text(e && e.message ? e.message : e);
  }

  // An action whose answer (what happened, or why not) is shown in
  // `where` (the send box's line unless given).
  function act(path, body, describe, where) {
    const node = where || byId('action-result');
    show(node, '…', true);
    return post(path, body)
      .then((r) => {
        show(node, r.ok ? describe(r.body) : refusal(r), r.ok);
        return r;
      })
      .catch((e) => show(node, failed(e), false));
  }

  function sentSummary(r) {
    const outcomes = r.outcomes && typeof r.outcomes === 'object' ? r.outcomes : {};
    const parts = Object.keys(outcomes).sort().map((k) => {
      const o = outcomes[k] || {};
      return k + ': ' + text(o.status) + (o.reason ? ' (' + text(o.reason) + ')' : '');
    });
    let line = 'Sent ' + text(r.msg_type) + ' ' + text(r.msg_id).slice(0, 8) + ' — ' + parts.join(', ');
    if (r.requires_ack) line += '; ACK requested';
    if (r.rate_limited_for_seconds) line += '; rate limited for ' + text(r.rate_limited_for_seconds) + 's';
    return line;
  }

  function renderRecipients() {
    const select = byId('compose-to');
    const chosen = select.value;
    const options = [el('option', null, 'all agents')];
    options[0].value = 'all';
    for (const id of state.agents) {
      const o = el('option', null, id);
      o.value = id;
      options.push(o);
    }
    select.replaceChildren(...options);
    if (['all'].concat(state.agents).includes(chosen)) select.value = chosen;
  }

  function setupCompose() {
    byId('operator').textContent = meta('swarm-operator') || 'operator';
    const types = byId('compose-type');
    types.replaceChildren(...TYPES.filter((t) => t !== 'ACK').map((t) => {
      const o = el('option', null, t);
      o.value = t;
      return o;
    }));
    types.value = 'INFO';
    byId('compose-send').addEventListener('click', () => {
      const content = byId('compose-text').value;
      if (!content.trim()) {
        result('Write a message first.', false);
        return;
      }
      const body = {
        to: byId('compose-to').value,
        type: types.value,
        content: content,
        ack: byId('compose-ack').checked,
      };
      act('/api/v1/actions/send', body, sentSummary).then((r) => {
        if (r && r.ok) byId('compose-text').value = '';
      });
    });
  }

  // The search box: the kept messages (the server keeps the latest 1000)
  // that contain the text, newest first; empty shows the live feed again.
  function setupSearch() {
    const box = byId('search');
    box.addEventListener('input', () => {
      clearTimeout(state.searchTimer);
      state.searchTimer = setTimeout(() => runSearch(box.value.trim()), 200);
    });
  }

  function runSearch(query) {
    state.search = query;
    if (!query) {
      renderMessages();
      return;
    }
    // A thread oldest first; a search best match first (the server's
    // message index ranks it).
    const thread = query.startsWith('thread:') ? query.slice(7).trim() : null;
    const path = thread !== null
      ? '/api/v1/messages/' + encodeURIComponent(thread) + '/thread'
      : '/api/v1/messages?limit=200&q=' + encodeURIComponent(query);
    load(path, (b) => {
      if (state.search !== query) return;
      const found = list(b && b.messages).filter((m) => m && typeof m === 'object');
      byId('messages').replaceChildren(...found.map(messageItem));
      byId('messages-empty').hidden = found.length > 0;
      byId('messages-empty').textContent = 'No message matches “' + query + '”.';
      byId('messages-count').textContent = found.length + (thread !== null ? ' in the thread' : ' matching, best first');
    });
  }

  // The per-agent view: its messages, locks, pending ACKs, screen state
  // and held messages.
  function showAgent(id) {
    state.viewing = id;
    byId('agent-view').hidden = false;
    byId('agent-view-id').textContent = id;
    refreshAgent();
    byId('agent-view').scrollIntoView({ block: 'nearest' });
  }

  function refreshAgent() {
    const id = state.viewing;
    if (!id) return;
    load('/api/v1/agents/' + encodeURIComponent(id), (b) => {
      if (state.viewing !== id || !b || typeof b !== 'object') return;
      const a = b.agent && typeof b.agent === 'object' ? b.agent : null;
      byId('agent-view-info').textContent = a
        ? text(a.status) + ' · pane ' + text(a.pane_index) + ' · screen ' + (b.screen_state ? text(b.screen_state) : '–') +
          (b.screen && b.screen.reason ? ' (' + text(b.screen.reason) + ')' : '') +
          (b.limited ? ' · ' + text(b.limited) : '')
        : 'not in the registry';
      const locks = list(b.locks).map((l) => el('li', 'mono', text(l.filepath) + (l.reason ? ' — ' + text(l.reason) : '')));
      byId('agent-view-locks').replaceChildren(...(locks.length ? locks : [el('li', 'empty', 'none')]));
      const acks = list(b.pending_acks).map((p) => el('li', 'mono',
        text(p.msg_id).slice(0, 8) + ' ' + text(p.sender_id) + ' → ' + text(p.recipient_id)));
      byId('agent-view-acks').replaceChildren(...(acks.length ? acks : [el('li', 'empty', 'none')]));
      const held = list(b.held_messages).map((h) => el('li', null,
        text(h.reason) + ' · ' + span(Math.max(0, Number(h.age_seconds) || 0)) + ': ' + text(h.text)));
      byId('agent-view-held').replaceChildren(...(held.length ? held : [el('li', 'empty', 'none')]));
      const messages = list(b.messages).filter((m) => m && typeof m === 'object').reverse().map(messageItem);
      byId('agent-view-messages').replaceChildren(...(messages.length ? messages : [el('li', 'empty', 'none')]));
    });
  }

  // Who needs the person (/api/v1/attention and the stream's `attention`
  // events), most urgent first: a card per open condition, with the
  // question and options of a dialog as buttons, the agent's screen and a
  // box to write to it. Cards are kept across updates, so that what the
  // person types in one, and whether its screen is open, survive them.
  function needKey(n) {
    return [n.agent, n.event, n.episode].map(text).join(' ');
  }

  function eventClass(kind) {
    return 'ev-' + text(kind).replace(/[^a-z_]/g, '');
  }

  function renderNeeds(body) {
    if (!body || typeof body !== 'object') return;
    const open = list(body.open).filter((n) => n && typeof n === 'object');
    const keys = [];
    for (const n of open) {
      const key = needKey(n);
      if (keys.includes(key)) continue;
      keys.push(key);
      let card = state.needs.get(key);
      if (!card) {
        card = needCard(n, key);
        state.needs.set(key, card);
      }
      updateNeed(card, n);
    }
    for (const key of Array.from(state.needs.keys())) {
      if (!keys.includes(key)) state.needs.delete(key);
    }
    const box = byId('needs');
    const shown = Array.from(box.children).map((c) => c.dataset.key);
    // Moving a card would take the focus from its message box.
    if (shown.join('\n') !== keys.join('\n')) {
      box.replaceChildren(...keys.map((k) => state.needs.get(k).node));
    }
    for (const card of state.needs.values()) {
      if (card.pinned) card.pre.scrollTop = card.pre.scrollHeight;
    }
    byId('needs-empty').hidden = keys.length > 0;
    byId('needs-count').textContent = keys.length ? String(keys.length) : '';
    const asking = open.filter((n) => n.event === 'needs_input').length;
    document.title = (asking ? '(' + asking + ') ' : '') + 'swarm dashboard';
  }

  function needCard(n, key) {
    const agent = text(n.agent);
    const node = el('article', 'need ' + eventClass(n.event));
    node.dataset.key = key;
    node.dataset.agent = agent;
    node.dataset.event = text(n.event);
    const head = el('div', 'head');
    const since = timeNode('span', n.since);
    head.append(el('span', 'mono strong id', agent), el('span', 'ev ' + eventClass(n.event), n.headline), since);
    const question = el('p', 'need-question');
    const options = el('div', 'need-options');
    const note = el('p', 'need-note');
    const outcome = el('p', 'result need-result');
    outcome.setAttribute('role', 'status');
    const screen = el('details', 'need-screen');
    screen.open = n.event === 'needs_input';
    const summary = el('summary', null, 'Screen');
    const pre = el('pre', 'screen');
    screen.append(summary, pre);
    const send = el('form', 'need-send');
    const box = el('textarea');
    box.rows = 1;
    box.maxLength = 10000;
    box.placeholder = 'Message to ' + agent;
    box.setAttribute('aria-label', 'Message to ' + agent);
    const button = el('button', null, 'Send');
    button.type = 'submit';
    button.title = 'send it as an INFO message from ' + (meta('swarm-operator') || 'operator');
    send.append(box, button);
    // `pinned`: its screen follows the bottom, where dialogs are, until
    // the person scrolls up.
    const card = { node, agent, question, options, note, outcome, summary, pre, box, fingerprint: null, shownOptions: null, busy: false, pinned: true };
    pre.addEventListener('scroll', () => {
      card.pinned = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
    });
    send.addEventListener('submit', (event) => {
      event.preventDefault();
      if (!box.value.trim()) {
        show(outcome, 'Write a message first.', false);
        return;
      }
      act('/api/v1/actions/send', { to: agent, type: 'INFO', content: box.value, ack: false }, sentSummary, outcome)
        .then((r) => {
          if (r && r.ok) box.value = '';
        });
    });
    node.append(head, question, options, note, outcome, screen, send);
    return card;
  }

  function updateNeed(card, n) {
    const dialog = n.dialog && typeof n.dialog === 'object' ? n.dialog : null;
    card.question.textContent = text(dialog && dialog.question ? dialog.question : n.detail) || text(n.headline);
    let note = '';
    if (n.event === 'needs_input' && !dialog) {
      note = 'No dialog on its screen now: it may have been answered in its pane.';
    } else if (dialog && dialog.source === 'feed') {
      note = 'The options it showed when it asked: its screen cannot be read from here.';
    }
    card.note.textContent = note;
    card.note.hidden = !note;
    const fingerprint = dialog ? text(dialog.fingerprint) : '';
    // A new dialog, or none: what was answered is done.
    if (fingerprint !== card.fingerprint) card.busy = false;
    card.fingerprint = fingerprint;
    const shown = dialog ? JSON.stringify([fingerprint, dialog.options]) : '';
    if (shown !== card.shownOptions) {
      card.shownOptions = shown;
      card.options.replaceChildren(...(dialog ? optionButtons(card, list(dialog.options)) : []));
    }
    card.options.hidden = !dialog;
    for (const b of card.options.querySelectorAll('button')) b.disabled = card.busy;
    const screen = n.screen && typeof n.screen === 'object' ? n.screen : null;
    card.summary.textContent = screen ? 'Screen · ' + text(screen.state) : 'Screen · not on this machine';
    if (screen && screen.reason) card.summary.title = text(screen.reason);
    const rows = screen ? list(screen.rows).map(text).join('\n') : '';
    if (card.pre.textContent !== rows) card.pre.textContent = rows;
  }

  function optionButtons(card, options) {
    const buttons = options.filter((o) => o && typeof o === 'object').map((o) => {
      const b = el('button', 'answer' + (o.highlighted ? ' highlighted' : ''), text(o.number) + '. ' + text(o.label));
      b.type = 'button';
      b.dataset.option = text(o.number);
      b.title = 'pick it, as swarm answer ' + card.agent + ' ' + text(o.number);
      b.addEventListener('click', () => answer(card, { option: text(o.number), escape: false }));
      return b;
    });
    const cancel = el('button', 'cancel', 'Cancel (Esc)');
    cancel.type = 'button';
    cancel.title = 'cancel the dialog with Escape, as swarm answer ' + card.agent + ' --escape';
    cancel.addEventListener('click', () => answer(card, { option: null, escape: true }));
    buttons.push(cancel);
    return buttons;
  }

  // Answers the card's dialog: once it closed, the buttons stay off
  // until another dialog shows, so a second tap never answers the next
  // dialog unseen; the server also types nothing unless the dialog
  // on screen is the one shown (its fingerprint).
  function answer(card, choice) {
    card.busy = true;
    for (const b of card.options.querySelectorAll('button')) b.disabled = true;
    show(card.outcome, 'answering…', true);
    const body = { agent: card.agent, option: choice.option, escape: choice.escape, dialog: card.fingerprint || null };
    post('/api/v1/actions/answer', body)
      .then((r) => {
        if (r.ok) {
          show(card.outcome, 'Answered: ' + text(r.body.picked) +
            (r.body.closed ? '. The dialog closed.' : '. The dialog is still on its screen.'), true);
          // The same dialog still there may be answered again.
          card.busy = !!r.body.closed;
        } else {
          show(card.outcome, refusal(r), false);
          card.busy = false;
        }
      })
      .catch((e) => {
        show(card.outcome, failed(e), false);
        card.busy = false;
      })
      .then(() => {
        for (const b of card.options.querySelectorAll('button')) b.disabled = card.busy;
      });
  }

  // The activity feed (/api/v1/feed and the stream's `feed` events),
  // newest first.
  function renderActivity(body) {
    const entries = list(body && body.entries).filter((e) => e && typeof e === 'object');
    byId('activity').replaceChildren(...entries.slice().reverse().map(activityItem));
    byId('activity-empty').hidden = entries.length > 0;
    byId('activity-count').textContent = String(entries.length);
  }

  function activityItem(e) {
    const li = el('li', 'entry');
    let detail = text(e.detail);
    const options = list(e.options).filter((o) => o && typeof o === 'object');
    if (options.length) detail += ' [' + options.map((o) => text(o.number) + '. ' + text(o.label)).join(', ') + ']';
    if (e.by && e.by !== e.agent) detail += ' (by ' + text(e.by) + ')';
    li.append(
      timeNode('span', e.time),
      el('span', 'mono strong id', e.agent || 'swarm'),
      el('span', 'ev ' + eventClass(e.event), text(e.event).replace(/_/g, ' ')),
      el('span', 'detail', detail),
    );
    return li;
  }

  function problem(message) {
    byId('problem').textContent = message ? message : '';
  }

  function connection(label, kind) {
    const pill = byId('connection');
    pill.textContent = label;
    pill.className = 'pill pill-' + kind;
  }

  function load(path, render) {
    return fetch(path, { headers: { Accept: 'application/json' }, cache: 'no-store' })
      .then((r) => {
        if (!r.ok) throw new Error(path + ': HTTP ' + r.status);
        return r.json();
      })
      .then(render)
      .catch((e) => problem(text(e && e.message ? e.message : e)));
  }

  function handler(render) {
    return (event) => {
      try {
        render(JSON.parse(event.data));
      } catch (e) {
        problem('unreadable ' + event.type + ' event');
      }
    };
  }

  function connect() {
    const source = new EventSource('/api/v1/stream');
    state.source = source;
    source.addEventListener('connected', () => {
      state.attempts = 0;
      connection('live', 'live');
      problem('');
    });
    source.addEventListener('agents', handler(renderAgents));
    source.addEventListener('locks', handler((b) => { renderLocks(b); refreshAgent(); }));
    source.addEventListener('acks', handler((b) => { renderAcks(b); refreshAgent(); }));
    source.addEventListener('messages', handler((b) => {
      takeMessages(b, false);
      refreshAgent();
      if (state.search) runSearch(state.search);
    }));
    source.addEventListener('stats', handler(renderStats));
    source.addEventListener('attention', handler(renderNeeds));
    source.addEventListener('feed', handler(renderActivity));
    source.addEventListener('heartbeat', handler((b) => {
      byId('connection').title = 'last heartbeat ' + clock(b && b.timestamp);
    }));
    // The server's own `error` events carry data; the browser's (the
    // connection failed) do not.
    source.addEventListener('error', (event) => {
      if (event instanceof MessageEvent && event.data) {
        handler((b) => problem('server: ' + text(b && b.error)))(event);
        return;
      }
      if (source.readyState === EventSource.CLOSED) {
        source.close();
        if (state.attempts < RECONNECTS) {
          state.attempts += 1;
          connection('reconnecting…', 'wait');
          setTimeout(connect, 2000 * state.attempts);
        } else {
          connection('disconnected', 'down');
          problem('The connection to the dashboard was lost; reload the page to try again.');
        }
      } else {
        connection('reconnecting…', 'wait');
      }
    });
  }

  function start() {
    setupCompose();
    setupSearch();
    setupRelease();
    byId('agent-view-close').addEventListener('click', () => {
      state.viewing = null;
      byId('agent-view').hidden = true;
    });
    Promise.all([
      load('/api/v1/attention', renderNeeds),
      load('/api/v1/feed?limit=50', renderActivity),
      load('/api/v1/agents', renderAgents),
      load('/api/v1/locks', renderLocks),
      load('/api/v1/acks', renderAcks),
      loadOverlaps(),
      load('/api/v1/messages?limit=' + MAX_MESSAGES, (b) => takeMessages(b, true)),
      load('/api/v1/stats', renderStats),
      loadDelivery(),
      loadUsage(),
    ]).then(connect);
    setInterval(tick, 10000);
    setInterval(loadDelivery, DELIVERY_EVERY_MS);
    setInterval(loadOverlaps, DELIVERY_EVERY_MS);
    setInterval(loadUsage, USAGE_EVERY_MS);
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
