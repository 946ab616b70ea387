import { z } from '../domain/api-schema';
import { VISITOR_TOKEN_PERSISTENCE, WIDGET_POSITIONS } from './widget-appearance';
import type { IdentitySecretRow, PublishableKeyRow } from './widget.repo';

export const PublishableKeySchema = z
  .object({
    id: z.string().describe('pkey_ prefix'),
    object: z.literal('publishable_key'),
    livemode: z.boolean(),
    agent_id: z.string().describe('the one agent the key opens conversations with'),
    name: z.string(),
    key: z.string().describe('pk_test_… or pk_live_…: public by design (it sits in the web page)'),
    allowed_origins: z.array(z.string()).describe('exact scheme://host[:port] origins the key answers'),
    created_at: z.string(),
    last_used_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .openapi('PublishableKey');
export type PublishableKeyObject = z.infer<typeof PublishableKeySchema>;

export const IdentitySecretSchema = z
  .object({
    id: z.string().describe('idk_ prefix: the kid header of the JWTs it signs'),
    object: z.literal('identity_secret'),
    livemode: z.boolean(),
    agent_id: z.string(),
    secret: z.string().optional().describe('the HS256 secret: only in the response that creates it'),
    last4: z.string(),
    created_at: z.string(),
    expires_at: z.string().nullable().describe('after this the secret verifies nothing (a rotation overlap); null: until removed'),
  })
  .openapi('IdentitySecret');
export type IdentitySecretObject = z.infer<typeof IdentitySecretSchema>;

const ProactiveOutSchema = z
  .object({ message: z.string(), delay_seconds: z.number().int(), paths: z.array(z.string()).describe('path prefixes; empty: every page') })
  .openapi('WidgetProactiveMessage');

/** The appearance fields the settings and the public config share. */
const appearanceFields = {
  theme_color: z.string().describe("'#RRGGBB' (lower-case)"),
  position: z.enum(WIDGET_POSITIONS),
  greeting: z.string().nullable(),
  proactive: ProactiveOutSchema.nullable().describe('shown after delay_seconds on pages whose path starts with one of paths; not a chat turn until the visitor answers'),
  persistence: z.enum(VISITOR_TOKEN_PERSISTENCE).describe('where the widget keeps the visitor token: localStorage, sessionStorage or memory'),
};
const identityField = z.enum(['optional', 'required']).describe('required: a visitor without a valid identity JWT is refused (401)');

export const WidgetSettingsSchema = z
  .object({ object: z.literal('widget_settings'), agent_id: z.string(), identity: identityField, ...appearanceFields })
  .openapi('WidgetSettings');
export type WidgetSettingsObject = z.infer<typeof WidgetSettingsSchema>;

export const WidgetConfigSchema = z
  .object({ object: z.literal('widget_config'), agent_id: z.string(), agent_name: z.string(), ...appearanceFields, identity: identityField })
  .openapi('WidgetConfig');
export type WidgetConfigObject = z.infer<typeof WidgetConfigSchema>;

export const toPublishableKeyObject = (r: PublishableKeyRow): PublishableKeyObject => ({
  id: r.id,
  object: 'publishable_key',
  livemode: r.livemode,
  agent_id: r.agent_id,
  name: r.name,
  key: r.key,
  allowed_origins: r.allowed_origins,
  created_at: r.created_at.toISOString(),
  last_used_at: r.last_used_at?.toISOString() ?? null,
  revoked_at: r.revoked_at?.toISOString() ?? null,
});

export const toIdentitySecretObject = (r: IdentitySecretRow, secret?: string): IdentitySecretObject => ({
  id: r.id,
  object: 'identity_secret',
  livemode: r.livemode,
  agent_id: r.agent_id,
  ...(secret ? { secret } : {}),
  last4: r.last4,
  created_at: r.created_at.toISOString(),
  expires_at: r.expires_at?.toISOString() ?? null,
});
