-- Request source for wrk (bench/lib/wrk.ts, runWrkPostFile): POSTs the bytes of the file named by the
-- first script argument, with the content type of the second and any further NAME VALUE header pairs.
-- The request is formatted once, so each request costs wrk one write of ready bytes.

local prepared

function init(args)
  local file = assert(io.open(args[1], "rb"))
  local body = file:read("*a")
  file:close()
  local headers = { ["Content-Type"] = args[2] }
  for i = 3, #args - 1, 2 do
    headers[args[i]] = args[i + 1]
  end
  prepared = wrk.format("POST", nil, headers, body)
end

function request()
  return prepared
end
