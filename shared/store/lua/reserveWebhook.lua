--[[
  API: takes a place for a new webhook in its workspace's index, unless the
  workspace already has the most it may have. The webhook's own hash is
  written right after (another hash slot); an index entry whose hash never
  came is dropped by the next listing.

  Input:
    KEYS[1] the workspace's webhook index (sorted set)
    ARGV[1] webhook id   ARGV[2] creation time (ms)   ARGV[3] most webhooks allowed

  Output: {'ok'} | {'limit'}
]]
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return {'limit'} end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return {'ok'}
