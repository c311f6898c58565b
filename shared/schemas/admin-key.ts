import { z } from 'zod';
import { strictFieldsError } from '../field-suggestion.js';
import { idSchema, isoDateTime } from './common.js';

const KEY_NAME_MAX = 200;

/** Body of `POST /v1/admin/keys`: the same choices as `npm run admin -- create-key`. */
export const adminKeyCreateSchema = z
  .strictObject(
    {
      workspaceId: idSchema.meta({ description: 'The workspace the key belongs to', example: 'ws_demo' }),
      name: z
        .string({ error: 'must be a string' })
        .max(KEY_NAME_MAX, `must be at most ${KEY_NAME_MAX} characters`)
        .default('')
        .meta({ description: 'A label for operators (never the key itself)', example: 'crm-sync' }),
      readOnly: z
        .boolean({ error: 'must be true or false' })
        .default(false)
        .meta({ description: 'A read-only key gets 403 on every POST, PATCH, PUT and DELETE but search' }),
    },
    { error: strictFieldsError('must be a JSON object with workspaceId') },
  )
  .meta({ id: 'AdminKeyCreate' });

export const adminKeySchema = z
  .object({
    keyId: z.string().meta({ example: 'key_V1StGXR8_Z5jdHi6B-myT' }),
    workspaceId: z.string(),
    name: z.string(),
    readOnly: z.boolean(),
    createdAt: isoDateTime,
    revokedAt: isoDateTime.nullable().meta({ description: 'When the key was revoked; null while it works' }),
  })
  .meta({ id: 'AdminKey' });
export type AdminKeyView = z.infer<typeof adminKeySchema>;

export const adminKeyCreatedSchema = adminKeySchema
  .extend({
    key: z.string().meta({
      description: 'The API key, to send as `X-API-Key`. It is stored only as a hash: this response is the one place it is shown.',
      example: 'kbi_6Hq0d2n0cKZ7m2Q3m4l5Y9rTjq1sV0x8WmB3aZcD4eE',
    }),
  })
  .meta({ id: 'AdminKeyCreated' });

export const adminKeyListSchema = z.object({ data: z.array(adminKeySchema) }).meta({ id: 'AdminKeyList' });

export const adminKeyListQuerySchema = z.object({
  workspaceId: idSchema.meta({ description: "The workspace whose keys to list (oldest first, revoked ones too)", example: 'ws_demo' }),
});
