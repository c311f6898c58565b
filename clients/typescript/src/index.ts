export { createKbClient, type KbClient, type KbClientOptions, type WriteOptions, type ChunkPage, type KnowledgeBasePage, type Source, type SearchRequest, type SearchResult } from './client.js';
export { KbApiError, unwrap, type ApiResult, type ErrorBody } from './errors.js';
export { followChanges, type ChangeEvent, type ChangesPage, type ChunkListing, type FeedPage, type FeedReader, type FollowOptions } from './change-feed.js';
export { isSettled, waitUntilSettled, type KnowledgeBase, type SettleOptions } from './settle.js';
export { sourceForm, type Metadata, type SiteSource, type SourceFormInput, type TextSource, type UploadFile, type UrlSource } from './source-form.js';
export { parseWebhook, verifyWebhook, WebhookVerificationError, DEFAULT_TOLERANCE_SECONDS, type WebhookEvent, type WebhookHeaders, type VerifyOptions } from './webhook-signature.js';
export type { components, operations, paths, webhooks } from './schema.js';
