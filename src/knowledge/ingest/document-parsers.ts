import path from 'node:path';
import { AppError } from '../../domain/errors';
import type { KnowledgeFileFormat } from '../../db/tables/knowledge';
import { textToBlocks, type Block, type ParsedDocument } from './document';
import { extractHtml } from './html-extract';
import { extractMarkdown } from './markdown-extract';
import { assertZipWithinLimits, ZipRefused } from './zip-guard';

/** What one parse may use; past a limit the file is 422 file_too_large. Time and memory are the worker's. */
export interface ParseLimits {
  /** Bytes of the file itself. */
  maxFileBytes: number;
  /** Total bytes a DOCX (a ZIP archive) may inflate to. */
  maxInflatedBytes: number;
  /** Pages of a PDF. */
  maxPages: number;
}

export const fileTooLarge = (detail: string) =>
  new AppError('file_too_large', `File too large: ${detail}. Split the document or upload a smaller one.`, { param: 'file' });

const unsupported = (detail: string) =>
  new AppError('unsupported_file', `Unsupported file: ${detail}. Upload PDF, DOCX, HTML, Markdown or plain text.`, { param: 'file' });

const ext = (filename: string) => path.extname(filename).toLowerCase();

function isUtf8Text(buf: Buffer): boolean {
  if (buf.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(buf);
    return true;
  } catch {
    return false;
  }
}

/**
 * Decides the format from the bytes first (PDF and ZIP signatures), then extension and content type.
 * Anything that is not PDF, DOCX, HTML, Markdown or UTF-8 text is `unsupported_file`.
 */
export function detectFormat(input: { filename: string; contentType?: string; data: Buffer }): KnowledgeFileFormat {
  const { data } = input;
  const e = ext(input.filename);
  const ct = (input.contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (data.length === 0) throw unsupported('the file is empty');
  if (data.subarray(0, 5).toString('latin1') === '%PDF-') return 'pdf';
  if (data[0] === 0x50 && data[1] === 0x4b) {
    if (e === '.docx' || ct === 'application/vnd.openxmlformats-officedocument.wordprocessingml.document') return 'docx';
    throw unsupported(`${e || ct || 'zip archive'} is not a DOCX document`);
  }
  if (!isUtf8Text(data)) throw unsupported(`${e || ct || 'binary data'} is not a readable document`);
  if (e === '.html' || e === '.htm' || ct === 'text/html' || ct === 'application/xhtml+xml') return 'html';
  if (e === '.md' || e === '.markdown' || ct === 'text/markdown' || ct === 'text/x-markdown') return 'markdown';
  if (e === '.txt' || e === '.text' || (!e && (ct === 'text/plain' || ct === '' || ct === 'application/octet-stream'))) {
    return /^\s*<(!doctype html|html)/i.test(data.subarray(0, 200).toString('utf8')) ? 'html' : 'text';
  }
  if (ct === 'text/plain' && !['.json', '.csv', '.xml', '.js', '.ts'].includes(e)) return 'text';
  throw unsupported(`${e || ct} files are not supported`);
}

async function parsePdf(data: Buffer, fallbackTitle: string, limits: ParseLimits): Promise<ParsedDocument> {
  const { getDocumentProxy, extractText, getMeta } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(data));
  if (pdf.numPages > limits.maxPages) {
    await pdf.destroy();
    throw fileTooLarge(`the PDF has ${pdf.numPages} pages (at most ${limits.maxPages})`);
  }
  const { text } = await extractText(pdf, { mergePages: false });
  let title = '';
  try {
    const meta = await getMeta(pdf);
    title = String((meta.info as Record<string, unknown>)?.Title ?? '').trim();
  } catch {
    // no metadata
  }
  const blocks: Block[] = [];
  text.forEach((page, i) => blocks.push(...textToBlocks(page.replace(/([^\n])\n(?=[^\n])/g, '$1\n\n'), `page=${i + 1}`)));
  await pdf.destroy();
  return { title: title || fallbackTitle, blocks };
}

async function parseDocx(data: Buffer, fallbackTitle: string, limits: ParseLimits): Promise<ParsedDocument> {
  try {
    assertZipWithinLimits(data, limits.maxInflatedBytes);
  } catch (err) {
    if (err instanceof ZipRefused) throw err.reason === 'too_large' ? fileTooLarge(`the DOCX ${err.message}`) : unsupported(`the DOCX is not readable (${err.message})`);
    throw err;
  }
  const mammoth = await import('mammoth');
  const { value } = await mammoth.convertToHtml({ buffer: data });
  const page = extractHtml(`<html><body>${value}</body></html>`);
  const firstHeading = page.blocks.find((b) => b.kind === 'heading');
  return { title: firstHeading?.text ?? fallbackTitle, blocks: page.blocks };
}

/**
 * Parses an uploaded file into blocks, on the calling thread and with no time or memory bound: only the
 * parse worker calls this (`parseDocument` in document-parse.ts runs it off the event loop). A file that
 * cannot be read is `unsupported_file`; one past a limit is `file_too_large`.
 */
export async function parseDocumentInThisThread(input: {
  format: KnowledgeFileFormat;
  filename: string;
  data: Buffer;
  limits: ParseLimits;
}): Promise<ParsedDocument> {
  if (input.data.length > input.limits.maxFileBytes) throw fileTooLarge(`${input.data.length} bytes (at most ${input.limits.maxFileBytes})`);
  const fallbackTitle = path.basename(input.filename, path.extname(input.filename)) || input.filename;
  let doc: ParsedDocument;
  try {
    switch (input.format) {
      case 'pdf':
        doc = await parsePdf(input.data, fallbackTitle, input.limits);
        break;
      case 'docx':
        doc = await parseDocx(input.data, fallbackTitle, input.limits);
        break;
      case 'html': {
        const page = extractHtml(input.data.toString('utf8'));
        doc = { title: page.title === 'Untitled' ? fallbackTitle : page.title, blocks: page.blocks };
        break;
      }
      case 'markdown':
        doc = extractMarkdown(input.data.toString('utf8'), fallbackTitle);
        break;
      case 'text':
        doc = { title: fallbackTitle, blocks: textToBlocks(input.data.toString('utf8')) };
        break;
    }
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw unsupported(`the ${input.format} file could not be parsed (${(err as Error).message})`);
  }
  if (!doc.blocks.some((b) => b.kind === 'text' && b.text.length > 0)) {
    throw unsupported('no readable text was found in the file');
  }
  return doc;
}
