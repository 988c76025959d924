-- Neovim against `skc lsp`, set up by README's recipe (loaded first, with `--cmd`): open a kernel with a barrier
-- under a thread-varying `if`; expect the filetype and the syntax highlighting shipped in editors/nvim, and E0001
-- on the barrier; read its explanation page with :SkcExplain; fix the condition through the buffer (the client
-- sends the change) and expect the diagnostics to clear; show the CUDA C with :SkcShowCuda; stop the server.
-- Exits 0 on success and non-zero on any failure (errors included), so it can run under CI:
--
--   nvim --headless --clean --cmd "luafile RECIPE.lua" -c "luafile editors/nvim/test_lsp.lua"
--
-- Written for Neovim 0.7 and later (compiler/cli/tests/nvim.rs runs it with the recipe from README.md).

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

local function wait(what, condition)
  expect(vim.wait(TIMEOUT_MS, condition, 20), "timed out waiting for " .. what)
end

--- The syntax group at a 1-based line and column of the current buffer.
local function syntax_at(line, column)
  return vim.fn.synIDattr(vim.fn.synID(line, column, 1), "name")
end

--- A listed or unlisted buffer (other than `except`) whose filetype is `filetype`.
local function buffer_of_type(filetype, except)
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if buf ~= except and vim.api.nvim_buf_is_valid(buf) and vim.bo[buf].filetype == filetype then
      return buf
    end
  end
end

local function main()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local path = dir .. "/barrier.sk"
  vim.fn.writefile({
    "kernel k (out : int32 vector) =",
    "  if thread_idx_x < 16 then Gpu.block_barrier",
  }, path)

  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()

  -- 1. The filetype and the syntax file shipped in editors/nvim.
  expect(vim.bo.filetype == "sk", "filetype: " .. vim.bo.filetype)
  vim.cmd("syntax on") -- a headless Neovim has not turned it on
  local groups = string.format("%s %s %s", syntax_at(1, 1), syntax_at(2, 6), syntax_at(2, 35))
  expect(groups == "skKeyword skIndex skBarrier", "syntax groups: " .. groups)
  log("ok: filetype sk, syntax " .. groups)

  -- 2. The divergent barrier is reported.
  wait("error diagnostics", function()
    return #vim.diagnostic.get(bufnr, { severity = vim.diagnostic.severity.ERROR }) > 0
  end)
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

  -- 3. Its explanation page, for the code under the cursor.
  vim.api.nvim_win_set_cursor(0, { 2, 30 })
  vim.cmd("SkcExplain")
  local page
  wait("the explanation page", function()
    page = buffer_of_type("markdown")
    return page ~= nil
  end)
  local first = vim.api.nvim_buf_get_lines(page, 0, 1, false)[1]
  expect(first == "# E0001: barrier in potentially diverged control flow", "page: " .. tostring(first))
  log("ok: :SkcExplain opened " .. first)
  vim.cmd("close")
  vim.api.nvim_set_current_buf(bufnr)

  -- 4. Fix it through the buffer: the client sends didChange; the diagnostics disappear.
  vim.api.nvim_buf_set_lines(bufnr, 1, 2, false, { "  if block_idx_x < 16 then Gpu.block_barrier" })
  wait("the diagnostics to clear", function() return #vim.diagnostic.get(bufnr) == 0 end)
  log("ok: diagnostics cleared after the edit")

  -- 5. The CUDA C of the kernel.
  vim.cmd("SkcShowCuda")
  local cuda
  wait("the CUDA C", function()
    cuda = buffer_of_type("cuda")
    return cuda ~= nil
  end)
  local header = vim.api.nvim_get_current_line()
  expect(header:find('__global__ void k%(') ~= nil, "the cursor is not on the kernel: " .. header)
  log("ok: :SkcShowCuda opened the CUDA C at " .. header)
  vim.cmd("close")

  -- 6. Shut the server down through the protocol (shutdown, then exit).
  local client
  for _, c in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    client = c.name == "skc" and c or client
  end
  expect(client ~= nil, "no skc client")
  vim.lsp.stop_client(client.id)
  wait("the server to exit", function() return vim.lsp.get_client_by_id(client.id) == nil end)
  log("ok: server exited")
end

local ok, err = pcall(main)
if ok then
  vim.cmd("qall!")
else
  fail(tostring(err))
end
