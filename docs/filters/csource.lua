-- csource.lua - finds pieces of a C file for the book's filter: the
-- definition of a name (function, struct/union/enum, typedef, macro,
-- global) with the comment above it, or a marked region.
--
-- It reads C the way the project writes it: a definition starts at
-- column 0 and ends at its closing brace (or ';', or the last line of a
-- macro). No preprocessor, no parser; small enough to trust.

local M = {}

local function trim(s)
  return (s:gsub('^%s+', ''):gsub('%s+$', ''))
end

-- The lines of a file, or nil and a message.
function M.read_lines(path)
  local f, err = io.open(path, 'r')
  if not f then
    return nil, err
  end
  local text = f:read('a')
  f:close()
  local lines = {}
  for line in (text .. '\n'):gmatch('(.-)\r?\n') do
    lines[#lines + 1] = line
  end
  if text:sub(-1) == '\n' or text == '' then
    lines[#lines] = nil -- the split leaves one empty line at the end
  end
  return lines
end

-- The same lines with comments and the insides of string and character
-- literals blanked, so that braces and names in them are not seen.
local function code_only(lines)
  local out, in_comment = {}, false
  for i, line in ipairs(lines) do
    local buf, j, quote = {}, 1, nil
    while j <= #line do
      local c, c2 = line:sub(j, j), line:sub(j, j + 1)
      if in_comment then
        if c2 == '*/' then
          in_comment, j = false, j + 1
        end
        buf[#buf + 1] = ' '
      elseif quote then
        if c == '\\' then
          j = j + 1
          buf[#buf + 1] = ' '
        elseif c == quote then
          quote = nil
          buf[#buf + 1] = c
        else
          buf[#buf + 1] = ' '
        end
      elseif c2 == '/*' then
        in_comment, j = true, j + 1
        buf[#buf + 1] = ' '
      elseif c2 == '//' then
        break
      else
        if c == '"' or c == "'" then
          quote = c
        end
        buf[#buf + 1] = c
      end
      j = j + 1
    end
    out[i] = table.concat(buf)
  end
  return out
end

local function word(name)
  return '%f[%w_]' .. name .. '%f[^%w_]'
end

-- The last line of the declaration that starts on line i, whether it has
-- a body in braces, and the text before that body (its head). nil when
-- the braces never close.
local function extent(code, i)
  local depth, head, is_function = 0, {}, false
  for j = i, #code do
    local line = code[j]
    for k = 1, #line do
      local c = line:sub(k, k)
      if c == '{' then
        if depth == 0 and not head.done then
          head.done = true
          local text = table.concat(head)
          is_function = text:find('(', 1, true) ~= nil
            and text:find('=', 1, true) == nil
        end
        depth = depth + 1
      elseif c == '}' then
        depth = depth - 1
        if depth < 0 then
          return nil
        end
        if depth == 0 and is_function then
          return j, true, table.concat(head)
        end
      elseif c == ';' and depth == 0 then
        return j, head.done or false, table.concat(head)
      end
      if not head.done then
        head[#head + 1] = c
      end
    end
    if not head.done then
      head[#head + 1] = ' '
    end
  end
  return nil
end

-- The name a typedef declares, from its text (code only, one string).
local function typedef_names(text, has_body)
  if has_body then
    local after = text:match('.*}(.*)$') or ''
    return after
  end
  local pointer = text:match('%(%s*%*%s*([%a_][%w_]*)%s*%)')
  if pointer then
    return pointer
  end
  local decl = text:gsub(';%s*$', ''):gsub('%b[]', '')
  return decl:match('([%a_][%w_]*)%s*$') or ''
end

-- Does the declaration on lines i..last (code only) define name?
local function defines(code, i, last, body, head, name)
  local text = table.concat(code, ' ', i, last)
  if head:match('^%s*typedef%f[^%w_]') then
    if head:match('%f[%w_]struct%s+' .. name .. '%f[^%w_]')
      or head:match('%f[%w_]union%s+' .. name .. '%f[^%w_]')
      or head:match('%f[%w_]enum%s+' .. name .. '%f[^%w_]') then
      return true
    end
    return typedef_names(text, body):match(word(name)) ~= nil
  end
  for _, kind in ipairs({ 'struct', 'union', 'enum' }) do
    if head:match('^[%w_%s]*' .. kind .. '%s+' .. name .. '%s*;?%s*$') then
      return true
    end
  end
  -- A function or a global: the name's first appearance, after a type.
  local s, e = head:find(word(name))
  if not s then
    return false
  end
  local before, after = head:sub(1, s - 1), head:sub(e + 1)
  if before:find('[=(),;]') then
    return false
  end
  return after:match('^%s*%(') ~= nil or after:match('^%s*[=%[;]') ~= nil
    or (after:match('^%s*$') ~= nil and body)
end

-- Where a comment directly above line start begins (start if none).
local function comment_above(lines, code, start)
  local k = start - 1
  if k < 1 then
    return start
  end
  local t = trim(lines[k])
  local first = nil
  if t:match('%*/$') then
    local j = k
    while j >= 1 and not lines[j]:find('/*', 1, true) do
      j = j - 1
    end
    if j >= 1 and lines[j]:match('^%s*/%*') then
      first = j
    end
  elseif t:match('^//') then
    first = k
    while first > 1 and trim(lines[first - 1]):match('^//') do
      first = first - 1
    end
  end
  if not first then
    return start
  end
  for j = first, k do
    if trim(code[j]) ~= '' then
      return start
    end
  end
  return first
end

local function macro_end(lines, i)
  local j = i
  while lines[j]:match('\\%s*$') and j < #lines do
    j = j + 1
  end
  return j
end

-- Does line look like the return type of a function named on the next
-- line ("static double\nsquare(double x)")?
local function is_type_line(code_line)
  local t = trim(code_line)
  return code_line:match('^[%a_]') ~= nil and not t:match('[;{}),=\\]$')
    and not t:match('^typedef%f[^%w_]')
end

-- The definition of name in lines: {first, last, body}, where first
-- includes the comment above it (unless with_comment is false). A
-- definition with a body wins over declarations. nil when none.
function M.find(lines, name, with_comment)
  assert(name:match('^[%a_][%w_]*$'), 'not a C name: ' .. name)
  local code = code_only(lines)
  local best = nil
  for i, line in ipairs(code) do
    local found = nil
    if line:match('^#%s*define%s+' .. name .. '%f[^%w_]') then
      found = { start = i, last = macro_end(lines, i), body = true }
    elseif line:match('^[%a_]') and line:find(name, 1, true) then
      local last, body, head = extent(code, i)
      if last and defines(code, i, last, body, head, name) then
        local start = i
        if line:match('^' .. name .. '%s*%(') and i > 1
          and is_type_line(code[i - 1]) then
          start = i - 1
        end
        found = { start = start, last = last, body = body }
      end
    end
    if found and (not best or (found.body and not best.body)) then
      best = found
    end
  end
  if not best then
    return nil
  end
  best.first = best.start
  if with_comment ~= false then
    best.first = comment_above(lines, code, best.start)
  end
  return best
end

-- The name a declaration's head (code only) gives: a function's or a
-- global's, a typedef's, or a struct, union or enum tag. nil if none.
local function head_name(head, text, body)
  if head:match('^%s*typedef%f[^%w_]') then
    return typedef_names(text, body):match('([%a_][%w_]*)%s*;?%s*$')
  end
  local tag = head:match('^[%w_%s]*%f[%w_]struct%s+([%a_][%w_]*)%s*;?%s*$')
    or head:match('^[%w_%s]*%f[%w_]union%s+([%a_][%w_]*)%s*;?%s*$')
    or head:match('^[%w_%s]*%f[%w_]enum%s+([%a_][%w_]*)%s*;?%s*$')
  if tag then
    return tag
  end
  local before = head:match('^([^=(%[;]*)') or head
  return before:match('([%a_][%w_]*)%s*$')
end

-- Every top-level definition and declaration of lines, in order:
-- {name, first, last} (first without the comment above). Used to say
-- where a listing goes ("after function_apply").
function M.definitions(lines)
  local code = code_only(lines)
  local list, i = {}, 1
  while i <= #code do
    local line = code[i]
    local name, last = nil, nil
    if line:match('^#%s*define%s+') then
      name = line:match('^#%s*define%s+([%a_][%w_]*)')
      last = macro_end(lines, i)
    elseif line:match('^[%a_]') then
      local body, head
      last, body, head = extent(code, i)
      if last then
        name = head_name(head, table.concat(code, ' ', i, last), body)
      end
    end
    if name and last then
      list[#list + 1] = { name = name, first = i, last = last }
      i = last + 1
    else
      i = i + 1
    end
  end
  return list
end

-- The text of lines first..last.
function M.text(lines, first, last)
  return table.concat(lines, '\n', first, last)
end

-- "start"/"end" and a name when line is a region marker:
--   // region: NAME      or  /* region: NAME */
--   // endregion         or  // endregion: NAME
local function region_marker(line)
  local t = trim(line)
  local body = t:match('^//%s*(.-)$') or t:match('^/%*%s*(.-)%s*%*/$')
    or t:match('^#%s*(region.-)$') or t:match('^#%s*(endregion.-)$')
  if not body then
    return nil
  end
  local name = body:match('^region:?%s+([%w_%-]+)$')
  if name then
    return 'start', name
  end
  if body:match('^endregion%f[^%w_]') then
    return 'end', body:match('^endregion:?%s+([%w_%-]+)$')
  end
  return nil
end

local function dedent(chunk)
  local indent = nil
  for _, line in ipairs(chunk) do
    if trim(line) ~= '' then
      local lead = #line:match('^ *')
      indent = indent and math.min(indent, lead) or lead
    end
  end
  local out = {}
  for i, line in ipairs(chunk) do
    out[i] = line:sub((indent or 0) + 1)
  end
  return out
end

-- The lines of region name, without its markers (nor those of regions
-- nested in it), dedented, and the line number of its first line; or
-- nil and a message.
function M.region(lines, name)
  local start = nil
  for i, line in ipairs(lines) do
    local kind, n = region_marker(line)
    if kind == 'start' and n == name then
      start = i
      break
    end
  end
  if not start then
    return nil, 'no region marked "' .. name .. '"'
  end
  local open, chunk = {}, {}
  for i = start + 1, #lines do
    local kind, n = region_marker(lines[i])
    if kind == 'start' then
      open[#open + 1] = n
    elseif kind == 'end' then
      if n == name or (not n and #open == 0) then
        if #chunk == 0 then
          return nil, 'region "' .. name .. '" is empty'
        end
        return dedent(chunk), start + 1
      end
      open[#open] = nil
    else
      chunk[#chunk + 1] = lines[i]
    end
  end
  return nil, 'region "' .. name .. '" has no endregion marker'
end

return M
