import type { Kysely } from 'kysely';
import type { DB } from '../db/schema';
import { notFound } from '../domain/errors';
import { scopeOf, type Scope } from '../domain/principal';
import { appearanceOf, mergeAppearance, type AppearanceUpdate, type WidgetAppearance } from './widget-appearance';
import { WidgetRepo } from './widget.repo';
import type { WidgetConfigObject, WidgetSettingsObject } from './widget.schemas';

type SettingsRow = { id: string; name: string; visitor_identity: 'optional' | 'required'; widget_appearance: Record<string, unknown> };

/**
 * An agent's website widget settings: the visitor identity requirement and the appearance (theme colour,
 * position, greeting, proactive message, visitor token persistence), managed with a secret key or in the
 * console; and the public config a publishable key's widget reads (the same values, plus the agent's name).
 */
export class WidgetSettingsService {
  private readonly repo = new WidgetRepo();

  constructor(private readonly deps: { db: Kysely<DB> }) {}

  async getWidgetSettings(input: Scope & { agentId: string }): Promise<WidgetSettingsObject> {
    const row = await this.repo.getAgentWidgetSettings(this.deps.db, scopeOf(input), input.agentId);
    if (!row) throw notFound('agent', input.agentId);
    return toSettings(row);
  }

  /** Replaces the given fields (the others keep their values), in one transaction with the agent's row locked. */
  async updateWidgetSettings(input: Scope & { agentId: string; identity?: 'optional' | 'required' } & AppearanceUpdate): Promise<WidgetSettingsObject> {
    const { accountId, livemode, agentId, identity, ...update } = input;
    const scope = scopeOf({ accountId, livemode });
    const row = await this.deps.db.transaction().execute(async (tx) => {
      const current = await this.repo.getAgentWidgetSettings(tx, scope, agentId, { forUpdate: true });
      if (!current) return undefined;
      const appearance: WidgetAppearance = mergeAppearance(appearanceOf(current.widget_appearance), update);
      return this.repo.setAgentWidgetSettings(tx, scope, agentId, {
        visitor_identity: identity ?? current.visitor_identity,
        widget_appearance: appearance as unknown as Record<string, unknown>,
      });
    });
    if (!row) throw notFound('agent', agentId);
    return toSettings(row);
  }

  /** What the widget of a publishable key for `agentId` shows (the key's grant names the agent: authentication found it). */
  async widgetConfig(input: { agentId: string }): Promise<WidgetConfigObject> {
    const row = await this.repo.getAgentWidgetConfig(this.deps.db, input.agentId);
    if (!row) throw notFound('agent', input.agentId);
    const a = appearanceOf(row.widget_appearance);
    return {
      object: 'widget_config', agent_id: row.id, agent_name: row.name,
      theme_color: a.theme_color, position: a.position, greeting: a.greeting, proactive: a.proactive,
      identity: row.visitor_identity, persistence: a.persistence,
    };
  }
}

const toSettings = (row: SettingsRow): WidgetSettingsObject => ({
  object: 'widget_settings',
  agent_id: row.id,
  identity: row.visitor_identity,
  ...appearanceOf(row.widget_appearance),
});
