import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CatalogService, CatalogSnapshot } from './catalog.service';

/** Clients are told to reuse a catalog for five minutes, then revalidate with If-None-Match. */
export const CATALOG_CACHE_CONTROL = 'private, max-age=300';

/** Distinct (revision, resource) bodies kept in memory; searches are open-ended, so the map is bounded. */
const MAX_ENTRIES = 200;

interface CachedBody {
  etag: string;
  json: string;
}

/**
 * Conditional GETs for the catalog. The strong ETag is `"<revision>-<hash of the resource>"`,
 * where the resource is the route plus its normalized filters: any sync that changes the catalog
 * bumps the revision and so changes every ETag, and different filters never share one. A
 * revalidation that matches costs no database read (the revision is kept in memory while the
 * database announces its changes); the catalog itself is neither loaded nor serialized. Serialized bodies are kept per (revision, resource).
 */
@Injectable()
export class CatalogResponseCache {
  private readonly bodies = new Map<string, CachedBody>();

  constructor(private readonly catalog: CatalogService) {}

  /**
   * Answers 304 when If-None-Match matches, else the (cached) JSON body as a string, ready to send.
   * `exists` is asked before a 304 when the resource may be missing (an unknown brand must stay 404
   * even for `If-None-Match: *` or a guessed ETag).
   */
  async respond(
    request: Request,
    response: Response,
    resource: string,
    load: () => Promise<CatalogSnapshot<object>>,
    exists: () => Promise<boolean> = async () => true,
  ): Promise<string | undefined> {
    const revision = await this.catalog.currentRevision();
    const condition = request.headers['if-none-match'];
    if (condition) {
      const etag = etagOf(revision, resource);
      if (ifNoneMatchMatches(condition, etag) && (await exists())) {
        setCacheHeaders(response, etag);
        response.status(304);
        return undefined;
      }
    }
    const body = await this.body(revision, resource, load);
    setCacheHeaders(response, body.etag);
    // Set before Express sees the body, so it keeps our strong ETag instead of computing its weak one.
    response.type('application/json');
    return body.json;
  }

  private async body(revision: number, resource: string, load: () => Promise<CatalogSnapshot<object>>): Promise<CachedBody> {
    const cached = this.bodies.get(`${revision}|${resource}`);
    if (cached) return cached;
    // Loaded with its own revision in one snapshot: the ETag always describes exactly this body.
    const snapshot = await load();
    const body = { etag: etagOf(snapshot.revision, resource), json: JSON.stringify(snapshot.value) };
    this.remember(`${snapshot.revision}|${resource}`, snapshot.revision, body);
    return body;
  }

  private remember(key: string, revision: number, body: CachedBody): void {
    for (const old of this.bodies.keys()) {
      if (Number(old.slice(0, old.indexOf('|'))) < revision) this.bodies.delete(old);
    }
    if (this.bodies.size >= MAX_ENTRIES) this.bodies.delete(this.bodies.keys().next().value!);
    this.bodies.set(key, body);
  }
}

export function etagOf(revision: number, resource: string): string {
  return `"${revision}-${createHash('sha256').update(resource).digest('base64url').slice(0, 22)}"`;
}

/** RFC 9110 §13.1.2: `*`, or a list of entity tags compared weakly (a `W/` prefix is ignored). */
export function ifNoneMatchMatches(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const match of header.matchAll(/(?:W\/)?("[^"]*")/g)) {
    if (match[1] === opaque) return true;
  }
  return false;
}

function setCacheHeaders(response: Response, etag: string): void {
  response.setHeader('ETag', etag);
  response.setHeader('Cache-Control', CATALOG_CACHE_CONTROL);
}
