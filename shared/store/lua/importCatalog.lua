--[[
  Loads agents, QA rules and QA issues of one workspace, all or nothing.
  Refuses the whole import when an id already belongs to another workspace;
  an existing agent keeps its place in the creation order.

  Input:
    KEYS[1] creation-order counter   KEYS[2] the workspace's agent index
    ARGV[1] JSON: {workspaceId, agentPrefix, rulePrefix, issuePrefix,
                   items: [{kind: 'agent'|'qaRule'|'qaIssue', id, json}]}
            the prefix of an item's kind .. its id is the item's hash key

  Output: {'ok'} | {'conflict', itemKind, id}
]]
local p = cjson.decode(ARGV[1])
local prefixes = { agent = p.agentPrefix, qaRule = p.rulePrefix, qaIssue = p.issuePrefix }
for _, item in ipairs(p.items) do
  local owner = redis.call('HGET', prefixes[item.kind] .. item.id, 'workspaceId')
  if owner and owner ~= p.workspaceId then return {'conflict', item.kind, item.id} end
end
for _, item in ipairs(p.items) do
  redis.call('HSET', prefixes[item.kind] .. item.id, 'workspaceId', p.workspaceId, 'json', item.json)
  if item.kind == 'agent' and not redis.call('ZSCORE', KEYS[2], item.id) then
    redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[1]), item.id)
  end
end
return {'ok'}
