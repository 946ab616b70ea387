import { E164Schema, z } from '../domain/api-schema';
import { CallSchema } from '../channels/voice/call.schemas';

const MailboxSchema = z.string().max(254).regex(/^[^\s@<>"]+@[^\s@<>"]+$/);

/** A customer's SMS to one of the account's (test-mode) numbers, as a carrier's deliver_sm would bring it. */
export const InboundTestMessageBodySchema = z.strictObject({
  from: E164Schema.describe("the customer's handset"),
  to: E164Schema.describe("one of the account's test-mode phone numbers (else 404)"),
  body: z.string().min(1).max(1600),
});
export type InboundTestMessageBody = z.infer<typeof InboundTestMessageBodySchema>;

/** A delivery receipt for a test-mode outbound message handed to the sandbox carrier. */
export const TestReceiptBodySchema = z.strictObject({
  status: z.enum(['delivered', 'undelivered', 'expired', 'rejected']).describe("the carrier's receipt: delivered → delivered, the others → undelivered"),
  carrier_error_code: z.string().regex(/^[0-9A-Za-z]{1,8}$/).optional().describe("the carrier's error detail (SMPP err: field), mapped to the message's error_code"),
});
export type TestReceiptBody = z.infer<typeof TestReceiptBodySchema>;

/**
 * An email to one of the account's (test-mode) addresses: either `raw` (an RFC 822 message, as a mail
 * relay posts it) or the structured fields, from which the message is built; never both.
 */
const RawTestEmailSchema = z.strictObject({
  raw: z.string().min(1).max(1_000_000).describe('a whole RFC 822 message, as a mail relay posts it'),
});
const StructuredTestEmailSchema = z.strictObject({
  from: MailboxSchema.describe("the customer's address"),
  from_name: z.string().max(120).optional(),
  to: MailboxSchema.describe("one of the account's test-mode email addresses (else 404)"),
  subject: z.string().max(998).optional(),
  text: z.string().min(1).max(100_000).describe('the plain-text body'),
  in_reply_to: z.string().max(998).optional().describe('Message-ID this email answers (threads it onto a conversation)'),
  references: z.array(z.string().max(998)).max(50).optional(),
});
export const InboundTestEmailBodySchema = z.union([RawTestEmailSchema, StructuredTestEmailSchema]);
export type InboundTestEmailBody = z.infer<typeof InboundTestEmailBodySchema>;

/** A voice call placed to one of the account's (test-mode) numbers. */
export const TestCallBodySchema = z.strictObject({
  from: E164Schema.describe("the caller's number"),
  to: E164Schema.describe("one of the account's test-mode phone numbers (else 404)"),
});

/** One spoken turn of a test call; an empty string is silence. */
export const TestSpeechBodySchema = z.strictObject({
  speech: z.string().max(4000).describe('what the caller says (the speech recogniser\'s result); "" is silence'),
  confidence: z.number().min(0).max(1).optional(),
});

/** The end of a test call (the provider's final status callback). */
export const TestHangupBodySchema = z.strictObject({
  duration_seconds: z.number().int().min(0).max(86_400).optional(),
});

/** A test call after a step, with the TwiML the service answered the provider with. */
export const TestCallTurnSchema = z
  .object({
    object: z.literal('test_call_turn'),
    call: CallSchema,
    twiml: z.string().describe('the TwiML document the service answered (what the caller hears next, and where the call goes)'),
  })
  .openapi('TestCallTurn');
export type TestCallTurn = z.infer<typeof TestCallTurnSchema>;
