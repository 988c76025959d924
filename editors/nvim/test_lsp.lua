-- Neovim's built-in LSP client against `skc lsp`: open a kernel with a barrier under a thread-varying `if`,
-- expect E0001 on the barrier, fix the condition through the buffer (the client sends the change), expect the
-- diagnostics to clear. Exits 0 on success and non-zero on any failure (errors included), so it can run under CI:
--
--   SKC_BIN=target/debug/skc nvim --headless --clean -c "luafile editors/nvim/test_lsp.lua"
--
-- Written for Neovim 0.7 and later (`vim.lsp.start_client` + `buf_attach_client`; `vim.lsp.start` needs 0.8).

local TIMEOUT_MS = 15000

local function log(message)
  io.stdout:write(message .. "\n")
  io.stdout:flush()
end

local function fail(message)
  io.stderr:write("FAIL: " .. message .. "\n")
  io.stderr:flush()
  vim.cmd("cquit 1")
end

local function expect(condition, message)
  if not condition then
    error(message, 2)
  end
end

local function main()
  local skc = os.getenv("SKC_BIN") or "skc"
  expect(vim.fn.executable(skc) == 1, "not executable: " .. skc)
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local path = dir .. "/barrier.sk"
  vim.fn.writefile({
    "kernel k (out : int32 vector) =",
    "  if thread_idx_x < 16 then Gpu.block_barrier",
  }, path)

  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  local exited = false
  local client_id = vim.lsp.start_client({
    name = "skc",
    cmd = { skc, "lsp" },
    root_dir = dir,
    on_exit = function() exited = true end,
  })
  expect(client_id ~= nil, "vim.lsp.start_client failed")
  expect(vim.lsp.buf_attach_client(bufnr, client_id), "buf_attach_client failed")

  -- 1. The divergent barrier is reported.
  local got = vim.wait(TIMEOUT_MS, function()
    return #vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR }) > 0
  end, 20)
  expect(got, "no error diagnostics within " .. TIMEOUT_MS .. " ms")
  local errors = vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR })
  expect(#errors == 1, "expected 1 error, got " .. #errors)
  local d = errors[1]
  local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
  expect(code == "E0001", "code: " .. tostring(code))
  expect(d.source == "skc", "source: " .. tostring(d.source))
  local headline = vim.split(d.message, "\n")[1]
  expect(headline == "Barrier in potentially diverged control flow", "message: " .. d.message)
  -- `Gpu.block_barrier` on the second line: columns 28 to 45 (0-based, end exclusive).
  local range = string.format("%d:%d-%d:%d", d.lnum, d.col, d.end_lnum, d.end_col)
  expect(range == "1:28-1:45", "range: " .. range)
  local hints = vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.HINT })
  expect(#hints >= 1, "no hint diagnostics for the secondary labels")
  log("ok: E0001 at " .. range .. " with " .. #hints .. " hint(s): " .. headline)

  -- 2. Fix it through the buffer: the client sends didChange; the diagnostics disappear.
  vim.api.nvim_buf_set_lines(bufnr, 1, 2, false, { "  if block_idx_x < 16 then Gpu.block_barrier" })
  local cleared = vim.wait(TIMEOUT_MS, function() return #vim.diagnostic.get(bufnr) == 0 end, 20)
  expect(cleared, "diagnostics not cleared after the fix: " .. vim.inspect(vim.diagnostic.get(bufnr)))
  log("ok: diagnostics cleared after the edit")

  -- 3. Shut the server down through the protocol (shutdown, then exit).
  vim.lsp.stop_client(client_id)
  expect(vim.wait(TIMEOUT_MS, function() return exited end, 20), "the server did not exit")
  log("ok: server exited")
end

local ok, err = pcall(main)
if ok then
  vim.cmd("qall!")
else
  fail(tostring(err))
end
