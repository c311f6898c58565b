// Generated from /openapi.json by `npm run openapi:types`; do not edit.
export interface paths {
    "/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List agents
         * @description A page of the workspace's single-prompt agents in creation order. `page` defaults to 0, `size` to 20 (at most 100); a page past the end has empty `data`.
         */
        get: operations["listAgents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List knowledge bases
         * @description A page of the key's workspace's knowledge bases, newest first, without their sources.
         */
        get: operations["listKnowledgeBases"];
        put?: never;
        /**
         * Create a knowledge base
         * @description Creates a knowledge base named `knowledge_base_name` with optional first sources. Each source starts `pending` and is extracted by a worker.
         */
        post: operations["createKnowledgeBase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases/{kbId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get knowledge base
         * @description The knowledge base with its sources. The `ETag` names its revision: send it back in `If-Match` on PATCH to change it only if nothing changed meanwhile, or in `If-None-Match` here to get 304 while nothing did.
         */
        get: operations["getKnowledgeBase"];
        put?: never;
        post?: never;
        /**
         * Delete knowledge base
         * @description Permanently deletes the knowledge base, its sources, texts and staged files. A second DELETE gives 404. With `If-Match: <ETag>` it deletes only at that revision (412 with the current `ETag` otherwise).
         */
        delete: operations["deleteKnowledgeBase"];
        options?: never;
        head?: never;
        /**
         * Update knowledge base
         * @description Adds sources and/or renames, all or nothing: after a 400, 413 or 415 the knowledge base is exactly as it was. With `If-Match: <ETag>` it changes the knowledge base only at that revision (412 otherwise).
         */
        patch: operations["updateKnowledgeBase"];
        trace?: never;
    };
    "/v1/knowledge-bases/{kbId}/changes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Changes of the chunks of a knowledge base
         * @description The chunk.upserted (with the chunk) and chunk.deleted (with its id) events after `after`, oldest first, at most `size` and about 1 MiB a page. Store `nextCursor` and read again from it; `hasMore` says whether more follow at once. A source becoming ready, refreshed with other content, failed, re-chunked or deleted all appear; a refresh yielding the same chunks appears as nothing. A deleted knowledge base's feed ends with knowledge_base.deleted, which every cursor of it reads for CHANGES_RETENTION_HOURS: drop its chunks. A cursor older than what the feed keeps is a 410: resync from GET …/chunks. A cursor of another knowledge base or ahead of the feed is a 400.
         */
        get: operations["listKnowledgeBaseChanges"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases/{kbId}/chunks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * All chunks of a knowledge base
         * @description Every chunk of the ready sources, in source order and chunk order, each with its stable `id`, its source fields and metadata. Page on with `after=<nextCursor>` until `nextCursor` is null; sources added or deleted between pages do not make it skip or repeat the others.
         */
        get: operations["listKnowledgeBaseChunks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases/{kbId}/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A page of a knowledge base's sources
         * @description Sources in order, without their text, optionally only those with one `status`; for knowledge bases with many sources.
         */
        get: operations["listDocuments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases/{kbId}/documents/{documentId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one document
         * @description One source with its extracted `text` (null until the source is ready). With `format=markdown` it also carries `markdown`, the structured extraction (headings, lists, tables) that `text` is derived from.
         */
        get: operations["getDocument"];
        put?: never;
        post?: never;
        /**
         * Delete one document
         * @description Removes one source and its document. With `If-Match: <ETag>` of the knowledge base, only at that revision (412 with the current `ETag` otherwise).
         */
        delete: operations["deleteDocument"];
        options?: never;
        head?: never;
        /**
         * Set a document's metadata
         * @description Replaces the metadata of one source (`{}` removes it): a flat JSON object of string, number and boolean values, at most 32 keys and 4 KB. It is returned with the source and with each of its chunks, and search can filter on it.
         */
        patch: operations["setDocumentMetadata"];
        trace?: never;
    };
    "/v1/knowledge-bases/{kbId}/documents/{documentId}/chunks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A page of a document's chunks
         * @description The Markdown of a ready source split for retrieval: at headings first, then paragraphs, then sentences, each chunk at most chunkMaxTokens cl100k_base tokens (a setting of the knowledge base), with its heading path and (PDF) pages. 409 while the source is not ready.
         */
        get: operations["listChunks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases/{kbId}/documents/{documentId}/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Fetch a URL source again
         * @description Puts a `ready` or `failed` URL source back to `pending` and fetches it again. If the page is byte for byte the same, the source becomes `ready` again with its text as it was and only `checkedAt` moves; if it changed, it is extracted again and `refreshedAt` is set. 409 while pending or processing, 400 for text and file sources. A `ready` source fetched less than REFRESH_COOLDOWN_SECONDS (60) ago answers 429 with `Retry-After` (the seconds left) and stays as it is.
         */
        post: operations["refreshDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases/{kbId}/documents/{documentId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry a failed source
         * @description Puts a `failed` source back to `pending` and enqueues it; 409 when it is not failed.
         */
        post: operations["retryDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases/{kbId}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search the chunks of a knowledge base
         * @description Ranks the chunks of the ready sources by BM25 over their text and heading path (a heading word counts twice), with words found by Unicode segmentation and stemmed by SEARCH_STEMMER. `filter.documentIds` and `filter.metadata` (exact values of the source's metadata) narrow it. Stop words of that language are left out of a query that has other words. Each API process holds an index per knowledge base, built from its chunks and kept from the change feed, so every replica caught up to the same feed position gives the same answer (equal scores in chunk id order). Read-only keys may search.
         */
        post: operations["searchKnowledgeBase"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases/{kbId}/sites/{siteId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get one site
         * @description A site source with its settings, its discovery `status` (`discovering`, `done`, `failed`), `pagesFound`, `pagesAdded` and `truncated`. Its pages are the URL sources of the knowledge base that carry its `siteId`.
         */
        get: operations["getSite"];
        put?: never;
        post?: never;
        /**
         * Delete one site with its pages
         * @description Removes the site and every page its discoveries added (a page also listed by hand in knowledge_base_urls before the site found it stays). A second DELETE gives 404.
         */
        delete: operations["deleteSite"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/knowledge-bases/{kbId}/sites/{siteId}/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Discover a site again
         * @description Runs the site's discovery again: new pages are added, every page is fetched again (unchanged ones keep their text), and a page that the discovery misses twice in a row (gone from the sitemap, no longer linked, or answering 404/410) is removed. The scheduled refresh (auto_refresh_hours) does the same.
         */
        post: operations["refreshSite"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/qa-issues/{qaIssueId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get QA issue
         * @description One QA issue with the rule as it was when the issue was raised (`qaRuleSnapshot`).
         */
        get: operations["getQaIssue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The workspace's usage and quotas
         * @description What the key's workspace uses of each quota the operator sets (QUOTA_* defaults, or the workspace's own through the admin CLI). Past a quota, POST and PATCH of knowledge bases change nothing and answer 409 (knowledge bases, sources per knowledge base), 413 (stored bytes) or 429 with Retry-After (sources in flight).
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhooks
         * @description A page of the workspace's webhooks, newest first, without their secrets.
         */
        get: operations["listWebhooks"];
        put?: never;
        /**
         * Register a webhook
         * @description Registers a URL to receive `source.ready`, `source.failed` and/or `knowledge_base.settled` events of this workspace, signed as the Standard Webhooks specification says. The `secret` is in this response only. The URL must pass the same address rules as URL sources; at most MAX_WEBHOOKS_PER_WORKSPACE (20) per workspace, then 409.
         */
        post: operations["createWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a webhook
         * @description The webhook without its secret, with the health of its endpoint: failures in a row, back-off, and whether it was disabled.
         */
        get: operations["getWebhook"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook
         * @description Deletes the webhook and its delivery history; deliveries still queued are dropped. A second DELETE gives 404.
         */
        delete: operations["deleteWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A page of a webhook's delivery attempts
         * @description Every attempt to deliver an event, newest first: event id, type, attempt number, HTTP status or error, and whether another attempt is scheduled. The last 1,000 attempts are kept.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}/deliveries/{eventId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver an event again
         * @description Queues a new delivery of an event of this workspace to this webhook, with the same `webhook-id` and body (receivers de-duplicate by id), whatever became of the earlier ones. Event bodies are kept 3 days; an older event is a 404 naming `eventId`. 409 when the webhook is disabled.
         */
        post: operations["redeliverWebhookEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Turn a webhook back on
         * @description Clears a disable and any back-off of the endpoint, so the next delivery is tried at once. Deliveries dropped while it was disabled can be sent again with `.../redeliver`.
         */
        post: operations["enableWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rotate a webhook's secret
         * @description Gives the webhook a new secret, shown only in this response. For WEBHOOK_SECRET_GRACE_HOURS (24) the previous secret keeps signing beside it: each delivery carries both signatures (`webhook-signature: v1,<new> v1,<previous>`), so a receiver that still has the old secret keeps verifying until it switches.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{webhookId}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a test event
         * @description Queues a `webhook.test` event (`data: {webhookId}`) to this webhook only, signed and retried like any other. 409 when the webhook is disabled.
         */
        post: operations["sendWebhookTestEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "knowledge_base.changed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The knowledge_base.changed event
         * @description Chunks of the knowledge base changed (a source became ready, was refreshed with other content, failed, or was re-chunked; a document's metadata changed; a document, a site or the knowledge base was deleted; a site's discovery removed pages): read `GET /v1/knowledge-bases/{kbId}/changes?after=<data.afterCursor>`; `data.toCursor` is the cursor after the last of these events.
         */
        post: operations["onKnowledgeBaseChanged"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "knowledge_base.settled": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The knowledge_base.settled event
         * @description No source of the knowledge base is pending or processing any more: `data.sourceCounts` counts them by status.
         */
        post: operations["onKnowledgeBaseSettled"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "site.discovered": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The site.discovered event
         * @description A discovery of a site source ended: `data.siteId`, `status` (`done` or `failed`), `pagesFound`, `pagesAdded` and `truncated` (maxPages, a crawl bound or a quota reached; `truncatedReason` names the quota); `warnings` when it skipped something (a `sitemap_skipped`), as the site shows them; `error` when it failed.
         */
        post: operations["onSiteDiscovered"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "source.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The source.failed event
         * @description A source failed for good: `data.error` carries the code and message.
         */
        post: operations["onSourceFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "source.ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The source.ready event
         * @description A source was extracted: `data` names its knowledge base and document, `status` is `ready`.
         */
        post: operations["onSourceReady"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "webhook.test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * The webhook.test event
         * @description Sent by `POST /v1/webhooks/{webhookId}/test` to that webhook only, whatever it subscribes to: `data.webhookId` names it.
         */
        post: operations["onWebhookTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Agent: {
            agentId: string;
            agentName: string;
            agentSettings?: components["schemas"]["AgentSettings"];
            instructions?: string;
            tools?: components["schemas"]["Tool"][];
            welcomeMessage?: string;
            welcomeMessageType?: string;
        };
        AgentPage: {
            data: components["schemas"]["Agent"][];
            hasNext: boolean;
            hasPrevious: boolean;
            page: number;
            size: number;
            totalCount: number;
            totalPages: number;
        };
        AgentSettings: {
            agentTimezone?: string;
            aiStartsConversation?: boolean;
            aiStartsSpeakingPlan?: number;
            aiStopsSpeakingPlan?: number;
            autoVolumeNormalization?: boolean;
            backgroundNoiseFilter?: boolean;
            backgroundSound?: string;
            echoCancellation?: boolean;
            enablePostConversationAnalysis?: boolean;
            endCallOnSilenceDuration?: number;
            globalPrompt?: string;
            ivrHangup?: boolean;
            language?: string;
            llmModel?: string;
            llmTemperature?: number;
            llmTopK?: number;
            llmTopP?: number;
            maxCallDuration?: number;
            postConversationAnalysis?: {
                dataType: string;
                insightInstructions: string;
                insightName: string;
                options: string[];
            }[];
            postConversationAnalysisLlmModel?: string;
            remindersIntervalDuration?: number;
            remindersLimit?: number;
            ttsSpeed?: number;
            ttsTemperature?: number;
            ttsVolume?: number;
            voiceId?: string;
            voiceModelId?: string;
            webhooks?: {
                events: string[];
                name: string;
                /** @description Signing secret; returned in the listing, as the source describes */
                secret: string;
                /** Format: uri */
                url: string;
                webhookId: string;
            }[];
        };
        AgentSummary: {
            agentId: string;
            name: string;
            /** @enum {string} */
            status: "Live" | "Testing" | "Disabled";
        };
        ChangeEvent: components["schemas"]["ChunkUpserted"] | components["schemas"]["ChunkDeleted"] | components["schemas"]["KnowledgeBaseDeleted"];
        ChangesPage: {
            data: components["schemas"]["ChangeEvent"][];
            /** @description More events follow right away (read again at once); false: the feed is read to its end */
            hasMore: boolean;
            /** @description Pass as `after` next time; the same cursor comes back while nothing new has happened */
            nextCursor: string;
        };
        Chunk: {
            charEnd: number;
            charStart: number;
            documentId: string;
            /** @description File sources: the file name */
            filename?: string;
            /** @description The heading path in force where the chunk starts, outermost first; a text source's title heads it unless the text opens with it */
            headings: string[];
            /**
             * @description Stable id from the knowledge base, the source and the text: an unchanged chunk keeps it across refresh, re-extraction and re-chunking
             * @example chk_2bF1x0cXlq3m9k0aQ4uR7w
             */
            id: string;
            /** @description Position in the document, from 0 */
            index: number;
            /**
             * @description The source's metadata
             * @example {
             *       "team": "support",
             *       "year": 2026,
             *       "public": true
             *     }
             */
            metadata?: {
                [key: string]: string | number | boolean;
            };
            /** @description PDF: 1-based page the chunk ends on */
            pageEnd?: number;
            /** @description PDF: 1-based page the chunk starts on */
            pageStart?: number;
            /**
             * @description When the chunk starts inside a fenced code block or a table cut at the previous chunk: the opening fence line, or the header and delimiter rows, ending in a line break. `prefix + text` reads on its own and is within chunkMaxTokens; `text` stays the exact slice
             * @example | Name | Price |
             *     | --- | --- |
             */
            prefix?: string;
            /** @description Exactly `markdown.slice(charStart, charEnd)` (JavaScript string indices) */
            text: string;
            /** @description The source's title */
            title?: string;
            /** @description cl100k_base tokens in `text`; never more than the chunkMaxTokens of its knowledge base */
            tokens: number;
            /** @description URL sources: the URL */
            url?: string;
        };
        ChunkDeleted: {
            /** @example chk_2bF1x0cXlq3m9k0aQ4uR7w */
            chunkId: string;
            documentId: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "chunk.deleted";
        };
        ChunkListing: {
            /** @description The change feed position from before this listing began: once every page is read, follow GET …/changes?after=<changesCursor> to stay in sync */
            changesCursor: string;
            data: components["schemas"]["Chunk"][];
            /** @description Pass as `after` for the next page; null when the listing is complete */
            nextCursor: string | null;
        };
        ChunkPage: {
            data: components["schemas"]["Chunk"][];
            hasNext: boolean;
            hasPrevious: boolean;
            page: number;
            size: number;
            totalCount: number;
            totalPages: number;
        };
        ChunkUpserted: {
            /** @description The chunk as GET …/chunks shows it, with its source fields as they were when it was written */
            chunk: {
                charEnd: number;
                charStart: number;
                documentId: string;
                /** @description File sources: the file name */
                filename?: string;
                /** @description The heading path in force where the chunk starts, outermost first; a text source's title heads it unless the text opens with it */
                headings: string[];
                /**
                 * @description Stable id from the knowledge base, the source and the text: an unchanged chunk keeps it across refresh, re-extraction and re-chunking
                 * @example chk_2bF1x0cXlq3m9k0aQ4uR7w
                 */
                id: string;
                /** @description Position in the document, from 0 */
                index: number;
                /**
                 * @description The source's metadata
                 * @example {
                 *       "team": "support",
                 *       "year": 2026,
                 *       "public": true
                 *     }
                 */
                metadata?: {
                    [key: string]: string | number | boolean;
                };
                /** @description PDF: 1-based page the chunk ends on */
                pageEnd?: number;
                /** @description PDF: 1-based page the chunk starts on */
                pageStart?: number;
                /**
                 * @description When the chunk starts inside a fenced code block or a table cut at the previous chunk: the opening fence line, or the header and delimiter rows, ending in a line break. `prefix + text` reads on its own and is within chunkMaxTokens; `text` stays the exact slice
                 * @example | Name | Price |
                 *     | --- | --- |
                 */
                prefix?: string;
                /** @description Exactly `markdown.slice(charStart, charEnd)` (JavaScript string indices) */
                text: string;
                /** @description The source's title */
                title?: string;
                /** @description cl100k_base tokens in `text`; never more than the chunkMaxTokens of its knowledge base */
                tokens: number;
                /** @description URL sources: the URL */
                url?: string;
            };
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "chunk.upserted";
        };
        Document: {
            /** @description Characters of the extracted text */
            charCount?: number;
            /**
             * Format: date-time
             * @description URL sources: when the URL was last fetched
             * @example 2026-11-21T10:00:00.000Z
             */
            checkedAt?: string;
            /** @description Chunks of a ready source (see /chunks) */
            chunkCount?: number;
            /** @description The text, the URL, or the file name */
            content: string;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            createdAt: string;
            /** @example doc_V1StGXR8_Z5jdHi6B-myT */
            documentId: string;
            error?: components["schemas"]["SourceError"];
            /**
             * @description Set at creation or with PATCH of the document; copied onto each of its chunks
             * @example {
             *       "team": "support",
             *       "year": 2026,
             *       "public": true
             *     }
             */
            metadata?: {
                [key: string]: string | number | boolean;
            };
            /** @description Detected type of the fetched or uploaded bytes */
            mimeType?: string;
            /** @description Pages, for PDF */
            pageCount?: number;
            progress?: components["schemas"]["SourceProgress"];
            /**
             * Format: date-time
             * @description URL sources: when a refresh last found changed content
             * @example 2026-11-21T10:00:00.000Z
             */
            refreshedAt?: string;
            /** @description URL sources: the site whose discovery added this page */
            siteId?: string;
            sizeBytes?: number;
            /** @enum {string} */
            status: "pending" | "processing" | "ready" | "failed";
            /** @description Extracted text; null until the source is ready */
            text: string | null;
            title?: string;
            /** @description True when the text was cut at the service limit */
            truncated?: boolean;
            /** @enum {string} */
            type: "text" | "url" | "file";
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            updatedAt: string;
            /** @description On a ready source whose text looks doubtful: garbled_text, partial_text, truncated, ocr (text read by OCR), low_ocr_confidence */
            warnings?: components["schemas"]["SourceWarning"][];
        };
        DocumentPatch: {
            metadata: components["schemas"]["Metadata"];
        };
        ErrorBody: {
            /** @example Bad Request */
            error: string;
            /** @example Invalid request parameters */
            message: string;
            /** @example /v1/knowledge-bases */
            path: string;
            /** @example 400 */
            status: number;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            timestamp: string;
            /** @description Field name to message; present on 400s caused by fields */
            validationErrors?: {
                [key: string]: string;
            };
        };
        KnowledgeBase: {
            /** @description When set, every URL source is fetched again on this period (hours) */
            autoRefreshHours?: number;
            /** @description Most cl100k_base tokens in one chunk of this knowledge base (chunk_max_tokens) */
            chunkMaxTokens: number;
            /** @description Tokens of a chunk's tail repeated at the start of the next (chunk_overlap_tokens) */
            chunkOverlapTokens: number;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            createdAt: string;
            files: components["schemas"]["Source"][];
            /** @example kb_V1StGXR8_Z5jdHi6B-myT */
            kbId: string;
            name: string;
            /** @description While a change of chunk_max_tokens or chunk_overlap_tokens is being applied: the ready sources whose chunks are still those of the earlier settings (absent once none are; knowledge_base.settled is sent when the re-chunk ends) */
            rechunkingSources?: number;
            /** @description Site sources (knowledge_base_sites), when there are any */
            sites?: components["schemas"]["Site"][];
            sourceCounts: components["schemas"]["SourceCounts"];
            /** @enum {string} */
            status: "empty" | "in_progress" | "ready" | "partial";
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            updatedAt: string;
        };
        KnowledgeBaseCreateForm: {
            /**
             * @description Fetch every URL source again every this many hours (1 to 720); 0 turns it off
             * @example 24
             */
            auto_refresh_hours?: string;
            /**
             * @description Most cl100k_base tokens in one chunk (16 to 8192); default the deployment's CHUNK_MAX_TOKENS. A change re-chunks every ready source in the background
             * @example 512
             */
            chunk_max_tokens?: string;
            /**
             * @description Tokens of a chunk's tail repeated at the start of the next (0 to half of chunk_max_tokens); default the deployment's CHUNK_OVERLAP_TOKENS
             * @example 64
             */
            chunk_overlap_tokens?: string;
            /** @description File parts (also accepted as knowledge_base_files.items), repeated: PDF, TXT, HTML, Markdown, DOCX, and the formats ACCEPTED_FORMATS adds (PPTX, XLSX, ODS, CSV, EPUB, ODT) */
            knowledge_base_files?: string[];
            /** @description Name (rename value on PATCH), 1 to 512 characters; alias `name` */
            knowledge_base_name: string;
            /**
             * @description JSON array string of site sources (at most 20 per knowledge base): each {"url", "maxPages", "maxDepth", "include", "exclude", "sitemap"}; its same-origin pages become URL sources with its siteId
             * @example [{"url":"https://example.com/docs/","maxPages":200,"exclude":["/docs/archive/**"]}]
             */
            knowledge_base_sites?: string;
            /**
             * @description JSON array string; each element is a string or {"title","text","metadata"} (text at most 1048576 bytes)
             * @example ["Opening hours are 9 to 5."]
             */
            knowledge_base_texts?: string;
            /**
             * @description JSON array string of absolute http(s) URLs, each a string or {"url","metadata"}
             * @example ["https://example.com/faq", {"url": "https://example.com/prices", "metadata": {"team": "sales"}}]
             */
            knowledge_base_urls?: string;
        };
        /** @description The knowledge base was deleted: drop every chunk of it. The feed's last event, read by every cursor of the feed however old, for CHANGES_RETENTION_HOURS */
        KnowledgeBaseDeleted: {
            kbId: string;
            /**
             * @description discriminator enum property added by openapi-typescript
             * @enum {string}
             */
            type: "knowledge_base.deleted";
        };
        KnowledgeBasePage: {
            data: components["schemas"]["KnowledgeBaseSummary"][];
            hasNext: boolean;
            hasPrevious: boolean;
            page: number;
            size: number;
            totalCount: number;
            totalPages: number;
        };
        KnowledgeBaseSummary: {
            /** @description When set, every URL source is fetched again on this period (hours) */
            autoRefreshHours?: number;
            /** @description Most cl100k_base tokens in one chunk of this knowledge base (chunk_max_tokens) */
            chunkMaxTokens: number;
            /** @description Tokens of a chunk's tail repeated at the start of the next (chunk_overlap_tokens) */
            chunkOverlapTokens: number;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            createdAt: string;
            /** @example kb_V1StGXR8_Z5jdHi6B-myT */
            kbId: string;
            name: string;
            sourceCounts: components["schemas"]["SourceCounts"];
            /** @enum {string} */
            status: "empty" | "in_progress" | "ready" | "partial";
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            updatedAt: string;
        };
        KnowledgeBaseUpdateForm: {
            /**
             * @description Fetch every URL source again every this many hours (1 to 720); 0 turns it off
             * @example 24
             */
            auto_refresh_hours?: string;
            /**
             * @description Most cl100k_base tokens in one chunk (16 to 8192); default the deployment's CHUNK_MAX_TOKENS. A change re-chunks every ready source in the background
             * @example 512
             */
            chunk_max_tokens?: string;
            /**
             * @description Tokens of a chunk's tail repeated at the start of the next (0 to half of chunk_max_tokens); default the deployment's CHUNK_OVERLAP_TOKENS
             * @example 64
             */
            chunk_overlap_tokens?: string;
            /** @description File parts (also accepted as knowledge_base_files.items), repeated: PDF, TXT, HTML, Markdown, DOCX, and the formats ACCEPTED_FORMATS adds (PPTX, XLSX, ODS, CSV, EPUB, ODT) */
            knowledge_base_files?: string[];
            /** @description Name (rename value on PATCH), 1 to 512 characters; alias `name` */
            knowledge_base_name?: string;
            /**
             * @description JSON array string of site sources (at most 20 per knowledge base): each {"url", "maxPages", "maxDepth", "include", "exclude", "sitemap"}; its same-origin pages become URL sources with its siteId
             * @example [{"url":"https://example.com/docs/","maxPages":200,"exclude":["/docs/archive/**"]}]
             */
            knowledge_base_sites?: string;
            /**
             * @description JSON array string; each element is a string or {"title","text","metadata"} (text at most 1048576 bytes)
             * @example ["Opening hours are 9 to 5."]
             */
            knowledge_base_texts?: string;
            /**
             * @description JSON array string of absolute http(s) URLs, each a string or {"url","metadata"}
             * @example ["https://example.com/faq", {"url": "https://example.com/prices", "metadata": {"team": "sales"}}]
             */
            knowledge_base_urls?: string;
        };
        MarkdownDocument: {
            /** @description Characters of the extracted text */
            charCount?: number;
            /**
             * Format: date-time
             * @description URL sources: when the URL was last fetched
             * @example 2026-11-21T10:00:00.000Z
             */
            checkedAt?: string;
            /** @description Chunks of a ready source (see /chunks) */
            chunkCount?: number;
            /** @description The text, the URL, or the file name */
            content: string;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            createdAt: string;
            /** @example doc_V1StGXR8_Z5jdHi6B-myT */
            documentId: string;
            error?: components["schemas"]["SourceError"];
            /** @description The extraction as Markdown; null until the source is ready */
            markdown: string | null;
            /**
             * @description Set at creation or with PATCH of the document; copied onto each of its chunks
             * @example {
             *       "team": "support",
             *       "year": 2026,
             *       "public": true
             *     }
             */
            metadata?: {
                [key: string]: string | number | boolean;
            };
            /** @description Detected type of the fetched or uploaded bytes */
            mimeType?: string;
            /** @description Pages, for PDF */
            pageCount?: number;
            progress?: components["schemas"]["SourceProgress"];
            /**
             * Format: date-time
             * @description URL sources: when a refresh last found changed content
             * @example 2026-11-21T10:00:00.000Z
             */
            refreshedAt?: string;
            /** @description URL sources: the site whose discovery added this page */
            siteId?: string;
            sizeBytes?: number;
            /** @enum {string} */
            status: "pending" | "processing" | "ready" | "failed";
            /** @description Extracted text; null until the source is ready */
            text: string | null;
            title?: string;
            /** @description True when the text was cut at the service limit */
            truncated?: boolean;
            /** @enum {string} */
            type: "text" | "url" | "file";
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            updatedAt: string;
            /** @description On a ready source whose text looks doubtful: garbled_text, partial_text, truncated, ocr (text read by OCR), low_ocr_confidence */
            warnings?: components["schemas"]["SourceWarning"][];
        };
        /**
         * @description Flat object of string, number and boolean values; at most 32 keys and 4096 bytes as JSON
         * @example {
         *       "team": "support",
         *       "year": 2026,
         *       "public": true
         *     }
         */
        Metadata: {
            [key: string]: string | number | boolean;
        };
        /** @description A tool of a type other than voice_transfer_call; its fields are kept as given. */
        OtherTool: {
            type: string;
        } & {
            [key: string]: unknown;
        };
        QaIssue: {
            agentId: string;
            callId: string;
            /** @enum {string} */
            channel: "chat" | "voice";
            qaIssueId: string;
            qaRuleId: string;
            qaRuleSnapshot: components["schemas"]["QaRule"];
            remarks: string;
            /** @enum {string} */
            result: "Success" | "Fail";
            workspaceId: string;
        };
        QaRule: {
            agents: components["schemas"]["AgentSummary"][];
            evaluationCriteria: string;
            expectedValue: boolean;
            qaRuleId: string;
            ruleDescription: string;
            ruleName: string;
            workspaceId: string;
        };
        SearchHit: {
            chunk: components["schemas"]["Chunk"];
            /**
             * @description Up to 240 characters of the text around the first match, HTML-escaped, with each matched word in <mark>…</mark>
             * @example Refunds are paid <mark>within</mark> thirty days…
             */
            highlight: string;
            /** @description The words of the text that matched a query term (after stemming) */
            matchedTerms: string[];
            /** @description BM25 score over the text and the heading path (heading words weighted); higher is better */
            score: number;
        };
        SearchRequest: {
            filter?: {
                /** @description Only chunks of these sources */
                documentIds?: string[];
                /**
                 * @description Only chunks whose source's metadata has each of these keys with exactly this value
                 * @example {
                 *       "team": "support",
                 *       "year": 2026,
                 *       "public": true
                 *     }
                 */
                metadata?: {
                    [key: string]: string | number | boolean;
                };
            };
            query: string;
            /**
             * @description How many chunks to return, best first (default 10, at most 100)
             * @default 10
             */
            topK: number;
        };
        SearchResult: {
            data: components["schemas"]["SearchHit"][];
        };
        Site: {
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description When the last discovery ended
             * @example 2026-11-21T10:00:00.000Z
             */
            discoveredAt?: string;
            error?: {
                code: string;
                message: string;
            };
            exclude: string[];
            include: string[];
            maxDepth: number;
            maxPages: number;
            /** @description Pages of the site in the knowledge base (at most maxPages) */
            pagesAdded: number;
            /** @description Distinct allowed same-site pages the last discovery found */
            pagesFound: number;
            /** @example site_V1StGXR8_Z5jdHi6B-myT */
            siteId: string;
            /** @enum {string} */
            sitemap: "auto" | "only" | "off";
            /**
             * @description discovering while its pages are being found; its pages are then ordinary URL sources
             * @enum {string}
             */
            status: "discovering" | "done" | "failed";
            /** @description True when discovery stopped at maxPages, a crawl bound or a quota */
            truncated: boolean;
            /**
             * @description When a quota stopped the site adding pages: `knowledge_base_full` (sources per knowledge base), `workspace_full` (stored bytes) or `sources_in_flight`
             * @enum {string}
             */
            truncatedReason?: "knowledge_base_full" | "workspace_full" | "sources_in_flight";
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            updatedAt: string;
            url: string;
            /** @description What the last discovery skipped and went on without (at most 20); absent when nothing was */
            warnings?: components["schemas"]["SiteWarning"][];
        };
        SiteWarning: {
            /**
             * @description `sitemap_skipped`: a sitemap that could not be read or was over a bound added no page
             * @enum {string}
             */
            code: "sitemap_skipped";
            /** @example the sitemap inflates past 52428800 bytes */
            message: string;
            url: string;
        };
        Source: {
            /** @description Characters of the extracted text */
            charCount?: number;
            /**
             * Format: date-time
             * @description URL sources: when the URL was last fetched
             * @example 2026-11-21T10:00:00.000Z
             */
            checkedAt?: string;
            /** @description Chunks of a ready source (see /chunks) */
            chunkCount?: number;
            /** @description The text, the URL, or the file name */
            content: string;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            createdAt: string;
            /** @example doc_V1StGXR8_Z5jdHi6B-myT */
            documentId: string;
            error?: components["schemas"]["SourceError"];
            /**
             * @description Set at creation or with PATCH of the document; copied onto each of its chunks
             * @example {
             *       "team": "support",
             *       "year": 2026,
             *       "public": true
             *     }
             */
            metadata?: {
                [key: string]: string | number | boolean;
            };
            /** @description Detected type of the fetched or uploaded bytes */
            mimeType?: string;
            /** @description Pages, for PDF */
            pageCount?: number;
            progress?: components["schemas"]["SourceProgress"];
            /**
             * Format: date-time
             * @description URL sources: when a refresh last found changed content
             * @example 2026-11-21T10:00:00.000Z
             */
            refreshedAt?: string;
            /** @description URL sources: the site whose discovery added this page */
            siteId?: string;
            sizeBytes?: number;
            /** @enum {string} */
            status: "pending" | "processing" | "ready" | "failed";
            title?: string;
            /** @description True when the text was cut at the service limit */
            truncated?: boolean;
            /** @enum {string} */
            type: "text" | "url" | "file";
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            updatedAt: string;
            /** @description On a ready source whose text looks doubtful: garbled_text, partial_text, truncated, ocr (text read by OCR), low_ocr_confidence */
            warnings?: components["schemas"]["SourceWarning"][];
        };
        SourceCounts: {
            failed: number;
            pending: number;
            processing: number;
            ready: number;
        };
        SourceError: {
            /** @enum {string} */
            code: "unsupported_media_type" | "file_too_large" | "fetch_blocked" | "fetch_failed" | "http_status" | "timeout" | "encrypted" | "corrupt" | "no_text" | "too_complex" | "ocr_unavailable" | "internal";
            message: string;
        };
        SourcePage: {
            data: components["schemas"]["Source"][];
            hasNext: boolean;
            hasPrevious: boolean;
            page: number;
            size: number;
            totalCount: number;
            totalPages: number;
        };
        /** @description How far a processing source has got: pages for PDF, bytes for other formats */
        SourceProgress: {
            bytesDone?: number;
            bytesTotal?: number;
            pagesDone?: number;
            pagesTotal?: number;
        };
        /** @description Why the text of a ready source may still be doubtful */
        SourceWarning: {
            /** @enum {string} */
            code: "garbled_text" | "partial_text" | "truncated" | "ocr" | "low_ocr_confidence" | "refresh_failed";
            message: string;
        };
        Tool: ({
            type: string;
        } & {
            [key: string]: unknown;
        }) & (components["schemas"]["VoiceTransferCallTool"] | components["schemas"]["OtherTool"]);
        Usage: {
            /** @description What the service keeps for the workspace beside its sources, bounded by CHANGES_RETENTION_HOURS, CHANGES_MAX_EVENTS and CHANGES_MAX_BYTES per knowledge base, CHANGES_WORKSPACE_MAX_BYTES for all its feeds, and by its chunks */
            derivedBytes: {
                /** @description Bytes the change feeds hold (their events, as the feed counts them): of its knowledge bases, and of deleted ones until their retention ends */
                changeFeeds: number;
                /** @description Bytes the outboxes of its knowledge bases hold: webhook events written with the changes they tell of, not yet turned into deliveries (about 0 while the worker's relay keeps up; at most 10,000 events per knowledge base) */
                outboxes: number;
                /** @description Bytes search indexes of its knowledge bases take in Redis, about: 0, as the API processes hold the indexes; an index an earlier version kept in Redis counts until the first search of its knowledge base removes it */
                searchIndexes: number;
            };
            idempotencyKeys: {
                limit: number;
                /** @description Idempotency-Keys held now (running, or replayable for 24 h) */
                used: number;
            };
            knowledgeBases: {
                /** @description The quota; null when unlimited */
                limit: number | null;
                used: number;
            };
            sourcesInFlight: {
                /** @description The quota; null when unlimited */
                limit: number | null;
                /** @description Sources pending or processing */
                used: number;
            };
            sourcesPerKnowledgeBase: {
                /** @description The quota; null when unlimited */
                limit: number | null;
            };
            storedBytes: {
                /** @description The quota; null when unlimited */
                limit: number | null;
                /** @description Bytes of text, Markdown and chunks, and of uploaded files waiting for or in a run */
                used: number;
            };
            workspaceId: string;
        };
        /** @description A call transfer tool: its fields are those of the source description, and no other. */
        VoiceTransferCallTool: {
            extensionNumber?: string;
            instruction?: string;
            nodeId?: string;
            toolName?: string;
            transferSettings?: {
                customHeaders?: {
                    [key: string]: unknown;
                };
                enableThreeWayMessage?: boolean;
                enableWhisperMessage?: boolean;
                ringingDuration?: number;
                threeWayMessage?: string;
                threeWayMessageType?: string;
                transferType?: string;
                waitForParticipantAnswer?: boolean;
                whisperMessage?: string;
                whisperMessageType?: string;
            };
            transferTo?: string;
            transferToRouting?: string;
            /** @constant */
            type: "voice_transfer_call";
        };
        Webhook: {
            /**
             * Format: date-time
             * @description Deliveries wait until then: the endpoint failed 5 or more times in a row
             * @example 2026-11-21T10:00:00.000Z
             */
            backoffUntil: string | null;
            /** @description Failed attempts in a row since the last success */
            consecutiveFailures: number;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            createdAt: string;
            description: string | null;
            /**
             * Format: date-time
             * @description When the webhook was disabled
             * @example 2026-11-21T10:00:00.000Z
             */
            disabledAt: string | null;
            /** @description Why it was disabled */
            disabledReason: string | null;
            events: ("source.ready" | "source.failed" | "knowledge_base.settled" | "site.discovered" | "knowledge_base.changed")[];
            /**
             * Format: date-time
             * @description The first failure of the current run of failures
             * @example 2026-11-21T10:00:00.000Z
             */
            failingSince: string | null;
            /**
             * Format: date-time
             * @description After a secret rotation, until when the previous secret also signs every delivery
             * @example 2026-11-21T10:00:00.000Z
             */
            previousSecretExpiresAt: string | null;
            /**
             * @description `disabled` after every delivery failed for WEBHOOK_DISABLE_AFTER_DAYS; `POST .../enable` turns it back on
             * @enum {string}
             */
            status: "active" | "disabled";
            url: string;
            /** @example wh_3Jd8s0QmVb1xYpTa6kLr */
            webhookId: string;
        };
        WebhookCreate: {
            description?: string;
            /**
             * @description The event types to receive
             * @example [
             *       "source.ready",
             *       "source.failed",
             *       "knowledge_base.settled"
             *     ]
             */
            events: ("source.ready" | "source.failed" | "knowledge_base.settled" | "site.discovered" | "knowledge_base.changed")[];
            /**
             * @description Where events are POSTed; the same address rules as URL sources apply
             * @example https://example.com/hooks/kb
             */
            url: string;
        };
        WebhookCreated: {
            /**
             * Format: date-time
             * @description Deliveries wait until then: the endpoint failed 5 or more times in a row
             * @example 2026-11-21T10:00:00.000Z
             */
            backoffUntil: string | null;
            /** @description Failed attempts in a row since the last success */
            consecutiveFailures: number;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            createdAt: string;
            description: string | null;
            /**
             * Format: date-time
             * @description When the webhook was disabled
             * @example 2026-11-21T10:00:00.000Z
             */
            disabledAt: string | null;
            /** @description Why it was disabled */
            disabledReason: string | null;
            events: ("source.ready" | "source.failed" | "knowledge_base.settled" | "site.discovered" | "knowledge_base.changed")[];
            /**
             * Format: date-time
             * @description The first failure of the current run of failures
             * @example 2026-11-21T10:00:00.000Z
             */
            failingSince: string | null;
            /**
             * Format: date-time
             * @description After a secret rotation, until when the previous secret also signs every delivery
             * @example 2026-11-21T10:00:00.000Z
             */
            previousSecretExpiresAt: string | null;
            /**
             * @description The signing secret (`whsec_` and base64 of 24 bytes). Shown only in this response: keep it.
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
            /**
             * @description `disabled` after every delivery failed for WEBHOOK_DISABLE_AFTER_DAYS; `POST .../enable` turns it back on
             * @enum {string}
             */
            status: "active" | "disabled";
            url: string;
            /** @example wh_3Jd8s0QmVb1xYpTa6kLr */
            webhookId: string;
        };
        WebhookDelivery: {
            attempt: number;
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            attemptedAt: string;
            /** @description The source the event is about, for `source.*` events */
            documentId: string | null;
            durationMs: number;
            /** @description Why the attempt failed, when it did */
            error: string | null;
            /** @description The event id, also sent as `webhook-id`; the same on every retry */
            eventId: string;
            /** @description The knowledge base the event is about */
            kbId: string | null;
            /**
             * Format: date-time
             * @description When the next attempt is due (later if the endpoint is backed off), when one is scheduled
             * @example 2026-11-21T10:00:00.000Z
             */
            nextAttemptAt: string | null;
            /** @description The site the event is about, for `site.discovered` */
            siteId: string | null;
            /** @description The receiver's HTTP status; null when there was no answer */
            statusCode: number | null;
            /** @enum {string} */
            type: "source.ready" | "source.failed" | "knowledge_base.settled" | "site.discovered" | "knowledge_base.changed" | "webhook.test";
            /** @description True when another attempt is scheduled */
            willRetry: boolean;
        };
        WebhookDeliveryPage: {
            data: components["schemas"]["WebhookDelivery"][];
            hasNext: boolean;
            hasPrevious: boolean;
            page: number;
            size: number;
            totalCount: number;
            totalPages: number;
        };
        WebhookDeliveryQueued: {
            /** @description The event queued; its attempts appear under `.../deliveries` */
            eventId: string;
            /** @enum {string} */
            type: "source.ready" | "source.failed" | "knowledge_base.settled" | "site.discovered" | "knowledge_base.changed" | "webhook.test";
            webhookId: string;
        };
        WebhookEvent: {
            /**
             * Format: date-time
             * @example 2026-11-21T10:00:00.000Z
             */
            createdAt: string;
            data: {
                /** @description knowledge_base.changed: the change-feed cursor before the new events; read GET …/changes?after=<afterCursor> */
                afterCursor?: string;
                documentId?: string;
                error?: components["schemas"]["SourceError"] | {
                    code: string;
                    message: string;
                };
                /** @description Present in every event but `webhook.test` */
                kbId?: string;
                pagesAdded?: number;
                pagesFound?: number;
                siteId?: string;
                sourceCounts?: components["schemas"]["SourceCounts"];
                /**
                 * @description A source: ready or failed; a site (site.discovered): done or failed
                 * @enum {string}
                 */
                status?: "ready" | "failed" | "done";
                /** @description knowledge_base.changed: the cursor after the last new event */
                toCursor?: string;
                truncated?: boolean;
                /**
                 * @description site.discovered: the quota that stopped the site adding pages
                 * @enum {string}
                 */
                truncatedReason?: "knowledge_base_full" | "workspace_full" | "sources_in_flight";
                /** @description site.discovered: what the discovery skipped and went on without (a `sitemap_skipped`), as the site shows them; absent when nothing was */
                warnings?: components["schemas"]["SiteWarning"][];
                /** @description `webhook.test`: the webhook tested */
                webhookId?: string;
            };
            id: string;
            /** @enum {string} */
            type: "source.ready" | "source.failed" | "knowledge_base.settled" | "site.discovered" | "knowledge_base.changed" | "webhook.test";
        };
        WebhookPage: {
            data: components["schemas"]["Webhook"][];
            hasNext: boolean;
            hasPrevious: boolean;
            page: number;
            size: number;
            totalCount: number;
            totalPages: number;
        };
        WebhookSecretRotated: {
            /** @description Until when the previous secret also signs every delivery; null when WEBHOOK_SECRET_GRACE_HOURS is 0 */
            previousSecretExpiresAt: string | null;
            /**
             * @description The new signing secret, shown only in this response
             * @example whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw
             */
            secret: string;
            webhookId: string;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description Strong validator of the knowledge base revision: send it back in If-Match (PATCH, DELETE) or If-None-Match (GET) */
        ETag: string;
        /** @description `true` when this answer repeats the one kept for the Idempotency-Key (nothing was done again) */
        "Idempotent-Replayed": "true";
        /** @description The path of the created resource */
        Location: string;
        /** @description Requests allowed per minute with this key (sent when RATE_LIMIT_PER_MINUTE is not 0) */
        "RateLimit-Limit": number;
        /** @description Requests left in the current minute with this key */
        "RateLimit-Remaining": number;
        /** @description Seconds to wait before trying again */
        "Retry-After": number;
        /** @description The id of this request in the service log; quote it when reporting a problem */
        "X-Request-Id": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    listAgents: {
        parameters: {
            query?: {
                /** @description Zero-based page number */
                page?: number;
                /** @description Items per page, 1 to 100 */
                size?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of agents */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentPage"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listKnowledgeBases: {
        parameters: {
            query?: {
                /** @description Zero-based page number */
                page?: number;
                /** @description Items per page, 1 to 100 */
                size?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of knowledge bases */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KnowledgeBasePage"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createKnowledgeBase: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable characters; a repeat within 24 h gets the first answer again (Idempotent-Replayed: true). A success larger than IDEMPOTENCY_MAX_BODY_BYTES is replayed as the knowledge base is now; a workspace holding IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE live keys gets 429 for a new one */
                "idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["KnowledgeBaseCreateForm"];
            };
        };
        responses: {
            /** @description The created knowledge base */
            201: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    Location: components["headers"]["Location"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KnowledgeBase"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived slower than UPLOAD_MIN_BYTES_PER_SECOND over the window */
            408: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource is not in a state that allows this, a workspace quota (QUOTA_*, or the workspace's own) would be passed (nothing was changed), or a request with this Idempotency-Key is still in progress (then Retry-After says when to repeat it) */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A file is larger than MAX_FILE_BYTES, the body larger than MAX_REQUEST_BYTES, the text fields larger than 10 MiB together, too many parts, or the request's texts and files would pass the workspace's quota of stored bytes (QUOTA_STORED_BYTES, or its own) */
            413: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A file type is not PDF, TXT, HTML, Markdown or DOCX, or the body is not multipart/form-data */
            415: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request */
            422: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getKnowledgeBase: {
        parameters: {
            query?: never;
            header?: {
                /** @description ETags from earlier GETs (weak comparison); 304 while one is current */
                "if-none-match"?: string;
            };
            path: {
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The knowledge base with its sources */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KnowledgeBase"];
                };
            };
            /** @description Not modified since the ETag in If-None-Match */
            304: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteKnowledgeBase: {
        parameters: {
            query?: never;
            header?: {
                /** @description An ETag from GET (strong comparison: a W/ tag never matches); 412 with the current ETag when the knowledge base has changed since */
                "if-match"?: string;
            };
            path: {
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description If-Match names a revision of the knowledge base that is no longer current (or a weak tag); nothing was changed. ETag carries the current revision */
            412: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    updateKnowledgeBase: {
        parameters: {
            query?: never;
            header?: {
                /** @description 1 to 255 printable characters; a repeat within 24 h gets the first answer again (Idempotent-Replayed: true). A success larger than IDEMPOTENCY_MAX_BODY_BYTES is replayed as the knowledge base is now; a workspace holding IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE live keys gets 429 for a new one */
                "idempotency-key"?: string;
                /** @description An ETag from GET (strong comparison: a W/ tag never matches); 412 with the current ETag when the knowledge base has changed since */
                "if-match"?: string;
            };
            path: {
                kbId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "multipart/form-data": components["schemas"]["KnowledgeBaseUpdateForm"];
            };
        };
        responses: {
            /** @description The updated knowledge base */
            200: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["KnowledgeBase"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The request body arrived slower than UPLOAD_MIN_BYTES_PER_SECOND over the window */
            408: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource is not in a state that allows this, a workspace quota (QUOTA_*, or the workspace's own) would be passed (nothing was changed), or a request with this Idempotency-Key is still in progress (then Retry-After says when to repeat it) */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description If-Match names a revision of the knowledge base that is no longer current (or a weak tag); nothing was changed. ETag carries the current revision */
            412: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A file is larger than MAX_FILE_BYTES, the body larger than MAX_REQUEST_BYTES, the text fields larger than 10 MiB together, too many parts, or the request's texts and files would pass the workspace's quota of stored bytes (QUOTA_STORED_BYTES, or its own) */
            413: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A file type is not PDF, TXT, HTML, Markdown or DOCX, or the body is not multipart/form-data */
            415: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request */
            422: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listKnowledgeBaseChanges: {
        parameters: {
            query?: {
                /** @description A `nextCursor` of an earlier page, or the `changesCursor` of GET …/chunks; left out, the feed is read from the oldest event it keeps */
                after?: string;
                /** @description Events per page (default 100, at most 1000) */
                size?: number;
            };
            header?: never;
            path: {
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Events after the cursor, and the cursor to read on from */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChangesPage"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The change-feed cursor is older than what CHANGES_RETENTION_HOURS, CHANGES_MAX_EVENTS, CHANGES_MAX_BYTES and CHANGES_WORKSPACE_MAX_BYTES keep; resync from GET /v1/knowledge-bases/{kbId}/chunks and follow the feed from its changesCursor */
            410: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listKnowledgeBaseChunks: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page; left out, the listing starts at the beginning */
                after?: string;
                /** @description Items per page, 1 to 100 */
                size?: number;
            };
            header?: never;
            path: {
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of chunks and the cursor to go on from */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChunkListing"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listDocuments: {
        parameters: {
            query?: {
                /** @description Zero-based page number */
                page?: number;
                /** @description Items per page, 1 to 100 */
                size?: number;
                /** @description Only sources with this status */
                status?: "pending" | "processing" | "ready" | "failed";
            };
            header?: never;
            path: {
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of sources */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SourcePage"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getDocument: {
        parameters: {
            query?: {
                /** @description `markdown` adds the `markdown` field; `text` (the default) leaves the document as it is */
                format?: "text" | "markdown";
            };
            header?: never;
            path: {
                documentId: string;
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The source and its text (and Markdown with format=markdown) */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Document"] | components["schemas"]["MarkdownDocument"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteDocument: {
        parameters: {
            query?: never;
            header?: {
                /** @description An ETag from GET (strong comparison: a W/ tag never matches); 412 with the current ETag when the knowledge base has changed since */
                "if-match"?: string;
            };
            path: {
                documentId: string;
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description If-Match names a revision of the knowledge base that is no longer current (or a weak tag); nothing was changed. ETag carries the current revision */
            412: {
                headers: {
                    ETag: components["headers"]["ETag"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    setDocumentMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                documentId: string;
                kbId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["DocumentPatch"];
            };
        };
        responses: {
            /** @description The source with its new metadata */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Source"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A file is larger than MAX_FILE_BYTES, the body larger than MAX_REQUEST_BYTES, the text fields larger than 10 MiB together, too many parts, or the request's texts and files would pass the workspace's quota of stored bytes (QUOTA_STORED_BYTES, or its own) */
            413: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listChunks: {
        parameters: {
            query?: {
                /** @description Zero-based page number */
                page?: number;
                /** @description Items per page, 1 to 100 */
                size?: number;
            };
            header?: never;
            path: {
                documentId: string;
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of chunks */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChunkPage"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource is not in a state that allows this, a workspace quota (QUOTA_*, or the workspace's own) would be passed (nothing was changed), or a request with this Idempotency-Key is still in progress (then Retry-After says when to repeat it) */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    refreshDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                documentId: string;
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The source, pending again */
            202: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Source"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource is not in a state that allows this, a workspace quota (QUOTA_*, or the workspace's own) would be passed (nothing was changed), or a request with this Idempotency-Key is still in progress (then Retry-After says when to repeat it) */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    retryDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                documentId: string;
                kbId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The source, pending again */
            202: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Source"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource is not in a state that allows this, a workspace quota (QUOTA_*, or the workspace's own) would be passed (nothing was changed), or a request with this Idempotency-Key is still in progress (then Retry-After says when to repeat it) */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    searchKnowledgeBase: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                kbId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SearchRequest"];
            };
        };
        responses: {
            /** @description The best chunks, best first */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResult"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A file is larger than MAX_FILE_BYTES, the body larger than MAX_REQUEST_BYTES, the text fields larger than 10 MiB together, too many parts, or the request's texts and files would pass the workspace's quota of stored bytes (QUOTA_STORED_BYTES, or its own) */
            413: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                kbId: string;
                siteId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The site */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Site"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                kbId: string;
                siteId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    refreshSite: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                kbId: string;
                siteId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The site, discovering */
            202: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Site"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getQaIssue: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                qaIssueId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The QA issue */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["QaIssue"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getUsage: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Usage and quotas */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Usage"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: {
                /** @description Zero-based page number */
                page?: number;
                /** @description Items per page, 1 to 100 */
                size?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of webhooks */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookPage"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    createWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookCreate"];
            };
        };
        responses: {
            /** @description The webhook with its signing secret */
            201: {
                headers: {
                    Location: components["headers"]["Location"];
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookCreated"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource is not in a state that allows this, a workspace quota (QUOTA_*, or the workspace's own) would be passed (nothing was changed), or a request with this Idempotency-Key is still in progress (then Retry-After says when to repeat it) */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A file is larger than MAX_FILE_BYTES, the body larger than MAX_REQUEST_BYTES, the text fields larger than 10 MiB together, too many parts, or the request's texts and files would pass the workspace's quota of stored bytes (QUOTA_STORED_BYTES, or its own) */
            413: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description A file type is not PDF, TXT, HTML, Markdown or DOCX, or the body is not multipart/form-data */
            415: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    getWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    deleteWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description Zero-based page number */
                page?: number;
                /** @description Items per page, 1 to 100 */
                size?: number;
            };
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of delivery attempts */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryPage"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    redeliverWebhookEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                eventId: string;
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery was queued */
            202: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryQueued"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource is not in a state that allows this, a workspace quota (QUOTA_*, or the workspace's own) would be passed (nothing was changed), or a request with this Idempotency-Key is still in progress (then Retry-After says when to repeat it) */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    enableWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook, active */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhook"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new secret */
            200: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookSecretRotated"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    sendWebhookTestEvent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                webhookId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The test event was queued */
            202: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryQueued"];
                };
            };
            /** @description Invalid request parameters (validationErrors names the fields) */
            400: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description X-API-Key is missing or invalid */
            401: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The key may not access this resource, or is read-only */
            403: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource was not found; validationErrors names the missing one by its path parameter (kbId, documentId, webhookId, qaIssueId) */
            404: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description The resource is not in a state that allows this, a workspace quota (QUOTA_*, or the workspace's own) would be passed (nothing was changed), or a request with this Idempotency-Key is still in progress (then Retry-After says when to repeat it) */
            409: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Too many requests with this key in the current minute, too many uploads in progress with it, its workspace holds IDEMPOTENCY_MAX_KEYS_PER_WORKSPACE Idempotency-Keys, or its new sources would pass the workspace's quota of sources in flight (QUOTA_SOURCES_IN_FLIGHT, or its own); see Retry-After */
            429: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Unexpected server error */
            500: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
            /** @description Redis is unreachable or nearly full, or the process has no upload slot free; retry after the Retry-After seconds */
            503: {
                headers: {
                    "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                    "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                    "Retry-After": components["headers"]["Retry-After"];
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorBody"];
                };
            };
        };
    };
    onKnowledgeBaseChanged: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id; the same on every retry, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `<id>.<timestamp>.<body>`, one per secret in use (two while a rotated secret is in its grace period), as Standard Webhooks says */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed */
                "webhook-timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"];
            };
        };
        responses: {
            /** @description Received; any 2xx status counts as delivered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within the timeout) is tried again with backoff */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onKnowledgeBaseSettled: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id; the same on every retry, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `<id>.<timestamp>.<body>`, one per secret in use (two while a rotated secret is in its grace period), as Standard Webhooks says */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed */
                "webhook-timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"];
            };
        };
        responses: {
            /** @description Received; any 2xx status counts as delivered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within the timeout) is tried again with backoff */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onSiteDiscovered: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id; the same on every retry, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `<id>.<timestamp>.<body>`, one per secret in use (two while a rotated secret is in its grace period), as Standard Webhooks says */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed */
                "webhook-timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"];
            };
        };
        responses: {
            /** @description Received; any 2xx status counts as delivered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within the timeout) is tried again with backoff */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onSourceFailed: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id; the same on every retry, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `<id>.<timestamp>.<body>`, one per secret in use (two while a rotated secret is in its grace period), as Standard Webhooks says */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed */
                "webhook-timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"];
            };
        };
        responses: {
            /** @description Received; any 2xx status counts as delivered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within the timeout) is tried again with backoff */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onSourceReady: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id; the same on every retry, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `<id>.<timestamp>.<body>`, one per secret in use (two while a rotated secret is in its grace period), as Standard Webhooks says */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed */
                "webhook-timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"];
            };
        };
        responses: {
            /** @description Received; any 2xx status counts as delivered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within the timeout) is tried again with backoff */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onWebhookTest: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id; the same on every retry, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `<id>.<timestamp>.<body>`, one per secret in use (two while a rotated secret is in its grace period), as Standard Webhooks says */
                "webhook-signature": string;
                /** @description Unix seconds when the attempt was signed */
                "webhook-timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"];
            };
        };
        responses: {
            /** @description Received; any 2xx status counts as delivered */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within the timeout) is tried again with backoff */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
