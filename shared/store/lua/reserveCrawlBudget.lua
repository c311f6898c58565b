--[[
  Worker: takes `pages` of a workspace's budget of pages in discovery for
  one holder (a discovery job), unless the pages held with it would pass
  `cap` or a new holder would make more than `maxHolders` (the workspace's
  discoveries under way at once). The budget is a hash of holder to pages, not a bare counter, so the
  pages of a holder that died without giving them back can be found and
  dropped (see SiteStore.dropDeadHolders); a holder that takes its pages
  again (its job run again after a stall) replaces its own entry.

  Input:
    KEYS[1] the workspace's budget (hash: holder to pages)
    ARGV[1] JSON: {holder, pages, cap, maxHolders, ttlSeconds (the hash's life after the last change)}

  Output: {'ok'} | {'full', ...holders}
    holders: the others holding pages now.
]]
local p = cjson.decode(ARGV[1])
local held = redis.call('HGETALL', KEYS[1])
local used = 0
local others = {}
for i = 1, #held, 2 do
  if held[i] ~= p.holder then
    used = used + tonumber(held[i + 1])
    others[#others + 1] = held[i]
  end
end
if used + p.pages > p.cap or #others >= p.maxHolders then return {'full', unpack(others)} end
redis.call('HSET', KEYS[1], p.holder, p.pages)
redis.call('EXPIRE', KEYS[1], p.ttlSeconds)
return {'ok'}
