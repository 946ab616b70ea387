// The live inbox: the list and the open conversation follow GET /console/inbox/events (server-sent events);
// browser notifications when a conversation needs the team; saved replies inserted into the reply.
(function () {
  'use strict';
  var list = document.querySelector('[data-inbox-live]');
  var open = document.querySelector('[data-conversation-live]');
  var bell = document.querySelector('[data-enable-notifications]');
  if (!list && !open) return;

  // Notifications: asked for on a click (browsers refuse a request made without one).
  if (bell && 'Notification' in window && Notification.permission === 'default') {
    bell.hidden = false;
    bell.addEventListener('click', function () { Notification.requestPermission().then(function () { bell.hidden = true; }); });
  }
  function notify(d) {
    if (!d.alert || !('Notification' in window) || Notification.permission !== 'granted') return;
    if (open && open.dataset.conversationLive === d.id && document.visibilityState === 'visible') return;
    var n = new Notification(d.title, { body: d.body, tag: d.id });
    n.onclick = function () { window.focus(); location.href = '/console/inbox/' + d.id; };
  }

  var params = list ? list.dataset.inboxLive : 'since=' + encodeURIComponent(new Date().toISOString());
  var es = new EventSource('/console/inbox/events?' + params);
  window.__inboxStream = es;
  es.addEventListener('inbox.counts', function (e) {
    var counts = JSON.parse(e.data);
    Object.keys(counts).forEach(function (k) { document.querySelectorAll('[data-count="' + k + '"]').forEach(function (c) { c.textContent = String(counts[k]); }); });
  });
  es.addEventListener('inbox.conversation', function (e) {
    var d = JSON.parse(e.data);
    notify(d);
    if (list) updateList(d);
    if (open && open.dataset.conversationLive === d.id) refreshConversation();
  });

  // The list: the row is replaced, moved to its place (the queue oldest first, the rest newest first), or removed.
  function updateList(d) {
    var body = list.querySelector('tbody');
    var row = body.querySelector('tr[data-conversation="' + d.id + '"]');
    // A search result list is only updated in place (whether a change matches the search is not known here).
    if (!d.in_view || (list.dataset.searching && !row)) { if (row && !list.dataset.searching) row.remove(); return toggleEmpty(); }
    var t = document.createElement('tbody'); t.innerHTML = d.html;
    var fresh = t.firstElementChild;
    if (row) row.remove();
    var asc = list.dataset.order === 'asc';
    var before = Array.prototype.find.call(body.children, function (r) { var s = Number(r.dataset.sort); return asc ? s > d.sort : s < d.sort; });
    body.insertBefore(fresh, before || null);
    fresh.classList.add('flash');
    toggleEmpty();
  }
  function toggleEmpty() {
    var empty = list.querySelector('tbody').children.length === 0;
    list.hidden = empty;
    var msg = document.querySelector('[data-inbox-empty]'); if (msg) msg.hidden = !empty;
  }

  // The open conversation: its transcript, notes and assignee are read again (the reply being typed stays).
  function refreshConversation() {
    fetch(location.pathname, { headers: { accept: 'text/html' }, credentials: 'same-origin' }).then(function (r) { return r.text(); }).then(function (text) {
      var doc = new DOMParser().parseFromString(text, 'text/html');
      ['[data-transcript]', '[data-customer-panel]'].forEach(function (sel) {
        var now = document.querySelector(sel), next = doc.querySelector(sel);
        if (now && next) now.replaceWith(next);
      });
    });
  }

  // Saved replies: the text with this conversation's variables filled in, inserted where the cursor is.
  var picker = document.querySelector('[data-saved-replies]');
  if (picker) picker.querySelector('[data-saved-reply-insert]').addEventListener('click', function () {
    var id = picker.querySelector('[data-saved-reply-select]').value;
    fetch('/console/inbox/' + picker.dataset.savedReplies + '/saved-replies/' + encodeURIComponent(id), { headers: { accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (r) { return r.json(); })
      .then(function (b) {
        var reply = document.querySelector('[data-reply]'); if (!reply || typeof b.content !== 'string') return;
        var at = reply.selectionStart != null ? reply.selectionStart : reply.value.length;
        reply.value = reply.value.slice(0, at) + b.content + reply.value.slice(reply.selectionEnd != null ? reply.selectionEnd : at);
        reply.focus();
      });
  });
})();
