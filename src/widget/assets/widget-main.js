// Start-up and the conversation's logic: read the tag, fetch the agent's widget settings, restore the
// visitor's conversation, render the stream's events (deduplicated by message id and event id), post the
// visitor's messages, and the page's API on window.Converse.

var DEFAULTS = { agent_id: null, agent_name: null, theme_color: '#2563eb', position: 'bottom-right', greeting: null, proactive: null, identity: 'optional', persistence: 'local' };

function boot(script) {
  var base = new URL(script.src, location.href).origin;
  var pk = script.getAttribute('data-key') || '';
  var listeners = { message: [], open: [], close: [] };
  var pendingCalls = [];
  var ready = null;
  function emit(name, value) { (listeners[name] || []).forEach(function (fn) { try { fn(value); } catch (e) { if (window.console) console.error(e); } }); }

  // The page's API: calls made before the settings arrive run once the widget is up.
  var api = {
    open: function () { later(function (w) { w.open(); }); },
    close: function () { later(function (w) { w.close(); }); },
    identify: function (jwt) { later(function (w) { w.identify(jwt); }); },
    on: function (name, fn) { if (listeners[name] && typeof fn === 'function') listeners[name].push(fn); return api; },
    off: function (name, fn) { if (listeners[name]) listeners[name] = listeners[name].filter(function (f) { return f !== fn; }); return api; },
  };
  function later(fn) { if (ready) fn(ready); else pendingCalls.push(fn); }
  var queued = window.Converse && window.Converse.q;
  window.Converse = api;
  if (!/^pk_(test|live)_/.test(pk)) { if (window.console) console.error('Converse widget: data-key must be a publishable key (pk_test_… or pk_live_…)'); return; }

  fetch(base + '/v1/widget_config', { headers: { Authorization: 'Bearer ' + pk }, credentials: 'omit' })
    .then(function (res) { return res.ok ? res.json() : null; })
    .catch(function () { return null; })
    .then(function (config) {
      var settings = {};
      for (var k in DEFAULTS) settings[k] = config && config[k] != null ? config[k] : DEFAULTS[k];
      if (!/^#[0-9a-f]{6}$/i.test(settings.theme_color)) settings.theme_color = DEFAULTS.theme_color;
      settings.agent_id = settings.agent_id || script.getAttribute('data-agent');
      ready = start(base, pk, settings, emit);
      pendingCalls.splice(0).forEach(function (fn) { fn(ready); });
      if (Array.isArray(queued)) queued.forEach(function (c) { if (c && api[c[0]]) api[c[0]].apply(null, [].slice.call(c, 1)); });
      // The page's identify() (if any) is in by now: the visitor's previous conversation comes back.
      ready.restore();
    });
}

function start(base, pk, settings, emit) {
  var langs = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
  var words = pickStrings(langs);
  var t = words.t;
  var name = settings.agent_name || '';
  var store = createStore(settings.persistence, 'converse:' + pk);
  var api = createApi(base, pk, store);
  var seen = {};       // message ids shown
  var oldest = null;   // created_at of the oldest message restored: older replayed ones are not shown again
  var pending = [];    // the visitor's messages sent, not yet seen on the stream
  var streams = {};    // run id -> the agent's reply being streamed
  var replies = {};    // run id -> the agent's finished reply bubble
  var stream = null;
  var proactive = null; // the proactive message's bubble while unanswered (its answer stores it)
  var conversationId = store.get('conversation') || null;
  var waitingForIdentity = false;
  var view = createView({ t: t, lang: words.lang, name: name, color: settings.theme_color, position: settings.position,
    onSend: sendMessage, onOpen: function () { emit('open'); }, onClose: function () { emit('close'); } });
  if (settings.greeting) view.bubble('agent', settings.greeting).node.classList.add('greeting');
  refreshComposer();

  function refreshComposer() {
    var blocked = settings.identity === 'required' && !api.hasIdentity();
    view.composer(!blocked);
    view.status(blocked ? t.signin : '');
  }

  function onEvent(e) {
    var d = e.data || {};
    if (e.event === 'reply.delta') {
      var s = streams[d.run_id];
      if (!s) {
        if (replies[d.run_id]) return; // already finished (a replayed delta)
        s = streams[d.run_id] = view.bubble('agent', '');
        s.streaming(true);
      }
      s.append(d.text || '');
    } else if (e.event === 'reply.retracted') {
      // The deltas of that run are withdrawn: its stored message (if any) follows.
      if (streams[d.run_id]) { streams[d.run_id].remove(); delete streams[d.run_id]; }
    } else if (e.event === 'conversation.message') {
      showMessage(d);
    } else if (e.event === 'conversation.handoff') {
      view.handoff(true);
    } else if (e.event === 'conversation.handoff.closed') {
      view.handoff(false);
    } else if (e.event === 'typing') {
      view.typing(d.expires_in_ms || 5000);
    } else if (e.event === 'conversation.closed') {
      view.handoff(false);
      view.bubble('system', t.closed);
      endConversation();
    }
  }

  /** A stored message, once (by id); `history`: restored on load, neither announced nor emitted. */
  function showMessage(m, history) {
    if (!m.id || seen[m.id]) return;
    seen[m.id] = true;
    if (!history && oldest && m.created_at < oldest) return;
    var b;
    // The proactive message this page showed, stored now that the visitor answered it: the same bubble.
    if (m.kind === 'proactive' && proactive) { b = proactive; proactive = null; }
    else if (m.role === 'customer' && pending.length) {
      // The visitor's own message, sent from this page: its pending bubble takes the stored text (which
      // redaction may have changed); the same text first, else the oldest.
      var i = pending.findIndex(function (p) { return p.text === m.content; });
      b = pending[i < 0 ? 0 : i].bubble;
      pending.splice(i < 0 ? 0 : i, 1);
      b.pending(false);
      b.setText(m.content);
    } else if (m.role === 'agent' && m.run_id && streams[m.run_id]) {
      b = streams[m.run_id];
      delete streams[m.run_id];
      b.streaming(false);
      if (b.text() !== m.content) b.setText(m.content);
    }
    // A proactive message is the agent's line (role system only to keep it apart from the agent's answers).
    if (!b) b = view.bubble(m.kind === 'proactive' ? 'agent' : m.role === 'agent' || m.role === 'human' || m.role === 'system' ? m.role : 'customer', m.content);
    if (m.role === 'human' || m.role === 'agent') view.typing(0);
    if (m.role === 'agent' && m.run_id) replies[m.run_id] = b;
    var cites = citationsOf(m.citations);
    if (cites.length) b.citations(cites);
    if (history) return;
    if (m.role !== 'customer') view.announce(m.role, m.content);
    emitMessage(m);
  }

  /** The host page's on('message'), once per message (the stream and the POST's answer are deduplicated by `seen`). */
  function emitMessage(m) {
    emit('message', { id: m.id, role: m.role, content: m.content, created_at: m.created_at, conversation_id: m.conversation_id });
  }

  function listen() {
    if (stream || !conversationId) return;
    stream = openStream(base, api, conversationId, onEvent, function (state, status) {
      if (state === 'live') { view.status(''); refreshComposer(); }
      else if (state === 'reconnecting') view.status(t.reconnecting);
      else if (state === 'refused') {
        stream = null;
        if (!awaitIdentity(status)) endConversation();
      }
    });
  }

  /** A conversation linked to a signed-in customer is readable again once the page identifies them. */
  function awaitIdentity(status) {
    if ((status === 401 || status === 404) && !api.hasIdentity()) { waitingForIdentity = true; return true; }
    return false;
  }

  /** The visitor's conversation after a reload: its messages (the latest 100), then its stream from the start (deduplicated). */
  function restore() {
    if (!conversationId) return;
    api.call('GET', '/v1/conversations/' + encodeURIComponent(conversationId) + '/messages?order=desc&limit=100').then(function (res) {
      if (res.status !== 200) { if (!awaitIdentity(res.status)) endConversation(); return; }
      var list = res.body.data.slice().reverse();
      if (list.length && res.body.has_more) oldest = list[0].created_at;
      list.forEach(function (m) { showMessage(m, true); });
      listen();
    }, function () { listen(); });
  }

  function endConversation() {
    if (stream) stream.stop();
    stream = null;
    conversationId = null;
    store.set('conversation', undefined);
    streams = {};
  }

  function ensureConversation() {
    // The previous conversation is a signed-in customer's and this page has not identified them: a new one.
    if (waitingForIdentity) { waitingForIdentity = false; endConversation(); }
    if (conversationId) return Promise.resolve(conversationId);
    if (!settings.agent_id) return Promise.reject(new Error('Converse widget: no agent (widget_config or data-agent)'));
    return api.call('POST', '/v1/conversations', { agent_id: settings.agent_id }).then(function (res) {
      if (res.status !== 201) throw new Error('open ' + res.status);
      if (res.body.visitor_token) store.set('token', res.body.visitor_token);
      conversationId = res.body.id;
      store.set('conversation', conversationId);
      listen();
      return conversationId;
    });
  }

  function sendMessage(text) {
    var b = view.bubble('customer', text);
    b.pending(true);
    var entry = { text: text, bubble: b };
    pending.push(entry);
    view.status('');
    // The first answer to the proactive message shown here stores that message before it.
    var answers = !!proactive && !proactive.sent;
    if (answers) proactive.sent = true;
    ensureConversation().then(function (id) {
      // Answered at once: the reply (with its citations) arrives on the stream.
      var body = { role: 'customer', content: text };
      if (answers) body.answers_proactive = true;
      return api.call('POST', '/v1/conversations/' + encodeURIComponent(id) + '/messages?wait_ms=0', body);
    }).then(function (res) {
      if (res.status !== 201) throw new Error('post ' + res.status);
      var m = res.body;
      // The stream normally shows the message first; if not, it is shown now (and deduplicated later).
      var at = pending.indexOf(entry);
      if (at >= 0) {
        pending.splice(at, 1);
        if (seen[m.id]) b.remove();
        else { seen[m.id] = true; b.pending(false); b.setText(m.content); emitMessage(m); }
      }
    }).catch(function (err) {
      if (window.console) console.warn(err);
      if (answers && proactive) proactive.sent = false;
      // A dropped connection may have delivered it: the stream shows it if so; otherwise it is withdrawn.
      var dropped = err instanceof TypeError;
      setTimeout(function () {
        var i = pending.indexOf(entry);
        if (i < 0) return;
        pending.splice(i, 1);
        b.remove();
        view.status(t.failed);
      }, dropped ? 15000 : 0);
    });
  }

  window.addEventListener('online', function () { if (stream) stream.reconnect(); });

  // A proactive message: shown after its delay on the chosen paths; stored only with the visitor's answer.
  var p = settings.proactive;
  if (p && p.message && !conversationId && pathMatches(p.paths, location.pathname)) {
    setTimeout(function () {
      if (conversationId) return;
      proactive = view.bubble('agent', p.message);
      proactive.node.classList.add('proactive');
      view.teaser(p.message);
    }, Math.max(0, Number(p.delay_seconds) || 0) * 1000);
  }

  return {
    open: function () { view.open(); emit('open'); },
    close: function () { view.close(); emit('close'); },
    identify: function (jwt) {
      api.setIdentity(typeof jwt === 'string' && jwt ? jwt : null);
      refreshComposer();
      if (waitingForIdentity) { waitingForIdentity = false; restore(); }
    },
    restore: restore,
  };
}

boot(document.currentScript || document.querySelector('script[data-key][src*="widget.js"]'));
