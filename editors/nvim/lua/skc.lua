-- The skc language server in Neovim 0.7 and later: `require("skc").setup()` starts `skc lsp` for every buffer of
-- filetype `sk` (one server per folder, reused), and adds two commands:
--
--   :SkcExplain [CODE]   the explanation page of CODE (default: the code of a diagnostic under the cursor), in a
--                        scratch Markdown buffer
--   :SkcShowCuda         the CUDA C skc emits for the buffer, in a split, at the kernel under the cursor
--
-- Options: `cmd` (default `{ "skc", "lsp" }`), `init_options` (for example `{ inlayHints = false }` or
-- `{ includePaths = { "lib" } }`), `settings` (sent as the workspace configuration), `on_attach`.

local M = {}

local clients = {} -- root folder -> client id (Neovim 0.7, which has no vim.lsp.start)

local function root_of(bufnr)
  return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":p:h")
end

function M.attach(bufnr, opts)
  local config = {
    name = "skc",
    cmd = opts.cmd or { "skc", "lsp" },
    root_dir = root_of(bufnr),
    init_options = opts.init_options,
    settings = opts.settings,
    on_attach = opts.on_attach,
  }
  if vim.lsp.start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = clients[config.root_dir]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(config)
    clients[config.root_dir] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

--- The code of an skc diagnostic on the cursor's line.
local function code_under_cursor()
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  for _, d in ipairs(vim.diagnostic.get(0, { lnum = line })) do
    local code = d.code or (d.user_data and d.user_data.lsp and d.user_data.lsp.code)
    if type(code) == "string" and code:match("^[EW]%d%d%d%d$") then
      return code
    end
  end
end

local function scratch(lines, filetype, split)
  vim.cmd(split)
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_win_set_buf(0, buf)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = filetype
  vim.bo[buf].modifiable = false
  return buf
end

--- Runs one of the server's commands; `handle` gets its result (errors are shown as messages).
local function execute(command, arguments, handle)
  vim.lsp.buf_request(0, "workspace/executeCommand", { command = command, arguments = arguments },
    function(err, result)
      if err then
        vim.notify("skc: " .. (err.message or tostring(err)), vim.log.levels.ERROR)
      elseif result ~= nil then
        handle(result)
      end
    end)
end

function M.explain(code)
  code = (code and code ~= "") and code or code_under_cursor()
  if not code then
    vim.notify("skc: no diagnostic code given or under the cursor", vim.log.levels.WARN)
    return
  end
  execute("skc.explain", { code }, function(markdown)
    scratch(vim.split(markdown, "\n", { plain = true }), "markdown", "new")
  end)
end

function M.show_cuda()
  local position = vim.api.nvim_win_get_cursor(0)
  local arguments = { vim.uri_from_bufnr(0), { line = position[1] - 1, character = position[2] } }
  execute("skc.showCuda", arguments, function(answer)
    scratch(vim.split(answer.source, "\n", { plain = true }), "cuda", "vnew")
    vim.api.nvim_win_set_cursor(0, { answer.line + 1, 0 })
  end)
end

function M.setup(opts)
  opts = opts or {}
  local group = vim.api.nvim_create_augroup("skc", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = "sk",
    callback = function(args)
      M.attach(args.buf, opts)
    end,
  })
  vim.api.nvim_create_user_command("SkcExplain", function(args) M.explain(args.args) end, { nargs = "?" })
  vim.api.nvim_create_user_command("SkcShowCuda", function() M.show_cuda() end, {})
end

return M
