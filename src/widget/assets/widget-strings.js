// The widget's own words, by the visitor's language (navigator.language; English otherwise).
// `{name}` is the agent's name, `{who}` a sender's.
var STRINGS = {
  en: {
    open: 'Open chat', close: 'Close chat', title: 'Chat with {name}', titleAny: 'Chat with us', assistant: 'Assistant', conversation: 'Conversation',
    label: 'Your message', placeholder: 'Type your message…', send: 'Send', you: 'You', 
    human: 'Support team', notice: 'Notice', sources: 'Sources', typing: 'Someone is typing…',
    handoff: 'A person will reply here.', reconnecting: 'Connection lost. Reconnecting…',
    failed: 'Your message could not be sent. Please try again.', closed: 'This conversation has ended. Write to start a new one.',
    signin: 'Please sign in to chat with us.', unread: 'New message', newFrom: 'New message from {who}',
  },
  de: {
    open: 'Chat öffnen', close: 'Chat schließen', title: 'Chat mit {name}', titleAny: 'Chatten Sie mit uns', assistant: 'Assistent', conversation: 'Unterhaltung',
    label: 'Ihre Nachricht', placeholder: 'Nachricht eingeben…', send: 'Senden', you: 'Sie', 
    human: 'Support-Team', notice: 'Hinweis', sources: 'Quellen', typing: 'Jemand schreibt…',
    handoff: 'Eine Person wird Ihnen hier antworten.', reconnecting: 'Verbindung unterbrochen. Neuer Versuch…',
    failed: 'Ihre Nachricht konnte nicht gesendet werden. Bitte versuchen Sie es erneut.', closed: 'Diese Unterhaltung ist beendet. Schreiben Sie, um eine neue zu beginnen.',
    signin: 'Bitte melden Sie sich an, um mit uns zu chatten.', unread: 'Neue Nachricht', newFrom: 'Neue Nachricht von {who}',
  },
  fr: {
    open: 'Ouvrir le chat', close: 'Fermer le chat', title: 'Discuter avec {name}', titleAny: 'Discutez avec nous', assistant: 'Assistant', conversation: 'Conversation',
    label: 'Votre message', placeholder: 'Écrivez votre message…', send: 'Envoyer', you: 'Vous', 
    human: 'Équipe d’assistance', notice: 'Information', sources: 'Sources', typing: 'Quelqu’un écrit…',
    handoff: 'Une personne vous répondra ici.', reconnecting: 'Connexion perdue. Reconnexion…',
    failed: 'Votre message n’a pas pu être envoyé. Veuillez réessayer.', closed: 'Cette conversation est terminée. Écrivez pour en commencer une nouvelle.',
    signin: 'Veuillez vous connecter pour discuter avec nous.', unread: 'Nouveau message', newFrom: 'Nouveau message de {who}',
  },
  es: {
    open: 'Abrir el chat', close: 'Cerrar el chat', title: 'Chatea con {name}', titleAny: 'Chatea con nosotros', assistant: 'Asistente', conversation: 'Conversación',
    label: 'Tu mensaje', placeholder: 'Escribe tu mensaje…', send: 'Enviar', you: 'Tú', 
    human: 'Equipo de soporte', notice: 'Aviso', sources: 'Fuentes', typing: 'Alguien está escribiendo…',
    handoff: 'Una persona te responderá aquí.', reconnecting: 'Conexión perdida. Reconectando…',
    failed: 'No se pudo enviar tu mensaje. Inténtalo de nuevo.', closed: 'Esta conversación ha terminado. Escribe para empezar una nueva.',
    signin: 'Inicia sesión para chatear con nosotros.', unread: 'Mensaje nuevo', newFrom: 'Mensaje nuevo de {who}',
  },
};

/** The strings of the first of the visitor's languages the widget speaks. */
function pickStrings(languages) {
  for (var i = 0; i < languages.length; i++) {
    var base = String(languages[i] || '').toLowerCase().split('-')[0];
    if (STRINGS[base]) return { lang: base, t: STRINGS[base] };
  }
  return { lang: 'en', t: STRINGS.en };
}
