import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Router } from 'express';
import type { Config } from '../config/env';
import type { Services } from './container';

/** What every routes module receives. */
export interface RouteDeps {
  router: Router;
  registry: OpenAPIRegistry;
  services: Services;
  config: Config;
}
