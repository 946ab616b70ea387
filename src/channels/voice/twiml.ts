import twilio from 'twilio';

type VoiceResponse = InstanceType<typeof twilio.twiml.VoiceResponse>;
type SayLanguage = NonNullable<NonNullable<Parameters<VoiceResponse['say']>[0]>['language']>;
type GatherLanguage = NonNullable<NonNullable<Parameters<VoiceResponse['gather']>[0]>['language']>;

/** What a voice webhook answers, verb by verb (VoiceCallsService decides; toTwiml writes the XML). */
export type TwimlVerb =
  /** Records the whole call from here (both sides); the recording is posted to `callbackUrl` when processed. */
  | { verb: 'record'; callbackUrl: string }
  | { verb: 'say'; text: string }
  /** Listens for speech (the caller may talk over `prompt`); the result, or an empty one after silence, is posted to `actionUrl`. */
  | { verb: 'gather'; actionUrl: string; prompt?: string }
  | { verb: 'dial'; number: string }
  | { verb: 'pause'; seconds: number }
  /** Has the provider post to `url` next (signed like every webhook). */
  | { verb: 'redirect'; url: string }
  | { verb: 'hangup' };

/** The TwiML document for `verbs`, built with the twilio package's VoiceResponse (escaping, attribute names). */
export function toTwiml(verbs: TwimlVerb[], language: string): string {
  const r = new twilio.twiml.VoiceResponse();
  const say = { language: language as SayLanguage };
  for (const v of verbs) {
    switch (v.verb) {
      case 'record':
        r.start().recording({ recordingStatusCallback: v.callbackUrl, recordingStatusCallbackEvent: ['completed'], channels: 'dual' });
        break;
      case 'say':
        r.say(say, v.text);
        break;
      case 'gather': {
        const gather = r.gather({ input: ['speech'], action: v.actionUrl, method: 'POST', speechTimeout: 'auto', actionOnEmptyResult: true, language: language as GatherLanguage });
        if (v.prompt) gather.say(say, v.prompt);
        break;
      }
      case 'dial':
        r.dial(v.number);
        break;
      case 'pause':
        r.pause({ length: v.seconds });
        break;
      case 'redirect':
        r.redirect({ method: 'POST' }, v.url);
        break;
      case 'hangup':
        r.hangup();
        break;
    }
  }
  return r.toString();
}
