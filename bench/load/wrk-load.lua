-- wrk's script for bench/load/wrk.ts (wrk 4.x with LuaJIT): one or several paths taken in
-- turn, for a duration or for an exact number of requests, and one JSON line from done().
--
-- Arguments after the URL: <total> <threads> <connections> <count statuses 0|1> <path>...
--   total    0 = a duration run (-d); otherwise exactly this many requests in all, split evenly
--            across the threads. wrk itself cannot stop after N: each thread counts, and once
--            its share has been answered it stops its event loop and says so on stderr; wrk's
--            main thread sleeps for -d regardless, so bench/load/wrk.ts then interrupts it (SIGINT).
--   count statuses  1 = a response() hook counts answers outside 2xx. wrk copies every body
--            into Lua for that hook, which halves its throughput from 1 MB bodies up, so it is
--            only asked for where bodies are small (wrk itself counts statuses >= 400 only).
--
-- Why answers are counted in delay(), not in response() nor request(): wrk calls delay() on a
-- connection before each request it writes, which is once at the start and then once right
-- after each response is complete, and never when it reopens a connection (request() is called
-- then too: after an error, and when the server closes a connection, idle or not). So a
-- thread's delay() calls minus its connections are exactly its answered requests, with no body
-- copied. request() sends while the thread's share lasts, then returns "" (the connection
-- writes nothing and waits): no request is sent past the count.
--
-- Exchanges lost to a connection closed under them: a request() call that no delay() announced
-- is a reopened connection. While the share lasts no connection is idle, so it was closed under
-- a request: that one is lost, and the thread stops one answer sooner. Past the share it may
-- also be an idle connection the server closed (workerd does after some seconds), so a loss
-- there is left to bench/load/wrk.ts, which stops the run once answers stop coming.
--
-- The mean latency comes from the same calls, uncorrected: the sum of every completion's time
-- (delay() past the first on each connection) minus the sum of every write's (request()
-- sending). wrk's own histogram is corrected for coordinated omission (it adds the samples a
-- slow answer would have kept from being sent, as if the load were open-loop), which inflates
-- the mean of a closed-loop fixed count; its percentiles are reported as they are, and said to be.

local DONE_MARK = "tiercache-wrk: share answered"
-- One per answer, so that bench/load/wrk.ts can tell a stalled run (an exchange lost to a closed
-- connection never completes) from a slow one.
local ANSWER_MARK = "tiercache-wrk: +"
local JSON_MARK = "tiercache-wrk-json: "

-- A monotonic microsecond clock through LuaJIT's FFI; without it the run's time is wrk's own
-- (from its start to the interrupt, a little long).
local now_us = function() return -1 end
local has_ffi, ffi = pcall(require, "ffi")
if has_ffi then
  ffi.cdef [[
    struct tiercache_timespec { long tv_sec; long tv_nsec; };
    int clock_gettime(int clock_id, struct tiercache_timespec *tp);
  ]]
  local CLOCK_MONOTONIC = 1
  local ts = ffi.new("struct tiercache_timespec")
  now_us = function()
    ffi.C.clock_gettime(CLOCK_MONOTONIC, ts)
    return tonumber(ts.tv_sec) * 1e6 + tonumber(ts.tv_nsec) / 1e3
  end
end

-- In the main Lua state: every thread, in order; each learns its index before its init().
local threads = {}

function setup(thread)
  thread:set("thread_index", #threads)
  table.insert(threads, thread)
end

-- In each thread's Lua state; the globals below are read back by done() with thread:get().
issued, answered, non2xx, counting, first_us, last_us, last_answer_us = 0, 0, 0, 0, -1, -1, -1
completions_us, writes_us = 0, 0
local total, share, connections_here, paths, turn, checking = 0, 0, 0, {}, 0, false
local delays, pending_delays = 0, 0
lost = 0

local function finish_if_answered(now)
  if answered == share - lost then
    last_us = now
    io.stderr:write(DONE_MARK .. "\n")
    io.stderr:flush()
    wrk.thread:stop()
    return true
  end
  return false
end

local function next_delay()
  delays = delays + 1
  pending_delays = pending_delays + 1
  local now = now_us()
  if delays > connections_here then
    answered = delays - connections_here
    completions_us = completions_us + now
    last_answer_us = now
    if not finish_if_answered(now) then
      io.stderr:write(ANSWER_MARK .. "\n")
      io.stderr:flush()
    end
  end
  return 0
end

local function next_request()
  if checking then
    -- wrk calls request() once on its first thread before the run, to check what it returns
    -- (script_verify_request): that request is never sent.
    checking = false
    return wrk.format(nil, paths[1])
  end
  local now = now_us()
  if first_us < 0 then first_us = now end
  if total > 0 then
    -- Calls are told apart by count: with a delay() pending, this is taken to be its call (if
    -- it is another connection's reopening, that one's call is counted as the reopening instead).
    if pending_delays > 0 then
      pending_delays = pending_delays - 1
    elseif issued < share then
      lost = lost + 1
      if finish_if_answered(now) then return "" end
    end
    if issued >= share then return "" end
    writes_us = writes_us + now
  end
  issued = issued + 1
  turn = turn % #paths + 1
  return wrk.format(nil, paths[turn])
end

local function count_status(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end

function init(args)
  total = tonumber(args[1]) or 0
  local thread_count = tonumber(args[2]) or 1
  local connections = tonumber(args[3]) or 1
  for i = 5, #args do paths[#paths + 1] = args[i] end
  if #paths == 0 then paths[1] = wrk.path end
  -- As wrk splits them: connections / threads each (the caller keeps that a whole number).
  connections_here = math.floor(connections / thread_count)
  share = math.floor(total / thread_count) + ((thread_index < total % thread_count) and 1 or 0)
  checking = thread_index == 0
  -- wrk reads these globals after init(): without request() every request is the same
  -- pre-built one (the fastest path), without response() no body is copied, without delay()
  -- no timer runs between requests.
  if total > 0 or #paths > 1 then request = next_request end
  if total > 0 then delay = next_delay end
  if args[4] == "1" then
    response = count_status
    counting = 1
  end
end

local function sum(name)
  local value = 0
  for _, thread in ipairs(threads) do value = value + (thread:get(name) or 0) end
  return value
end

function done(summary, latency, requests)
  local first, last, finished = math.huge, -1, 0
  for _, thread in ipairs(threads) do
    local f, l = thread:get("first_us") or -1, thread:get("last_us") or -1
    if f >= 0 and f < first then first = f end
    if l >= 0 then
      finished = finished + 1
      if l > last then last = l end
    end
  end
  local complete = finished == #threads and last >= first
  -- Stopped before every share was answered (bench/load/wrk.ts gave up on a stalled run): up to the last answer.
  local last_answer = -1
  for _, thread in ipairs(threads) do last_answer = math.max(last_answer, thread:get("last_answer_us") or -1) end
  local elapsed = complete and (last - first) or ((last_answer >= first) and (last_answer - first) or -1)
  -- Exact only when every request sent was answered.
  local latency_sum = (complete and sum("lost") == 0) and (sum("completions_us") - sum("writes_us")) or -1
  local e = summary.errors
  io.write(string.format(
    '%s{"requests":%.0f,"bytes":%.0f,"durationUs":%.0f,"elapsedUs":%.0f,"threads":%d,"finished":%d,'
      .. '"sent":%.0f,"answered":%.0f,"lost":%.0f,"latencySumUs":%.0f,"non2xx":%.0f,"countedStatuses":%s,'
      .. '"errors":{"connect":%.0f,"read":%.0f,"write":%.0f,"timeout":%.0f,"status":%.0f},'
      .. '"latencyUs":{"mean":%.3f,"p50":%.0f,"p99":%.0f,"max":%.0f}}\n',
    JSON_MARK, summary.requests, summary.bytes, summary.duration, elapsed, #threads, finished,
    sum("issued"), sum("answered"), sum("lost"), latency_sum, sum("non2xx"), sum("counting") > 0 and "true" or "false",
    e.connect, e.read, e.write, e.timeout, e.status,
    latency.mean, latency:percentile(50), latency:percentile(99), latency.max))
end
