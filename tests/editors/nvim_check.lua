-- Neovim (0.7 and later) as seam's client: start seam with
-- vim.lsp.start_client, attach the buffer, ask textDocument/completion at
-- SEAM_LINE:SEAM_COL (0-based) and write the responses to SEAM_OUT as JSON.
local seam = os.getenv("SEAM_BIN")
local out = os.getenv("SEAM_OUT")
local line = tonumber(os.getenv("SEAM_LINE"))
local col = tonumber(os.getenv("SEAM_COL"))

local function finish(payload)
  local f = assert(io.open(out, "w"))
  f:write(vim.fn.json_encode(payload))
  f:close()
  vim.cmd("qa!")
end

local bufnr = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = "seam",
  cmd = { seam },
  root_dir = vim.fn.getcwd(),
  init_options = { train_stdlib = false, debounce_ms = 0 },
})
if not client_id then
  finish({ error = "start_client failed" })
  return
end
vim.lsp.buf_attach_client(bufnr, client_id)
local ok = vim.wait(20000, function()
  local c = vim.lsp.get_client_by_id(client_id)
  return c ~= nil and c.initialized == true
end, 50)
if not ok then
  finish({ error = "seam did not initialize" })
  return
end
local params = {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  position = { line = line, character = col },
  context = { triggerKind = 1 },
}
local responses, err = vim.lsp.buf_request_sync(bufnr, "textDocument/completion", params, 20000)
local results = {}
for _, r in pairs(responses or {}) do
  table.insert(results, { result = r.result, error = r.error })
end
vim.lsp.stop_client(client_id)
vim.wait(3000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
finish({ responses = results, error = err })
