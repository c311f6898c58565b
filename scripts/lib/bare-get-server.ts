/**
 * The ceiling for GET /v1/knowledge-bases/{kbId}: a bare node:http server
 * doing the same Redis reads as the API (the key's hash; the knowledge base,
 * its source list and its site list in one pipeline; every source and site
 * in one pipeline) and answering the hashes as JSON, with no framework,
 * validation or mapping.
 *
 *   REDIS_URL=... PREFIX=bench PORT=... node --import tsx scripts/lib/bare-get-server.ts
 */
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import { hashApiKey } from '../../shared/ids.js';
import { KeySpace } from '../../shared/store/keys.js';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const keys = new KeySpace(process.env.PREFIX ?? 'bench');
const ROUTE = /^\/v1\/knowledge-bases\/([A-Za-z0-9_-]+)$/;

const server = createServer((req, res) => {
  void (async () => {
    const kbId = ROUTE.exec(req.url ?? '')?.[1];
    const presented = req.headers['x-api-key'];
    if (!kbId || typeof presented !== 'string') return res.writeHead(404).end();
    const principal = await redis.hgetall(keys.apiKeyByHash(hashApiKey(presented)));
    if (!principal.workspaceId) return res.writeHead(401).end();
    const [[, meta], [, ids], [, siteIds]] = (await redis
      .pipeline()
      .hgetall(keys.kb(kbId))
      .lrange(keys.sourceIds(kbId), 0, -1)
      .lrange(keys.sites(kbId), 0, -1)
      .exec()) as [[Error | null, Record<string, string>], [Error | null, string[]], [Error | null, string[]]];
    if (!meta.workspaceId) return res.writeHead(404).end();
    if (meta.workspaceId !== principal.workspaceId) return res.writeHead(403).end();
    const pipe = redis.pipeline();
    for (const id of ids) pipe.hgetall(keys.source(kbId, id));
    for (const id of siteIds) pipe.hgetall(keys.site(kbId, id));
    const rows = ids.length + siteIds.length > 0 ? ((await pipe.exec()) ?? []).map(([, h]) => h) : [];
    const files = rows.slice(0, ids.length);
    const sites = rows.slice(ids.length);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ...meta, files, ...(sites.length > 0 && { sites }) }));
  })().catch(() => res.writeHead(500).end());
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => console.log('listening'));
process.once('SIGTERM', () => {
  server.close();
  redis.disconnect();
});
