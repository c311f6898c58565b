import { createHash, randomBytes } from 'node:crypto';
import { customAlphabet } from 'nanoid';

const urlSafe = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-', 21);

/** Pattern of every id in a path (1 to 64 of [A-Za-z0-9_-]); checked before an id reaches a Redis key. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const newKbId = (): string => `kb_${urlSafe()}`;
export const newDocumentId = (): string => `doc_${urlSafe()}`;
export const newSiteId = (): string => `site_${urlSafe()}`;
export const newKeyId = (): string => `key_${urlSafe()}`;

/** A new API key: 32 random bytes, URL-safe, with a recognisable prefix. */
export const newApiKey = (): string => `kbi_${randomBytes(32).toString('base64url')}`;

/** Keys are stored and looked up only by this hash. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');
