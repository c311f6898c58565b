--[[
  HSET of every field of a Lua table (string keys to string values).
]]
local function hsetTable(key, t)
  local flat = {}
  for k, v in pairs(t) do
    flat[#flat + 1] = k
    flat[#flat + 1] = v
  end
  if #flat > 0 then redis.call('HSET', key, unpack(flat)) end
end
