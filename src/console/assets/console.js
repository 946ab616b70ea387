// The console's little JavaScript: test chat over the runs' SSE, tool rows, live source status, uploads.
(function () {
  'use strict';
  var csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || '';
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; }

  // Confirmations for destructive forms.
  document.addEventListener('submit', function (ev) {
    var f = ev.target;
    if (f.dataset && f.dataset.confirm && !window.confirm(f.dataset.confirm)) ev.preventDefault();
  });

  // A person typing a reply: the conversation's streams show it (POST …/typing at most every 3 s while typing).
  var reply = document.querySelector('[data-reply]');
  var replyForm = reply && reply.closest('form');
  var typingSent = 0;
  if (reply && replyForm) {
    reply.addEventListener('input', function () {
      var now = Date.now();
      if (now - typingSent < 3000) return;
      typingSent = now;
      fetch(replyForm.getAttribute('action').replace(/\/reply$/, '/typing'), { method: 'POST', headers: { 'X-CSRF-Token': csrf }, credentials: 'same-origin' }).catch(function () {});
    });
  }

  // An approval given in the test chat: posted without leaving the page; the run's stream goes on.
  document.addEventListener('submit', function (ev) {
    var f = ev.target;
    if (!f.matches || !f.matches('[data-chat-log] [data-approval-form]')) return;
    ev.preventDefault();
    var body = { tool_call_id: f.tool_call_id.value, decision: ev.submitter && ev.submitter.value === 'reject' ? 'reject' : 'approve', note: f.note.value.trim() || undefined };
    fetch(f.getAttribute('action'), { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, accept: 'application/json' }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().then(function (b) { if (!r.ok) throw new Error(b.error ? b.error.message : 'The decision failed'); return b; }); })
      .then(function (b) { var d = el('div', 'approval-done'); d.innerHTML = b.decided; f.closest('[data-approval-panel]').replaceWith(d); })
      .catch(function (e) { var er = f.querySelector('.field-error') || f.appendChild(el('div', 'field-error')); er.textContent = e.message; });
  });

  // Tools: add from the template, remove a fieldset.
  var tools = document.querySelector('[data-tools]');
  var tpl = document.querySelector('[data-tool-template]');
  var next = tools ? tools.querySelectorAll('[data-tool]').length : 0;
  document.addEventListener('click', function (ev) {
    var t = ev.target;
    if (t.matches('[data-add-tool]') && tools && tpl) {
      var html = tpl.innerHTML.replace(/__i__/g, String(next++));
      var wrap = document.createElement('div'); wrap.innerHTML = html;
      var fs = wrap.firstElementChild; tools.appendChild(fs); fs.querySelector('input').focus();
    } else if (t.matches('[data-remove-tool]')) {
      t.closest('[data-tool]').remove();
    } else if (t.matches('[data-use-suggested]')) {
      var r = document.querySelector('[data-reply]'); r.value = document.querySelector('[data-suggested]').textContent; r.focus();
    } else if (t.matches('[data-copy]')) {
      navigator.clipboard && navigator.clipboard.writeText(t.parentNode.querySelector('[data-secret],[data-copy-source]').textContent); t.textContent = 'Copied';
    }
  });

  // Source form: show the fields of the chosen type.
  var typeSel = document.querySelector('[data-source-type]');
  function showType() { document.querySelectorAll('[data-for]').forEach(function (l) { l.hidden = l.dataset.for.split(' ').indexOf(typeSel.value) < 0; }); }
  if (typeSel) { typeSel.addEventListener('change', showType); showType(); }

  // Live source status: poll while something is indexing.
  var live = document.querySelector('[data-live-sources]');
  function pollSources() {
    if (!live || !live.querySelector('tr[data-status="indexing"]')) return;
    fetch('/console/knowledge/' + live.dataset.liveSources + '/sources.json', { headers: { accept: 'application/json' } })
      .then(function (r) { return r.json(); })
      .then(function (body) {
        body.data.forEach(function (s) {
          var row = live.querySelector('tr[data-source-id="' + s.id + '"]');
          if (row && row.dataset.status !== s.status) { var t = document.createElement('tbody'); t.innerHTML = s.html; row.replaceWith(t.firstElementChild); }
        });
        setTimeout(pollSources, 1000);
      }, function () { setTimeout(pollSources, 3000); });
  }
  setTimeout(pollSources, 1000);

  // Document upload: the file is the request body.
  var up = document.querySelector('[data-upload]');
  if (up) up.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var file = up.querySelector('input[type=file]').files[0]; if (!file) return;
    var errBox = up.querySelector('[data-upload-error]'); errBox.textContent = '';
    fetch('/console/knowledge/' + up.dataset.upload + '/documents', { method: 'POST', body: file, headers: { 'content-type': file.type || 'application/octet-stream', 'x-filename': encodeURIComponent(file.name), 'x-metadata': up.querySelector('[name=metadata]').value, 'x-csrf-token': csrf, accept: 'application/json' } })
      .then(function (r) { return r.json().then(function (b) { if (!r.ok) throw new Error(b.error ? b.error.message : 'Upload failed'); location.href = location.pathname + '?added=1'; }); })
      .catch(function (e) { errBox.textContent = e.message; });
  });

  // Test chat: post the message, then stream the run's events (reply.delta) and show what the run did.
  var chat = document.querySelector('[data-test-chat]');
  if (chat) {
    var log = chat.querySelector('[data-chat-log]');
    var form = chat.querySelector('[data-chat-form]');
    var conversationId = null;
    var newChat = function () { conversationId = null; log.innerHTML = ''; form.content.placeholder = 'Type a customer message…'; form.content.focus(); };
    chat.querySelector('[data-new-chat]').addEventListener('click', newChat);
    // After a handoff: go on as the customer (messages reach the inbox, no agent answers) or start over.
    log.addEventListener('click', function (ev) {
      if (ev.target.closest('[data-new-chat-after]')) newChat();
      if (ev.target.closest('[data-continue-as-customer]')) {
        var after = ev.target.closest('[data-after-handoff]'); if (after) after.querySelectorAll('button').forEach(function (b) { b.remove(); });
        form.content.placeholder = 'Write as the customer (a person answers in the inbox)…'; form.content.focus();
      }
    });
    form.addEventListener('submit', function (ev) {
      ev.preventDefault();
      var content = form.content.value.trim(); if (!content) return;
      var empty = log.querySelector('.chat-empty'); if (empty) empty.remove();
      log.appendChild(el('div', 'bubble customer', content));
      var reply = el('div', 'bubble agent', ''); reply.dataset.pending = '1';
      var status = el('div', 'muted chat-status', 'Thinking…');
      log.appendChild(reply); log.appendChild(status); log.scrollTop = log.scrollHeight;
      form.content.value = '';
      fetch('/console/agents/' + chat.dataset.agentId + '/test-chat', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf, accept: 'application/json' }, body: JSON.stringify({ content: content, conversation_id: conversationId || undefined }) })
        .then(function (r) { return r.json().then(function (b) { if (!r.ok) throw new Error(b.error ? b.error.message : 'The test chat failed'); return b; }); })
        .then(function (b) {
          conversationId = b.conversation_id;
          if (!b.run_id) {
            // Handed off: no agent run; the message waits in the inbox for the person who took over.
            reply.remove(); status.textContent = 'Sent to the inbox: a person answers there. ';
            if (b.inbox_url) { var a = el('a', '', 'Open in the inbox'); a.href = b.inbox_url; a.target = '_blank'; status.appendChild(a); }
            return;
          }
          var es = new EventSource('/console/runs/' + b.run_id + '/events');
          es.addEventListener('tool.called', function (e) { var d = JSON.parse(e.data); status.textContent = 'Calling ' + d.tool + '…'; });
          es.addEventListener('reply.delta', function (e) { reply.hidden = false; reply.textContent += JSON.parse(e.data).text; log.scrollTop = log.scrollHeight; });
          es.addEventListener('run.requires_action', function () {
            status.textContent = 'Waiting for an approval or a tool result…';
            if (!reply.textContent) reply.hidden = true;
            // A tool call to approve: its panel (Approve / Reject with a note) right here.
            fetch('/console/runs/' + b.run_id + '/approval').then(function (r) { return r.ok ? r.text() : ''; }).then(function (h) {
              if (!h.trim()) return;
              var slot = el('div', 'run-panel'); slot.innerHTML = h; status.after(slot); log.scrollTop = log.scrollHeight;
            });
          });
          es.addEventListener('run.completed', function () {
            es.close();
            fetch('/console/runs/' + b.run_id + '/panel').then(function (r) { return r.text(); }).then(function (h) {
              if (!reply.textContent) reply.remove();
              var panel = el('div', 'run-panel'); panel.innerHTML = h; status.replaceWith(panel); log.scrollTop = log.scrollHeight;
            });
          });
          es.onerror = function () { if (es.readyState === 2) status.textContent = 'The stream closed.'; };
        })
        .catch(function (e) { reply.remove(); status.className = 'field-error'; status.textContent = e.message; });
    });
  }
})();
