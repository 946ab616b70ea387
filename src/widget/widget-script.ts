import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** The widget's sources (src/widget/assets), in the order they are joined: each is part of one function's body. */
const PARTS = ['widget-strings.js', 'widget-core.js', 'widget-ui.js', 'widget-main.js'];
const ASSETS = path.join(__dirname, 'assets');

export interface WidgetScript {
  /** The script as served (UTF-8). */
  body: Buffer;
  gzip: Buffer;
  /** Strong validator: the script's SHA-256, quoted. */
  etag: string;
  /** Subresource Integrity value of the script (`sha384-…`) for `<script integrity=…>`. */
  integrity: string;
}

/**
 * Builds widget.js: the hand-written sources joined inside one strict-mode function (nothing leaks into the
 * page but `window.Converse`), the stylesheet embedded as a string for the shadow root, comment-only lines
 * and indentation dropped. No bundler, no dependency; run once per process.
 */
export function buildWidgetScript(dir = ASSETS): WidgetScript {
  const css = readFileSync(path.join(dir, 'widget.css'), 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\s*\n\s*/g, ' ').trim();
  const code = PARTS.map((f) => strip(readFileSync(path.join(dir, f), 'utf8'))).join('\n');
  const source = `/*! Converse chat widget */\n(function () {\n'use strict';\nvar CSS = ${JSON.stringify(css)};\n${code}\n})();\n`;
  const body = Buffer.from(source, 'utf8');
  return {
    body,
    gzip: gzipSync(body, { level: 9 }),
    etag: `"${createHash('sha256').update(body).digest('base64url')}"`,
    integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
  };
}

/** Drops whole-line `//` comments, blank lines and leading indentation (the code's own lines stay as written). */
function strip(source: string): string {
  return source
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('//') && !line.startsWith('/**') && !line.startsWith('* ') && line !== '*/' && line !== '*')
    .join('\n');
}

let built: WidgetScript | undefined;

/** widget.js of this process (built on first use, then the same bytes, ETag and integrity hash). */
export function widgetScript(): WidgetScript {
  built ??= buildWidgetScript();
  return built;
}
