// The widget's view in its shadow root: a launcher button, and the conversation as a WAI-ARIA dialog
// (labelled, focus kept inside while open, Esc closes, focus back on the launcher), finished messages
// announced through a polite live region (streamed text is not read out word by word).

function el(tag, attrs, children) {
  var node = document.createElement(tag);
  for (var k in attrs || {}) {
    if (k === 'text') node.textContent = attrs[k];
    else if (k === 'hidden') node.hidden = !!attrs[k];
    else node.setAttribute(k, attrs[k]);
  }
  (children || []).forEach(function (c) { if (c) node.appendChild(c); });
  return node;
}

var ICON_CHAT = '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H8l-5 4V5a2 2 0 0 1 2-2z"/></svg>';
var ICON_CLOSE = '<svg viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path d="M6.4 5 5 6.4 10.6 12 5 17.6 6.4 19l5.6-5.6 5.6 5.6 1.4-1.4-5.6-5.6L19 6.4 17.6 5 12 10.6z"/></svg>';

/** Text to put on the theme colour: white or near-black, whichever contrasts more (WCAG relative luminance). */
function textOn(hex) {
  var m = /^#([0-9a-f]{6})$/i.exec(hex || '');
  if (!m) return '#ffffff';
  var n = parseInt(m[1], 16);
  var lum = [n >> 16, (n >> 8) & 255, n & 255].map(function (v) {
    v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  });
  var L = 0.2126 * lum[0] + 0.7152 * lum[1] + 0.0722 * lum[2];
  return (1.05 / (L + 0.05)) >= ((L + 0.05) / 0.05) ? '#ffffff' : '#111827';
}

function createView(opts) {
  var t = opts.t;
  var fill = function (s, vars) { return s.replace(/\{(\w+)\}/g, function (_m, k) { return vars[k] != null ? vars[k] : ''; }); };
  var host = document.createElement('converse-widget');
  // Inline and !important: a page rule cannot hide or move the host (the rest is inside the shadow root).
  host.setAttribute('style', 'all: initial !important; display: block !important; position: fixed !important; width: 0 !important; height: 0 !important; ' +
    'bottom: 0 !important; right: 0 !important; z-index: 2147483000 !important; visibility: visible !important; opacity: 1 !important; transform: none !important;');
  var shadow = host.attachShadow({ mode: 'open' });
  var style = document.createElement('style');
  style.textContent = CSS;
  shadow.appendChild(style);

  var root = el('div', { class: 'root ' + (opts.position === 'bottom-left' ? 'left' : 'right'), lang: opts.lang });
  root.style.setProperty('--c', opts.color);
  root.style.setProperty('--on', textOn(opts.color));
  var badge = el('span', { class: 'badge', hidden: true, 'aria-hidden': 'true' });
  var launcher = el('button', { type: 'button', class: 'launcher', 'aria-label': t.open, 'aria-haspopup': 'dialog', 'aria-expanded': 'false', 'aria-controls': 'cw-dialog' });
  launcher.innerHTML = ICON_CHAT;
  launcher.appendChild(badge);
  var teaser = el('button', { type: 'button', class: 'teaser', hidden: true });

  var title = el('h2', { id: 'cw-title', text: opts.name ? fill(t.title, { name: opts.name }) : t.titleAny });
  var closeButton = el('button', { type: 'button', class: 'x', 'aria-label': t.close });
  closeButton.innerHTML = ICON_CLOSE;
  closeButton.firstChild.setAttribute('width', '20');
  closeButton.firstChild.setAttribute('height', '20');
  closeButton.firstChild.style.fill = 'currentColor';
  var banner = el('div', { class: 'banner', role: 'status', hidden: true, text: t.handoff });
  var status = el('div', { class: 'status', role: 'alert', hidden: true });
  var log = el('div', { class: 'log', role: 'log', 'aria-label': t.conversation, 'aria-live': 'off', tabindex: '0' });
  var typing = el('div', { class: 'typing', hidden: true, text: t.typing });
  var announcer = el('div', { class: 'sr', 'aria-live': 'polite', 'aria-atomic': 'true' });
  var input = el('textarea', { id: 'cw-input', rows: '1', placeholder: t.placeholder, maxlength: '4000' });
  var send = el('button', { type: 'submit', class: 'send', text: t.send });
  var form = el('form', {}, [el('label', { class: 'sr', for: 'cw-input', text: t.label }), input, send]);
  var dialog = el('div', { id: 'cw-dialog', class: 'dialog', role: 'dialog', 'aria-modal': 'true', 'aria-labelledby': 'cw-title', hidden: true },
    [el('header', {}, [title, closeButton]), banner, status, log, typing, form, announcer]);
  root.appendChild(dialog);
  root.appendChild(teaser);
  root.appendChild(launcher);
  shadow.appendChild(root);
  (document.body || document.documentElement).appendChild(host);

  var unread = 0;
  var typingTimer = null;

  function isOpen() { return !dialog.hidden; }
  function open() {
    if (isOpen()) return;
    dialog.hidden = false;
    teaser.hidden = true;
    root.classList.add('open');
    launcher.setAttribute('aria-expanded', 'true');
    launcher.setAttribute('aria-label', t.close);
    launcher.firstChild.outerHTML = ICON_CLOSE;
    unread = 0;
    badge.hidden = true;
    scroll();
    input.focus();
  }
  function close() {
    if (!isOpen()) return;
    dialog.hidden = true;
    root.classList.remove('open');
    launcher.setAttribute('aria-expanded', 'false');
    launcher.setAttribute('aria-label', t.open);
    launcher.firstChild.outerHTML = ICON_CHAT;
    launcher.focus();
  }
  launcher.addEventListener('click', function () { if (isOpen()) { close(); opts.onClose(); } else { open(); opts.onOpen(); } });
  teaser.addEventListener('click', function () { open(); opts.onOpen(); });
  closeButton.addEventListener('click', function () { close(); opts.onClose(); });
  // The dialog keeps focus while open: Tab and Shift+Tab cycle its controls; Esc closes it.
  dialog.addEventListener('keydown', function (ev) {
    if (ev.key === 'Escape') { ev.preventDefault(); close(); opts.onClose(); return; }
    if (ev.key !== 'Tab') return;
    var items = Array.prototype.filter.call(dialog.querySelectorAll('button, textarea, a[href], [tabindex="0"]'), function (n) { return !n.disabled && n.offsetParent !== null; });
    if (!items.length) return;
    var first = items[0];
    var last = items[items.length - 1];
    var active = shadow.activeElement;
    if (ev.shiftKey && (active === first || !dialog.contains(active))) { ev.preventDefault(); last.focus(); }
    else if (!ev.shiftKey && (active === last || !dialog.contains(active))) { ev.preventDefault(); first.focus(); }
  });
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var text = input.value.trim();
    if (!text || send.disabled) return;
    input.value = '';
    opts.onSend(text);
  });
  input.addEventListener('keydown', function (ev) {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) { ev.preventDefault(); form.requestSubmit ? form.requestSubmit() : form.dispatchEvent(new Event('submit')); }
  });

  function scroll() { log.scrollTop = log.scrollHeight; }
  function whoLabel(role, name) {
    return role === 'customer' ? t.you : role === 'human' ? (name || t.human) : role === 'system' ? t.notice : (opts.name || t.assistant);
  }
  /** A message bubble: `role` customer, agent, human or system. */
  function bubble(role, text, name) {
    var body = el('span', { class: 'text', text: text });
    var node = el('div', { class: 'msg ' + role }, [el('span', { class: 'who', text: whoLabel(role, name) }), body]);
    log.appendChild(node);
    scroll();
    return {
      node: node,
      setText: function (s) { body.textContent = s; scroll(); },
      append: function (s) { body.textContent += s; scroll(); },
      text: function () { return body.textContent; },
      streaming: function (on) { node.classList.toggle('streaming', !!on); },
      pending: function (on) { node.classList.toggle('pending', !!on); },
      citations: function (list) {
        var old = node.querySelector('.sources');
        if (old) old.remove();
        if (!list || !list.length) return;
        var ol = el('ol');
        list.forEach(function (c) { ol.appendChild(el('li', {}, [el('a', { href: c.url, target: '_blank', rel: 'noopener noreferrer', text: c.title })])); });
        node.appendChild(el('div', { class: 'sources', role: 'group', 'aria-label': t.sources }, [el('span', { text: t.sources }), ol]));
        scroll();
      },
      remove: function () { node.remove(); },
    };
  }

  return {
    host: host,
    open: open,
    close: close,
    isOpen: isOpen,
    bubble: bubble,
    /** Reads a finished message out (screen readers) and counts it unread while the dialog is closed. */
    announce: function (role, text, name) {
      announcer.textContent = whoLabel(role, name) + ': ' + text;
      if (!isOpen() && role !== 'customer') {
        unread++;
        badge.textContent = String(unread);
        badge.hidden = false;
        launcher.setAttribute('aria-label', t.open + ' (' + fill(t.newFrom, { who: whoLabel(role, name) }) + ')');
      }
    },
    handoff: function (on) { banner.hidden = !on; },
    typing: function (ms) {
      clearTimeout(typingTimer);
      typing.hidden = !(ms > 0);
      if (ms > 0) typingTimer = setTimeout(function () { typing.hidden = true; }, ms);
    },
    status: function (text) { status.hidden = !text; status.textContent = text || ''; },
    composer: function (enabled) { input.disabled = !enabled; send.disabled = !enabled; },
    teaser: function (text) { teaser.textContent = text; teaser.hidden = isOpen(); },
    clear: function () { log.textContent = ''; banner.hidden = true; },
  };
}
