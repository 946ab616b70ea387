import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import type { Config } from '../config/env';

/**
 * What a /v1 routes module receives: the router and the OpenAPI registry its routes join, config, and the
 * services it uses, named by the module itself in `S` (`RouteDeps<{ agents: AgentsService }>`). The
 * composition root (src/app) hands over its container, which holds every service the modules name.
 */
export interface RouteDeps<S> {
  router: Router;
  registry: OpenAPIRegistry;
  services: S;
  config: Config;
}
