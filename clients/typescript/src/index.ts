export { createKbClient, KbApiError, type KbClient, type KbClientOptions, type WriteOptions, type ErrorBody, type Source, type ChunkPage, type ChunkListing, type ChangesPage, type ChangeEvent } from './client.js';
export { isSettled, waitUntilSettled, type KnowledgeBase, type SettleOptions } from './settle.js';
export { sourceForm, type SourceFormInput, type TextSource, type UploadFile } from './source-form.js';
export { verifyWebhook, DEFAULT_TOLERANCE_SECONDS, type WebhookHeaders } from './webhook-signature.js';
export type { components, paths, webhooks } from './schema.js';
