import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { RequestHandler } from 'express';
import { AppError } from '../../domain/errors';

/**
 * 405 with `Allow` for a documented path asked with a method it does not have (instead of 404), built
 * from the OpenAPI registry so the answer always matches /v1/openapi.json. Runs after every route.
 */
export function methodNotAllowed(registry: OpenAPIRegistry): RequestHandler {
  const paths = new Map<string, { pattern: RegExp; methods: Set<string> }>();
  for (const def of registry.definitions) {
    if (def.type !== 'route') continue;
    const { path, method } = def.route;
    const entry = paths.get(path) ?? { pattern: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}/?$`), methods: new Set<string>() };
    entry.methods.add(method.toUpperCase());
    if (method === 'get') entry.methods.add('HEAD');
    paths.set(path, entry);
  }
  return (req, res, next) => {
    const allowed = new Set<string>();
    for (const { pattern, methods } of paths.values()) if (pattern.test(req.path)) for (const m of methods) allowed.add(m);
    if (allowed.size === 0 || allowed.has(req.method)) return next();
    allowed.add('OPTIONS');
    const allow = [...allowed].join(', ');
    res.setHeader('Allow', allow);
    next(new AppError('method_not_allowed', `${req.method} is not allowed on ${req.path}; allowed: ${allow}`, { headers: { Allow: allow } }));
  };
}
