--[[
  Trims a knowledge base's change feed to `maxBytes` (dropping its oldest
  events; their readers get the 410 and resync), for the workspace's bound on
  all its feeds: the write that passed it trims the feed it wrote.
  A few lookups whatever the feed's length (see feedTrim).

  Input:
    KEYS[1] feed stream   KEYS[2] feed info
    ARGV[1] JSON: {maxBytes, feed: see the feed include}

  Output: {'ok', bytes}
    bytes: what the feed holds after the trim.
]]
--- @include "feed"

local p = cjson.decode(ARGV[1])
feedTrim(p.feed, p.maxBytes)
return {'ok', tonumber(redis.call('HGET', KEYS[2], 'bytes') or '0')}
