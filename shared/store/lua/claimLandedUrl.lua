--[[
  Worker: a site's page whose fetch landed on another URL of the site (a
  redirect) claims that URL's fingerprint, so that the page and the URL it
  redirects to are one source. When another source already holds the
  landed URL, the page's own URL becomes an alias of that source (its
  fingerprint points there, so a later discovery of either URL finds it)
  and the caller removes the page.

  Input:
    KEYS[1] hash of the knowledge base's sources by fingerprint   KEYS[2] the page's source record
    ARGV[1] JSON: {documentId, listed (the page's fingerprint), landed (the landed URL's fingerprint), recordPrefix}

  Output: {'own'} | {'alias', owner} | {'missing'}
]]
local p = cjson.decode(ARGV[1])
local fingerprints, record = KEYS[1], KEYS[2]
if redis.call('EXISTS', record) == 0 then return {'missing'} end
local owner = redis.call('HGET', fingerprints, p.landed)
if not owner or owner == p.documentId or redis.call('EXISTS', p.recordPrefix .. owner) == 0 then
  redis.call('HSET', fingerprints, p.landed, p.documentId)
  return {'own'}
end
if redis.call('HGET', fingerprints, p.listed) == p.documentId then redis.call('HSET', fingerprints, p.listed, owner) end
return {'alias', owner}
