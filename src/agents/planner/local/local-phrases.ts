import type { Lang } from '../../../platform/text';

/** The fixed sentences the local planner writes itself, in the four languages it recognises. */
export interface Phrases {
  askFor: (what: string) => string;
  and: string;
  found: string;
  foundFor: (tool: string) => string;
  noDetails: string;
  yes: string;
  no: string;
  toolFailed: string;
  toolFailedPartly: (tool: string) => string;
  offerPerson: string;
  connecting: string;
  connectingOnRequest: string;
  noInformation: string;
  greeting: string;
  thanks: string;
  bye: string;
  ack: string;
  /** One short line when the answer quotes a passage in another language than the customer's. */
  answerFrom: (passageLanguage: Lang) => string;
}

const LANGUAGE_NAMES: Record<Lang, Record<Lang, string>> = {
  en: { en: 'English', de: 'German', fr: 'French', es: 'Spanish' },
  de: { en: 'englischsprachigen', de: 'deutschsprachigen', fr: 'französischsprachigen', es: 'spanischsprachigen' },
  fr: { en: 'anglais', de: 'allemand', fr: 'français', es: 'espagnol' },
  es: { en: 'inglés', de: 'alemán', fr: 'francés', es: 'español' },
};

export const PHRASES: Record<Lang, Phrases> = {
  en: {
    askFor: (what) => `Could you tell me your ${what}?`,
    and: 'and',
    found: "Here's what I found:",
    foundFor: (tool) => `${tool}:`,
    noDetails: 'I checked, but there are no details to share yet.',
    yes: 'yes',
    no: 'no',
    toolFailed: "I'm sorry, I couldn't look that up just now.",
    toolFailedPartly: (tool) => `I couldn't complete "${tool}" just now.`,
    offerPerson: 'If you like, I can connect you with a member of our team.',
    connecting: "Thanks for your patience. I'm connecting you with a member of our team who can help.",
    connectingOnRequest: "Of course. I'm connecting you with a member of our team now.",
    noInformation: "I'm sorry, I don't have information about that.",
    greeting: 'Hello! How can I help you today?',
    thanks: "You're welcome! Is there anything else I can help with?",
    bye: 'Goodbye, and thanks for getting in touch!',
    ack: 'Great. Is there anything else I can help with?',
    answerFrom: (lang) => `(Answer from our ${LANGUAGE_NAMES.en[lang]} help centre.)`,
  },
  de: {
    askFor: (what) => `Könnten Sie mir bitte Folgendes mitteilen: ${what}?`,
    and: 'und',
    found: 'Das habe ich gefunden:',
    foundFor: (tool) => `${tool}:`,
    noDetails: 'Ich habe nachgesehen, aber es gibt noch keine Details.',
    yes: 'ja',
    no: 'nein',
    toolFailed: 'Es tut mir leid, das konnte ich gerade nicht nachsehen.',
    toolFailedPartly: (tool) => `„${tool}“ konnte ich gerade nicht ausführen.`,
    offerPerson: 'Wenn Sie möchten, verbinde ich Sie mit einem Mitarbeiter.',
    connecting: 'Danke für Ihre Geduld. Ich verbinde Sie mit einem Mitarbeiter, der Ihnen weiterhilft.',
    connectingOnRequest: 'Gern. Ich verbinde Sie jetzt mit einem Mitarbeiter.',
    noInformation: 'Es tut mir leid, dazu habe ich keine Informationen.',
    greeting: 'Hallo! Wie kann ich Ihnen helfen?',
    thanks: 'Gern geschehen! Kann ich sonst noch etwas für Sie tun?',
    bye: 'Auf Wiedersehen und danke für Ihre Nachricht!',
    ack: 'Prima. Kann ich sonst noch etwas für Sie tun?',
    answerFrom: (lang) => `(Antwort aus unserem ${LANGUAGE_NAMES.de[lang]} Hilfe-Center.)`,
  },
  fr: {
    askFor: (what) => `Pourriez-vous m'indiquer les informations suivantes : ${what} ?`,
    and: 'et',
    found: "Voici ce que j'ai trouvé :",
    foundFor: (tool) => `${tool} :`,
    noDetails: "J'ai vérifié, mais il n'y a pas encore de détails.",
    yes: 'oui',
    no: 'non',
    toolFailed: "Je suis désolé, je n'ai pas pu vérifier cela pour le moment.",
    toolFailedPartly: (tool) => `Je n'ai pas pu effectuer « ${tool} » pour le moment.`,
    offerPerson: 'Si vous le souhaitez, je peux vous mettre en relation avec un conseiller.',
    connecting: 'Merci de votre patience. Je vous mets en relation avec un conseiller qui pourra vous aider.',
    connectingOnRequest: 'Bien sûr. Je vous mets en relation avec un conseiller.',
    noInformation: "Je suis désolé, je n'ai pas d'information à ce sujet.",
    greeting: 'Bonjour ! Comment puis-je vous aider ?',
    thanks: 'Je vous en prie ! Puis-je vous aider pour autre chose ?',
    bye: 'Au revoir et merci de nous avoir contactés !',
    ack: 'Parfait. Puis-je vous aider pour autre chose ?',
    answerFrom: (lang) => `(Réponse tirée de notre centre d'aide en ${LANGUAGE_NAMES.fr[lang]}.)`,
  },
  es: {
    askFor: (what) => `¿Podría indicarme lo siguiente: ${what}?`,
    and: 'y',
    found: 'Esto es lo que encontré:',
    foundFor: (tool) => `${tool}:`,
    noDetails: 'Lo he comprobado, pero todavía no hay detalles.',
    yes: 'sí',
    no: 'no',
    toolFailed: 'Lo siento, no he podido comprobarlo en este momento.',
    toolFailedPartly: (tool) => `No he podido completar «${tool}» en este momento.`,
    offerPerson: 'Si lo desea, puedo ponerle en contacto con una persona de nuestro equipo.',
    connecting: 'Gracias por su paciencia. Le pongo en contacto con una persona de nuestro equipo.',
    connectingOnRequest: 'Por supuesto. Le pongo en contacto con una persona de nuestro equipo.',
    noInformation: 'Lo siento, no tengo información sobre eso.',
    greeting: '¡Hola! ¿En qué puedo ayudarle?',
    thanks: '¡De nada! ¿Puedo ayudarle en algo más?',
    bye: '¡Adiós y gracias por escribirnos!',
    ack: 'Perfecto. ¿Puedo ayudarle en algo más?',
    answerFrom: (lang) => `(Respuesta de nuestro centro de ayuda en ${LANGUAGE_NAMES.es[lang]}.)`,
  },
};
