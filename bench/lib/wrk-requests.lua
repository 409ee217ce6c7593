-- Request source for wrk (bench/lib/wrk.ts): replays a prepared list of requests in order, one per
-- line of the file named by the first script argument:
--   METHOD <tab> PATH <tab> BODY (may be empty) [<tab> HEADER-NAME <tab> HEADER-VALUE]...
-- Requests are formatted once at start, so wrk's thread spends no time on Lua string work per request.
-- The list varies ids, slugs, titles and bodies per request; product and baseline get the same order.

local requests = {}
local position = 0

function init(args)
  local file = assert(io.open(args[1], "r"))
  for line in file:lines() do
    local fields = {}
    for field in (line .. "\t"):gmatch("([^\t]*)\t") do
      fields[#fields + 1] = field
    end
    local headers = {}
    for k, v in pairs(wrk.headers) do
      headers[k] = v
    end
    for i = 4, #fields - 1, 2 do
      headers[fields[i]] = fields[i + 1]
    end
    local body = nil
    if fields[3] ~= nil and fields[3] ~= "" then
      body = fields[3]
      headers["Content-Type"] = "application/json"
    end
    requests[#requests + 1] = wrk.format(fields[1], fields[2], headers, body)
  end
  file:close()
  assert(#requests > 0, "no requests in " .. args[1])
end

function request()
  position = position % #requests + 1
  return requests[position]
end
