--[[
  Worker: records one delivery attempt at the head of the webhook's history
  and trims it, unless the webhook was deleted meanwhile (its history must
  not come back).

  Input:
    KEYS[1] webhook hash   KEYS[2] delivery list
    ARGV[1] JSON: {attempt (the attempt, as JSON), kept (attempts kept)}

  Output: {'ok'} | {'gone'}
]]
local p = cjson.decode(ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then return {'gone'} end
redis.call('LPUSH', KEYS[2], p.attempt)
redis.call('LTRIM', KEYS[2], 0, p.kept - 1)
return {'ok'}
