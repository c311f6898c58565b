--[[
  Whether knowledge base `metaKey` exists and belongs to `workspaceId`.
  Returns nil when it does, else the reason: 'missing' or 'forbidden'.
]]
local function checkOwner(metaKey, workspaceId)
  local ws = redis.call('HGET', metaKey, 'workspaceId')
  if not ws then return 'missing' end
  if ws ~= workspaceId then return 'forbidden' end
  return nil
end
