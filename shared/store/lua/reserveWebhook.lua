--[[
  API: takes a place for a new webhook in its workspace's index, unless the
  workspace already has the most it may have. The webhook's own hash is
  written right after (another hash slot); an index entry whose hash never
  came is dropped by the next listing.

  Input:
    KEYS[1] the workspace's webhook index (sorted set)
    ARGV[1] JSON: {webhookId, createdMs (creation time), max (most webhooks allowed)}

  Output: {'ok'} | {'limit'}
]]
local p = cjson.decode(ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= p.max then return {'limit'} end
redis.call('ZADD', KEYS[1], p.createdMs, p.webhookId)
return {'ok'}
