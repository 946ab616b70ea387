// The widget's state and its talk with the service: the visitor's storage, API calls with the publishable
// key, and the conversation's event stream read with fetch (EventSource cannot send the key's headers).

/** Where the visitor token and the conversation id live: `local`, `session` or `memory` (the business's choice). */
function createStore(persistence, key) {
  var memory = {};
  var area = null;
  try {
    area = persistence === 'session' ? window.sessionStorage : persistence === 'memory' ? null : window.localStorage;
    if (area) { area.setItem(key + ':probe', '1'); area.removeItem(key + ':probe'); }
  } catch (e) { area = null; } // storage refused (privacy settings, sandboxed frame): memory only
  function read() {
    if (!area) return memory;
    try { return JSON.parse(area.getItem(key) || '{}') || {}; } catch (e) { return {}; }
  }
  return {
    get: function (name) { return read()[name]; },
    set: function (name, value) {
      var all = read();
      if (value === undefined) delete all[name]; else all[name] = value;
      if (!area) { memory = all; return; }
      try { area.setItem(key, JSON.stringify(all)); } catch (e) { memory = all; area = null; }
    },
  };
}

/** API calls as the visitor: the publishable key, the visitor token once there is one, the identity JWT once given. */
function createApi(base, pk, store) {
  var identity = null;
  function headers(extra) {
    var h = { Authorization: 'Bearer ' + pk };
    var token = store.get('token');
    if (token) h['X-Visitor-Token'] = token;
    if (identity) h['X-Visitor-Identity'] = identity;
    for (var k in extra) h[k] = extra[k];
    return h;
  }
  function call(method, path, body, retried) {
    return fetch(base + path, {
      method: method,
      headers: headers(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
    }).then(function (res) {
      // Rate limited: once more after the wait the service names.
      if (res.status === 429 && !retried) {
        var wait = Math.min(10, Number(res.headers.get('Retry-After')) || 1) * 1000;
        return new Promise(function (r) { setTimeout(r, wait); }).then(function () { return call(method, path, body, true); });
      }
      return res.text().then(function (text) {
        var json = null;
        try { json = text ? JSON.parse(text) : null; } catch (e) { /* not JSON */ }
        return { status: res.status, body: json };
      });
    });
  }
  return {
    call: call,
    headers: headers,
    setIdentity: function (jwt) { identity = jwt || null; },
    hasIdentity: function () { return identity !== null; },
  };
}

/**
 * Reads GET /v1/conversations/{id}/events and calls `onEvent({id, event, data})` for each event. After a
 * dropped connection it reconnects with Last-Event-ID (the last id seen), so the service sends exactly what
 * was missed; `onState('live'|'reconnecting'|'ended'|'refused', status)` reports the connection.
 */
function openStream(base, api, conversationId, onEvent, onState) {
  var lastId = null;
  var stopped = false;
  var controller = null;
  var attempt = 0;
  var timer = null;

  function connect() {
    if (stopped) return;
    controller = new AbortController();
    var extra = { Accept: 'text/event-stream' };
    if (lastId !== null) extra['Last-Event-ID'] = lastId;
    fetch(base + '/v1/conversations/' + encodeURIComponent(conversationId) + '/events', {
      headers: api.headers(extra), signal: controller.signal, credentials: 'omit', cache: 'no-store',
    }).then(function (res) {
      if (res.status === 401 || res.status === 403 || res.status === 404) { stopped = true; onState('refused', res.status); return; }
      if (!res.ok || !res.body) throw new Error('stream ' + res.status);
      attempt = 0;
      onState('live');
      return read(res.body.getReader());
    }).then(function (closed) {
      if (closed === true) { stopped = true; onState('ended'); }
      else retry();
    }, function () { retry(); });
  }

  function retry() {
    if (stopped) return;
    onState('reconnecting');
    attempt++;
    var delay = Math.min(15000, 500 * Math.pow(2, attempt - 1)) * (0.75 + Math.random() * 0.5);
    timer = setTimeout(connect, delay);
  }

  /** Parses the bytes as they come; resolves true once conversation.closed was read (the stream's end). */
  function read(reader) {
    var decoder = new TextDecoder();
    var buffer = '';
    var closed = false;
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) return closed;
        buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, '\n');
        var cut;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          var block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          var e = parseEvent(block);
          if (!e) continue;
          if (e.id !== undefined) lastId = e.id;
          if (e.event === 'conversation.closed') closed = true;
          try { onEvent(e); } catch (err) { if (window.console) console.error(err); }
        }
        return pump();
      });
    }
    return pump();
  }

  connect();
  return {
    /** Drops the connection now and reconnects as after a network drop (the `online` event, a test). */
    reconnect: function () {
      if (stopped) return;
      clearTimeout(timer);
      if (controller) controller.abort();
    },
    stop: function () { stopped = true; clearTimeout(timer); if (controller) controller.abort(); },
  };
}

function parseEvent(block) {
  var e = { event: 'message', data: '' };
  var any = false;
  var lines = block.split('\n');
  for (var i = 0; i < lines.length; i++) {
    var line = lines[i];
    if (!line || line.charAt(0) === ':') continue;
    var colon = line.indexOf(':');
    var field = colon < 0 ? line : line.slice(0, colon);
    var value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') e.id = value;
    else if (field === 'event') e.event = value;
    else if (field === 'data') e.data += (e.data ? '\n' : '') + value;
    else continue;
    any = true;
  }
  if (!any) return null;
  try { e.data = e.data ? JSON.parse(e.data) : {}; } catch (err) { return null; }
  return e;
}

/** A message's cited sources as links: only http(s) URLs, once each. */
function citationsOf(list) {
  var out = [];
  for (var i = 0; list && i < list.length; i++) {
    var c = list[i];
    if (!c || !c.url || !/^https?:\/\//i.test(c.url)) continue;
    if (out.some(function (o) { return o.url === c.url; })) continue;
    out.push({ title: String(c.title || c.url).slice(0, 200), url: c.url });
  }
  return out;
}

/** Whether the proactive message is meant for this path: no paths = everywhere; `/x*` = a prefix; else exact. */
function pathMatches(paths, pathname) {
  if (!paths || paths.length === 0) return true;
  return paths.some(function (p) {
    p = String(p);
    return p.slice(-1) === '*' ? pathname.indexOf(p.slice(0, -1)) === 0 : pathname === p;
  });
}
