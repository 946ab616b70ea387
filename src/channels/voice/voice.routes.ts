import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import { z } from '../../domain/api-schema';
import type { Config } from '../../config/env';
import { AppError } from '../../domain/errors';
import { parseInput } from '../../http/route';
import { CallStatusParamsSchema, IncomingCallParamsSchema, RecordingParamsSchema, SpeechResultParamsSchema } from './call.schemas';
import { isValidTwilioSignature } from './twilio-signature';
import { VOICE_WEBHOOK_PATHS, type VoiceCallsService } from './voice-calls.service';

const SpeechQuerySchema = z.object({ silences: z.coerce.number().int().min(0).max(10).default(0) });
const WaitQuerySchema = z.object({ run: z.string().regex(/^run_[0-9A-Za-z]+$/), waits: z.coerce.number().int().min(0).max(10).default(0) });
const CallSidSchema = z.object({ CallSid: z.string().min(1).max(64) });

/**
 * Twilio Programmable Voice webhooks, outside /v1 and its API keys: Twilio calls them, and each request
 * must carry a valid X-Twilio-Signature (else 403, charged to the caller's address like a bad API key).
 * Bodies are form-encoded (at most 64 kB); answers are TwiML, or 204 for the status and recording callbacks.
 */
export function registerVoiceWebhookRoutes(
  app: Express,
  deps: { voiceCalls: VoiceCallsService; config: Config; chargeFailure: (req: Request) => AppError | undefined },
): void {
  const base = deps.config.http.publicBaseUrl.replace(/\/+$/, '');
  const form = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 200 });
  const signed: RequestHandler = (req, _res, next) => {
    const valid = isValidTwilioSignature({
      authToken: deps.config.voice.twilioAuthToken,
      signature: req.header('x-twilio-signature'),
      url: `${base}${req.originalUrl}`,
      params: (req.body ?? {}) as Record<string, unknown>,
    });
    if (valid) return next();
    next(deps.chargeFailure(req) ?? new AppError('permission_denied', 'The request does not carry a valid X-Twilio-Signature for this URL'));
  };
  const twiml = (res: Response, xml: string) => res.type('text/xml').send(xml);
  const route = (path: string, handler: (req: Request, res: Response) => Promise<void>) => {
    app.post(path, form, signed, (req, res, next) => {
      req.routeTemplate = path;
      handler(req, res).catch(next);
    });
  };

  route(VOICE_WEBHOOK_PATHS.incoming, async (req, res) => {
    twiml(res, await deps.voiceCalls.answerIncomingCall(parseInput(IncomingCallParamsSchema, req.body, 'body')));
  });
  route(VOICE_WEBHOOK_PATHS.speech, async (req, res) => {
    const { silences } = parseInput(SpeechQuerySchema, req.query, 'query');
    twiml(res, await deps.voiceCalls.receiveInbound({ params: parseInput(SpeechResultParamsSchema, req.body, 'body'), silences }));
  });
  route(VOICE_WEBHOOK_PATHS.wait, async (req, res) => {
    const { run, waits } = parseInput(WaitQuerySchema, req.query, 'query');
    twiml(res, await deps.voiceCalls.continueTurn(parseInput(CallSidSchema, req.body, 'body'), { runId: run, waits }));
  });
  route(VOICE_WEBHOOK_PATHS.status, async (req, res) => {
    await deps.voiceCalls.recordCallStatus(parseInput(CallStatusParamsSchema, req.body, 'body'));
    res.status(204).end();
  });
  route(VOICE_WEBHOOK_PATHS.recording, async (req, res) => {
    await deps.voiceCalls.recordRecording(parseInput(RecordingParamsSchema, req.body, 'body'));
    res.status(204).end();
  });
}
