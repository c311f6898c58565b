import type { RedisClient } from '../redis/redis.js';
import { hashApiKey, newApiKey, newKeyId } from '../ids.js';
import type { KeySpace } from './keys.js';

export interface ApiKeyRecord {
  keyId: string;
  workspaceId: string;
  name: string;
  readOnly: boolean;
  createdAt: string;
  revokedAt?: string;
}

/** The identity a valid key grants to a request. */
export interface Principal {
  keyId: string;
  workspaceId: string;
  readOnly: boolean;
}

/**
 * API keys, stored only as SHA-256 hashes. The plain key exists once, in the
 * return value of `create`. Revoking deletes the hash entry, so the key stops
 * working at once.
 */
export class KeyStore {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: KeySpace,
  ) {}

  async create(workspaceId: string, name: string, readOnly: boolean): Promise<{ record: ApiKeyRecord; key: string }> {
    const key = newApiKey();
    const hash = hashApiKey(key);
    const record: ApiKeyRecord = { keyId: newKeyId(), workspaceId, name, readOnly, createdAt: new Date().toISOString() };
    const fields = { keyId: record.keyId, workspaceId, name, readOnly: readOnly ? '1' : '0', createdAt: record.createdAt };
    await this.redis
      .multi()
      .hset(this.keys.apiKeyByHash(hash), fields)
      .hset(this.keys.apiKeyById(record.keyId), { ...fields, hash })
      .zadd(this.keys.workspaceApiKeys(workspaceId), Date.parse(record.createdAt), record.keyId)
      .exec();
    return { record, key };
  }

  /** The principal for a presented key, or null when it is unknown or revoked. */
  async authenticate(presented: string): Promise<Principal | null> {
    const h = await this.redis.hgetall(this.keys.apiKeyByHash(hashApiKey(presented)));
    if (!h.keyId || !h.workspaceId) return null;
    return { keyId: h.keyId, workspaceId: h.workspaceId, readOnly: h.readOnly === '1' };
  }

  /** Every key of a workspace, oldest first, revoked ones too (never the key or its hash). */
  async list(workspaceId: string): Promise<ApiKeyRecord[]> {
    const ids = await this.redis.zrange(this.keys.workspaceApiKeys(workspaceId), 0, -1);
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.keys.apiKeyById(id));
    const rows = ids.length > 0 ? ((await pipe.exec()) ?? []) : [];
    return rows.flatMap(([, raw]) => {
      const rec = toRecord(raw as Record<string, string>, workspaceId);
      return rec ? [rec] : [];
    });
  }

  /** One key's record by id, or null when there is none. */
  async get(keyId: string): Promise<ApiKeyRecord | null> {
    return toRecord(await this.redis.hgetall(this.keys.apiKeyById(keyId)));
  }

  /** Revokes a key by id; false when there is no such key. */
  async revoke(keyId: string): Promise<boolean> {
    return (await this.revokeOnce(keyId)) !== 'missing';
  }

  /**
   * Revokes a key by id and says whether this call did it: `already` when an
   * earlier revoke did (the record keeps its first `revokedAt`), `missing`
   * when there is no such key.
   */
  async revokeOnce(keyId: string): Promise<'revoked' | 'already' | 'missing'> {
    const byId = this.keys.apiKeyById(keyId);
    const hash = await this.redis.hget(byId, 'hash');
    if (!hash) return 'missing';
    const replies = await this.redis
      .multi()
      .del(this.keys.apiKeyByHash(hash))
      .hsetnx(byId, 'revokedAt', new Date().toISOString())
      .exec();
    return replies?.[1]?.[1] === 1 ? 'revoked' : 'already';
  }
}

/** A key's hash as its record (never the hash), or null when it is not a whole record. */
function toRecord(h: Record<string, string>, workspaceId?: string): ApiKeyRecord | null {
  if (!h.keyId) return null;
  const rec: ApiKeyRecord = {
    keyId: h.keyId,
    workspaceId: h.workspaceId ?? workspaceId ?? '',
    name: h.name ?? '',
    readOnly: h.readOnly === '1',
    createdAt: h.createdAt ?? '',
  };
  if (h.revokedAt) rec.revokedAt = h.revokedAt;
  return rec;
}
