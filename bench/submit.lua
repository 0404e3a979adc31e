-- wrk script for bench/run.py: POST a hand to one of many matches, as htmx does.
--
-- bench/run.py writes a data file and passes its path after "--": line 1 the
-- session cookie, line 2 the form body without the idempotency key (it holds the
-- real CSRF token of that cookie's session), then one match token per line.
-- Every request gets a fresh idempotency key, so every one saves a new hand.

local tokens = {}
local cookie, body
local counter = 0
local prefix
local threads = 0

function setup(thread)
  threads = threads + 1
  thread:set("thread_id", threads)
end

function init(args)
  local file = assert(io.open(args[1], "r"))
  cookie = file:read("*l")
  body = file:read("*l")
  for line in file:lines() do
    if #line > 0 then tokens[#tokens + 1] = line end
  end
  file:close()
  -- distinct per wrk thread and per run: keys never repeat
  prefix = string.format("%x-%d", os.time(), thread_id)
end

function request()
  counter = counter + 1
  local token = tokens[(counter % #tokens) + 1]
  local headers = {
    ["Content-Type"] = "application/x-www-form-urlencoded",
    ["Cookie"] = cookie,
    ["HX-Request"] = "true",
    ["Accept-Encoding"] = "gzip, deflate, br",
  }
  return wrk.format("POST", "/m/" .. token .. "/hands", headers,
    body .. "&idempotency_key=" .. prefix .. "-" .. counter)
end
