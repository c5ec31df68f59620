-- book.lua - the pandoc filter behind every chapter (docs/README.md):
-- turns the code blocks of class include, diff, output, dot and image
-- into the steps' real code, diffs, outputs and pictures.
--
-- BOOK_MODE=check renders nothing: it resolves every reference of the
-- chapter, prints what does not resolve and exits 1 (tests/book_check.sh).
-- Rendering and checking share every lookup, so they cannot disagree.

local path = pandoc.path

local function absolute(p)
  if path.is_absolute(p) then
    return path.normalize(p)
  end
  return path.normalize(path.join({ pandoc.system.get_working_directory(), p }))
end

local FILTERS = path.directory(absolute(PANDOC_SCRIPT_FILE))
package.path = FILTERS .. '/?.lua;' .. package.path
local csource = require('csource')

local DOCS = path.directory(FILTERS)
local ROOT = path.directory(DOCS)
local CHECK = os.getenv('BOOK_MODE') == 'check'
local BUILD = absolute(os.getenv('BOOK_BUILD') or (DOCS .. '/build'))
local INPUTS = PANDOC_STATE.input_files
local HTML = FORMAT:match('html') ~= nil or FORMAT:match('epub') ~= nil
local EPUB = FORMAT:match('epub') ~= nil

local errors = {}  -- what did not resolve, in order
local deps = {}    -- files the output depends on (for make)
local dep_list = {}

local function relative(p)
  return path.make_relative(p, ROOT, true)
end

local function chapter_name()
  if #INPUTS == 1 then
    return relative(absolute(INPUTS[1]))
  end
  return 'the book'
end

local function depend(p)
  if not deps[p] then
    deps[p] = true
    dep_list[#dep_list + 1] = p
  end
end

-- ------------------------------------------------------------ shell

local function quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- Runs a shell command; returns its output (stdout, and stderr where the
-- command redirects it) and whether it exited with status 0.
local function sh(cmd)
  local p = io.popen(cmd)
  local out = p:read('a')
  local ok = p:close()
  return out, ok == true
end

local function exists(p)
  local f = io.open(p, 'r')
  if f then
    f:close()
    return true
  end
  return false
end

-- Without a shell (each one costs a fork of pandoc): opening a folder
-- works, reading it fails with EISDIR.
local function is_dir(p)
  local f = io.open(p, 'r')
  if not f then
    return false
  end
  local _, _, code = f:read(1)
  f:close()
  return code == 21
end

local function read_file(p)
  local f = io.open(p, 'r')
  if not f then
    return nil
  end
  local text = f:read('a')
  f:close()
  depend(p)
  return text
end

local tools = {}
local function have(command)
  if tools[command] == nil then
    local _, ok = sh('command -v ' .. quote(command) .. ' >/dev/null 2>&1')
    tools[command] = ok
  end
  return tools[command]
end

-- ------------------------------------------------------------ blocks

-- A reference that does not resolve: raised with error(), caught per block.
local Unresolved = {}
local function fail(fmt, ...)
  error(setmetatable({ message = string.format(fmt, ...) }, Unresolved), 0)
end

-- The block as the chapter wrote it, for messages.
local function describe(block)
  local parts = {}
  for _, class in ipairs(block.classes) do
    parts[#parts + 1] = '.' .. class
  end
  for key, value in pairs(block.attributes) do
    if value:find('[%s"]') then
      value = '"' .. value .. '"'
    end
    parts[#parts + 1] = key .. '=' .. value
  end
  return '{' .. table.concat(parts, ' ') .. '}'
end

local ALLOWED = {
  include = { step = 1, file = 1, name = 1, region = 1, comment = 1,
              caption = 1 },
  diff = { step = 1, from = 1, file = 1, name = 1, context = 1,
           caption = 1, fold = 1 },
  output = { step = 1, run = 1, stderr = 1, head = 1, tail = 1, args = 1,
             status = 1, caption = 1, file = 1, seed = 1 },
  compile = { step = 1, file = 1, cflags = 1, caption = 1 },
  dot = { step = 1, file = 1, args = 1, caption = 1, width = 1, seed = 1 },
  image = { step = 1, file = 1, args = 1, caption = 1, width = 1,
            seed = 1 },
  plot = { data = 1, caption = 1, width = 1 },
  stages = {},
}

local function check_attributes(kind, block)
  for key in pairs(block.attributes) do
    if not ALLOWED[kind][key] then
      fail('unknown attribute %s= (a .%s block takes: %s)', key, kind,
        table.concat((function()
          local keys = {}
          for k in pairs(ALLOWED[kind]) do
            keys[#keys + 1] = k
          end
          table.sort(keys)
          return keys
        end)(), ', '))
    end
  end
end

local function flag(value, key)
  if value == nil or value == 'false' or value == 'no' then
    return false
  end
  if value == 'true' or value == 'yes' then
    return true
  end
  fail('%s=%s: write %s=true or %s=false', key, value, key, key)
end

local function number(value, key)
  if value == nil then
    return nil
  end
  local n = tonumber(value)
  if not n or n < 0 or n ~= math.floor(n) then
    fail('%s=%s is not a count', key, value)
  end
  return n
end

-- ------------------------------------------------------------ steps

local function step_dir(nn)
  return ROOT .. '/steps/step' .. nn
end

-- "1", "01" -> "01", checking that the step exists.
local function parse_step(value, key)
  local n = tonumber(value or '')
  if not n or n ~= math.floor(n) or n < 0 then
    fail('%s=%s is not a step number', key or 'step', tostring(value))
  end
  local nn = string.format('%02d', n)
  if not is_dir(step_dir(nn)) then
    fail('there is no steps/step%s', nn)
  end
  return nn
end

local function need_step(attrs)
  if not attrs.step then
    fail('step= is missing')
  end
  return parse_step(attrs.step)
end

-- The C sources of a step (.c and .h, dezero/ included), sorted.
local listed = {}
local function step_sources(nn)
  if listed[nn] then
    return listed[nn]
  end
  local out = sh('cd ' .. quote(step_dir(nn)) .. ' && find . -path ./build'
    .. ' -prune -o -type f \\( -name "*.c" -o -name "*.h" \\) -print'
    .. ' | sed "s|^\\./||" | sort')
  local files = {}
  for name in out:gmatch('[^\n]+') do
    files[#files + 1] = name
  end
  depend(step_dir(nn))
  listed[nn] = files
  return files
end

-- Whether a file of a step is a program of its own beside main.c (any
-- other .c at the top, mk/step.mk: step 52's tour.c). Its definitions
-- are not the step's program's: a name is looked for in it only when
-- file= names it, and compared only with the same file in the step
-- before.
local function own_program(file)
  return file ~= 'main.c' and file:match('^[^/]+%.c$') ~= nil
end

-- Where file= points: inside the step, or (without step=) from the root.
local function source_path(nn, file)
  if nn then
    return step_dir(nn) .. '/' .. file
  end
  return ROOT .. '/' .. file
end

-- How a listing names its file: step01/main.c, or common/nd.h.
local function caption_of(full)
  local in_steps = path.make_relative(full, ROOT .. '/steps', true)
  if in_steps:match('^%.%.') then
    return relative(full)
  end
  return in_steps
end

local function language(file)
  if file:match('%.[ch]$') then
    return 'c'
  elseif file:match('Makefile$') or file:match('%.mk$') then
    return 'makefile'
  elseif file:match('%.sh$') then
    return 'bash'
  elseif file:match('%.py$') then
    return 'python'
  end
  return nil
end

local function read_lines(full)
  local lines, err = csource.read_lines(full)
  if not lines then
    fail('cannot read %s (%s)', relative(full), err)
  end
  depend(full)
  return lines
end

-- ------------------------------------------------------------ include

local function split_names(value)
  local names = {}
  for name in value:gmatch('[^,%s]+') do
    if not name:match('^[%a_][%w_]*$') then
      fail('name=%s: "%s" is not a C name', value, name)
    end
    names[#names + 1] = name
  end
  if #names == 0 then
    fail('name= is empty')
  end
  return names
end

-- The definition of name in file (or, without file, in whichever of the
-- step's sources defines it): {path, lines, def}.
local function find_definition(nn, file, name, with_comment)
  if file then
    local full = source_path(nn, file)
    local lines = read_lines(full)
    local def = csource.find(lines, name, with_comment)
    if not def then
      fail('%s has no function, struct, typedef, macro or global named %s',
        relative(full), name)
    end
    return { path = full, lines = lines, def = def }
  end
  if not nn then
    fail('name= needs file= or step=')
  end
  local found, others = {}, {}
  for _, f in ipairs(step_sources(nn)) do
    if own_program(f) then
      others[#others + 1] = f
    else
      local full = source_path(nn, f)
      local lines = read_lines(full)
      local def = csource.find(lines, name, with_comment)
      if def then
        found[#found + 1] = { path = full, lines = lines, def = def }
      end
    end
  end
  if #found == 0 then
    fail('steps/step%s has no function, struct, typedef, macro or global'
      .. ' named %s%s', nn, name, #others == 0 and '' or
      (' (a program of its own, ' .. table.concat(others, ', ')
        .. ', is searched only with file=)'))
  end
  -- A definition with a body (in a .c) wins over declarations (in a .h).
  local bodies = {}
  for _, hit in ipairs(found) do
    if hit.def.body then
      bodies[#bodies + 1] = hit
    end
  end
  local pick = #bodies > 0 and bodies or found
  if #pick > 1 then
    local where = {}
    for _, hit in ipairs(pick) do
      where[#where + 1] = relative(hit.path)
    end
    fail('%s is defined in %s: say which with file=', name,
      table.concat(where, ' and '))
  end
  return pick[1]
end

-- A caption: the file (or the caption= text), and a note after it.
local function caption_div(caption, note)
  local inlines = { pandoc.Str(caption) }
  if note then
    inlines[#inlines + 1] = pandoc.Space()
    inlines[#inlines + 1] = pandoc.Span({ pandoc.Str(note) },
      { class = 'note' })
  end
  return pandoc.Div({ pandoc.Plain(inlines) }, { class = 'caption' })
end

local function listing(caption, code, lang, classes, attrs, note)
  local cls = { lang }
  local kind = lang == 'output' and 'listing output' or 'listing'
  for _, c in ipairs(classes or {}) do
    cls[#cls + 1] = c
  end
  return pandoc.Div({
    caption_div(caption, note),
    pandoc.CodeBlock(code, pandoc.Attr('', cls, attrs or {})),
  }, { class = kind })
end

-- ------------------------------------------------------------ place

-- A listing of a step's code says what it is to the step before, as
-- Crafting Interpreters' listings do: new (and where it goes: "after
-- function_apply"), a replacement (of which code), or unchanged context.

-- The file's path inside its step: main.c, dezero/core.c.
local function in_step(full, nn)
  return path.make_relative(full, step_dir(nn), true)
end

-- The step before nn, when there is one: the nearest below it that has
-- a folder, since a chapter of theory may have none (56: step 57 comes
-- after 55).
local function step_before(nn)
  for n = tonumber(nn) - 1, 1, -1 do
    local prev = string.format('%02d', n)
    if is_dir(step_dir(prev)) then
      return prev
    end
  end
  return nil
end

-- What the piece (a definition of name in file full of step nn) is to
-- step prev: {status = 'new' | 'unchanged' | 'changed', from = the file
-- it was in when another, after = the definition before it}.
local function place_of(piece, nn, prev, with_comment)
  local file = in_step(piece.path, nn)
  local where = exists(source_path(prev, file)) and file or nil
  local own = own_program(file)
  local ok, hit = false, nil
  if where or not own then
    ok, hit = pcall(find_definition, prev, where, piece.name, with_comment)
  end
  if not ok and where and not own then  -- not in the same file: elsewhere?
    ok, hit = pcall(find_definition, prev, nil, piece.name, with_comment)
  end
  if not ok and hit ~= nil and getmetatable(hit) ~= Unresolved then
    error(hit, 0)
  end
  -- A declaration (in a header) is new where the step before had only
  -- the definition, in another file.
  if not ok or (not piece.body and hit.def.body
      and in_step(hit.path, prev) ~= file) then
    -- Where it goes: after the definition that ends before it.
    local after = nil
    for _, d in ipairs(csource.definitions(piece.lines)) do
      if d.last < piece.start then
        after = d.name
      end
    end
    return { status = 'new', after = after }
  end
  local old = csource.text(hit.lines, hit.def.first, hit.def.last)
  local old_file = in_step(hit.path, prev)
  return { status = old == piece.text and 'unchanged' or 'changed',
    from = old_file ~= file and old_file or nil }
end

-- The note of a listing of pieces (all of one file).
local function place_note(pieces, nn, with_comment)
  local prev = step_before(nn)
  if not prev then
    return nil
  end
  local groups, order = {}, {}
  for _, piece in ipairs(pieces) do
    local p = place_of(piece, nn, prev, with_comment)
    local key = p.status .. '|' .. (p.from or '')
    if not groups[key] then
      groups[key] = { place = p, names = {} }
      order[#order + 1] = key
    end
    table.insert(groups[key].names, piece.name)
  end
  local step = 'step ' .. tonumber(prev)
  local parts = {}
  for _, key in ipairs(order) do
    local g = groups[key]
    local p, names = g.place, table.concat(g.names, ', ')
    local text
    if p.status == 'new' then
      text = 'new'
      if p.after then
        text = text .. ', after ' .. p.after
      else
        text = text .. ', at the top of the file'
      end
    elseif p.status == 'changed' then
      text = 'replaces ' .. step .. "'s " .. names
        .. (p.from and (' (in ' .. p.from .. ')') or '')
    elseif p.from then
      text = 'moved unchanged from ' .. p.from
    else
      text = 'unchanged since ' .. step
    end
    if #order > 1 and p.status ~= 'changed' then
      text = names .. ': ' .. text
    end
    parts[#parts + 1] = text
  end
  return table.concat(parts, '; ')
end

-- The note of a whole file, or nil.
local function file_note(full, nn)
  local prev = step_before(nn)
  if not prev then
    return nil
  end
  local old = source_path(prev, in_step(full, nn))
  if not exists(old) then
    return 'new in step ' .. tonumber(nn)
  end
  local a, b = read_file(old), read_file(full)
  return a == b and ('unchanged since step ' .. tonumber(prev))
    or ('the whole file, as step ' .. tonumber(nn) .. ' has it')
end

local function include(block, attrs)
  local nn = attrs.step and parse_step(attrs.step)
  local with_comment = attrs.comment == nil or flag(attrs.comment, 'comment')
  if attrs.name and attrs.region then
    fail('give name= or region=, not both')
  end
  local pieces = {} -- {path, text, first, name, lines, start}
  if attrs.name then
    for _, name in ipairs(split_names(attrs.name)) do
      local hit = find_definition(nn, attrs.file, name, with_comment)
      pieces[#pieces + 1] = { path = hit.path, first = hit.def.first,
        text = csource.text(hit.lines, hit.def.first, hit.def.last),
        name = name, lines = hit.lines, start = hit.def.start,
        body = hit.def.body }
    end
  else
    if not attrs.file then
      fail('file= is missing (or name= to find a definition)')
    end
    local full = source_path(nn, attrs.file)
    local lines = read_lines(full)
    if attrs.region then
      local chunk, first = csource.region(lines, attrs.region)
      if not chunk then
        fail('%s: %s', relative(full), first)
      end
      pieces[1] = { path = full, text = table.concat(chunk, '\n'),
        first = first }
    else
      pieces[1] = { path = full, text = table.concat(lines, '\n'), first = 1 }
    end
  end
  if CHECK then
    return nil
  end
  -- Consecutive pieces of one file share a listing.
  local blocks, group = {}, nil
  local function flush()
    if not group then
      return
    end
    local numbered = block.classes:includes('numberLines')
    local attr = {}
    if numbered and #group.texts == 1 then
      attr.startFrom = tostring(group.first)
    end
    local note = nil
    if nn and attrs.name then
      note = place_note(group.pieces, nn, with_comment)
    elseif nn and not attrs.region then
      note = file_note(group.path, nn)
    end
    blocks[#blocks + 1] = listing(attrs.caption or caption_of(group.path),
      table.concat(group.texts, '\n\n'), language(group.path) or 'default',
      numbered and { 'numberLines' } or {}, attr, note)
  end
  for _, piece in ipairs(pieces) do
    if not group or group.path ~= piece.path then
      flush()
      group = { path = piece.path, texts = {}, first = piece.first,
        pieces = {} }
    end
    group.texts[#group.texts + 1] = piece.text
    group.pieces[#group.pieces + 1] = piece
  end
  flush()
  return blocks
end

-- ------------------------------------------------------------ diff

local function escape_html(s)
  return (s:gsub('&', '&amp;'):gsub('<', '&lt;'):gsub('>', '&gt;'))
end

-- The lines as highlighted HTML, one string per line (pandoc's own
-- highlighter, so diffs look like the other listings).
local function highlight(lines, lang)
  local plain = {}
  for i, line in ipairs(lines) do
    plain[i] = escape_html(line)
  end
  if not lang or #lines == 0 then
    return plain
  end
  -- A last line of its own, so that pandoc keeps trailing empty lines.
  local text = table.concat(lines, '\n') .. '\nend'
  local html = pandoc.write(pandoc.Pandoc({
    pandoc.CodeBlock(text, { class = lang }) }), 'html')
  local out = {}
  for line in (html .. '\n'):gmatch('(.-)\n') do
    local content = line:match('<span id="cb%d+%-%d+">(.*)$')
    if content then
      content = content:gsub('^<a [^>]*></a>', '')
      content = content:gsub('</code></pre></div>$', '')
      content = content:gsub('</span>$', '')
      out[#out + 1] = content
    end
  end
  if #out ~= #lines + 1 then
    return plain
  end
  out[#out] = nil
  return out
end

-- The diffs come from mk/diff.sh, the script behind `make diff`, so the
-- book and the terminal show the same thing: `git diff --no-index
-- --histogram --find-renames`. With --book it marks, by colour, the lines
-- git's --color-moved=blocks finds moved unchanged.
local DIFF_SH = ROOT .. '/mk/diff.sh'
local MOVED_CODES = { ['35'] = true, ['36'] = true } -- magenta, cyan

local function run_diff(args)
  local out, ok = sh(quote(DIFF_SH) .. ' --book ' .. args .. ' 2>&1')
  if not ok then
    fail('mk/diff.sh %s failed:\n%s', args, out)
  end
  return out
end

-- Splits the output of mk/diff.sh --book into files: {old, new, status
-- ('new', 'deleted', 'renamed' or nil), hunks = {{header, lines =
-- {{sign, text, moved}}}}}. A file the step drops is mk/diff.sh's one
-- line, `step52/tour.c: removed in step 53 (250 lines)`: a file with
-- status 'deleted', no hunks, and that line's words as its `removed`.
local function parse_diff(text)
  local files, file, hunk = {}, nil, nil
  for raw in (text .. '\n'):gmatch('(.-)\n') do
    local code = raw:match('^\27%[([%d;]*)m')
    local line = raw:gsub('\27%[[%d;]*m', '')
    local gone, what = line:match(
      '^(%S+): (removed in step %d+ %(%d+ lines?%))$')
    if gone then
      file = { old = gone, new = gone, status = 'deleted', hunks = {},
        removed = what }
      files[#files + 1] = file
      hunk = nil
    elseif line:match('^diff %-%-git ') then
      local a, b = line:match('^diff %-%-git (%S+) (%S+)$')
      file = { old = a, new = b, hunks = {} }
      files[#files + 1] = file
      hunk = nil
    elseif file and line:match('^@@') then
      hunk = { header = line, lines = {} }
      file.hunks[#file.hunks + 1] = hunk
    elseif hunk then
      local sign = line:sub(1, 1)
      if sign == ' ' or sign == '+' or sign == '-' then
        hunk.lines[#hunk.lines + 1] = { sign = sign, text = line:sub(2),
          moved = sign ~= ' ' and MOVED_CODES[code] == true }
      end -- "\ No newline at end of file": nothing to show
    elseif file then
      if line:match('^new file mode') then
        file.status = 'new'
      elseif line:match('^deleted file mode') then
        file.status = 'deleted'
      elseif line:match('^rename from ') then
        file.old, file.status = line:sub(13), 'renamed'
      elseif line:match('^rename to ') then
        file.new = line:sub(11)
      elseif line:match('^%-%-%- ') and line:sub(5) ~= '/dev/null' then
        file.old = line:sub(5)
      elseif line:match('^%+%+%+ ') and line:sub(5) ~= '/dev/null' then
        file.new = line:sub(5)
      end
    end
  end
  return files
end

-- The names a run of C lines defines (functions, structs, typedefs,
-- macros, tables), in order, for the note that says what moved.
local function defined_names(lines)
  local names, seen = {}, {}
  local function add(name)
    if name and not seen[name] then
      seen[name] = true
      names[#names + 1] = name
    end
  end
  for _, l in ipairs(lines) do
    local t = l.text
    if t:match('^[%a_#]') and not t:match('^#include') then
      add(t:match('^#define%s+([%a_][%w_]*)')
        or t:match('^typedef%s+struct%s+([%a_][%w_]*)')
        or t:match('^struct%s+([%a_][%w_]*)%s*{')
        or t:match('^typedef[^(]*[%s%*]([%a_][%w_]*)%s*;')
        or t:match('^[%a_][%w_%s%*]-([%a_][%w_]*)%s*%(')
        or t:match('^[%a_][%w_%s%*]-([%a_][%w_]*)%s*%[?%]?%s*='))
    elseif t:match('^}%s*([%a_][%w_]*)%s*;') then
      add(t:match('^}%s*([%a_][%w_]*)%s*;'))      -- } Name; of a typedef
    end
  end
  return names
end

-- A run of at least FOLD_MOVED lines moved unchanged is shown as one line
-- saying where it went (or came from) and what it holds; shorter runs
-- stay, dimmed.
local FOLD_MOVED = 4

local function strip_step(p)
  return (p:gsub('^step%d%d/', ''))
end

-- Replaces each long run of moved lines in every hunk by a fold:
-- {sign, fold = text}.
local function fold_moves(files)
  -- Where each moved line's text was added and removed: text -> files.
  local where = { ['+'] = {}, ['-'] = {} }
  for _, f in ipairs(files) do
    for _, h in ipairs(f.hunks) do
      for _, l in ipairs(h.lines) do
        if l.moved then
          local side = where[l.sign]
          local name = strip_step(l.sign == '+' and f.new or f.old)
          side[l.text] = side[l.text] or {}
          side[l.text][name] = true
        end
      end
    end
  end
  local function note(run, sign, here)
    -- the other side's files that hold the run's lines, most lines first
    local other, count, order = where[sign == '+' and '-' or '+'], {}, {}
    for _, l in ipairs(run) do
      for name in pairs(other[l.text] or {}) do
        if not count[name] then
          order[#order + 1] = name
        end
        count[name] = (count[name] or 0) + 1
      end
    end
    table.sort(order, function(a, b)
      if count[a] ~= count[b] then
        return count[a] > count[b]
      end
      return a < b
    end)
    local places = {}
    for i, name in ipairs(order) do
      if i > 2 or count[name] * 4 < #run then
        break
      end
      places[#places + 1] = name == here and ('elsewhere in ' .. name)
        or name
    end
    local text = #run .. ' lines moved'
    if sign == '-' then
      text = text .. ' unchanged'
        .. (#places > 0 and (' to ' .. table.concat(places, ' and ')) or '')
    else
      text = text .. ' here unchanged'
        .. (#places > 0 and (' from ' .. table.concat(places, ' and '))
          or '')
    end
    local names = defined_names(run)
    if #names > 0 then
      if #names > 6 then
        names = { names[1], names[2], names[3], names[4], names[5],
          '…' }
      end
      text = text .. ': ' .. table.concat(names, ', ')
    end
    return text
  end
  for _, f in ipairs(files) do
    for _, h in ipairs(f.hunks) do
      local out, i = {}, 1
      while i <= #h.lines do
        local l = h.lines[i]
        local j = i
        if l.moved then
          while j < #h.lines and h.lines[j + 1].moved
              and h.lines[j + 1].sign == l.sign do
            j = j + 1
          end
        end
        if l.moved and j - i + 1 >= FOLD_MOVED then
          local run = table.move(h.lines, i, j, 1, {})
          out[#out + 1] = { sign = l.sign, fold = note(run, l.sign,
            strip_step(l.sign == '+' and f.new or f.old)) }
        else
          table.move(h.lines, i, j, #out + 1, out)
        end
        i = j + 1
      end
      h.lines = out
    end
  end
end

local function diff_html(file, lang)
  local rows = {}
  if file.removed then
    rows[1] = '<span class="line moved del"><span class="sign">-</span>'
      .. '<span class="note">' .. escape_html(file.removed) .. '</span></span>'
  end
  local CLASS = { ['+'] = 'add', ['-'] = 'del', [' '] = 'ctx' }
  for _, hunk in ipairs(file.hunks) do
    -- Each side is highlighted as the code it is, so that a comment
    -- opened on a removed line does not run on into the added ones.
    local old, new, at = {}, {}, {}
    for i, l in ipairs(hunk.lines) do
      if not l.fold then
        if l.sign ~= '+' then
          old[#old + 1] = l.text
          at[i] = #old
        end
        if l.sign ~= '-' then
          new[#new + 1] = l.text
          at[i] = #new
        end
      end
    end
    old, new = highlight(old, lang), highlight(new, lang)
    rows[#rows + 1] = '<span class="line hunk">' .. escape_html(hunk.header)
      .. '</span>'
    for i, l in ipairs(hunk.lines) do
      if l.fold then
        rows[#rows + 1] = '<span class="line moved ' .. CLASS[l.sign]
          .. '"><span class="sign">' .. l.sign .. '</span><span class="note">'
          .. escape_html(l.fold) .. '</span></span>'
      else
        local html = (l.sign == '-' and old or new)[at[i]]
        rows[#rows + 1] = '<span class="line ' .. CLASS[l.sign]
          .. (l.moved and ' moved' or '') .. '"><span class="sign">'
          .. l.sign .. '</span>' .. html .. '</span>'
      end
    end
  end
  return '<div class="sourceCode"><pre class="sourceCode diff">'
    .. '<code class="sourceCode">' .. table.concat(rows, '\n')
    .. '</code></pre></div>'
end

local function diff_text(file)
  if file.removed then
    return file.old .. ': ' .. file.removed
  end
  local rows = { '--- ' .. file.old, '+++ ' .. file.new }
  for _, hunk in ipairs(file.hunks) do
    rows[#rows + 1] = hunk.header
    for _, l in ipairs(hunk.lines) do
      rows[#rows + 1] = l.sign .. (l.fold and ('⋯ ' .. l.fold) or l.text)
    end
  end
  return table.concat(rows, '\n')
end

local function write_temp(text)
  local name = os.tmpname()
  local f = assert(io.open(name, 'w'))
  f:write(text)
  f:close()
  return name
end

-- The piece of a step that the diff compares: a definition (or '' when
-- the step lacks it), with the file it came from.
local function definition_text(nn, file, name)
  local ok, hit = pcall(find_definition, nn, file, name, true)
  if not ok then
    if getmetatable(hit) == Unresolved then
      return nil, hit.message
    end
    error(hit, 0)
  end
  return csource.text(hit.lines, hit.def.first, hit.def.last) .. '\n', hit.path
end

-- What a .diff block compares: {files, from, nn}, the files parsed and
-- captioned (nil in check mode once every reference has resolved).
local function diff_files(attrs)
  local nn = need_step(attrs)
  local from
  if attrs.from then
    from = parse_step(attrs.from, 'from')
  else
    from = step_before(nn)
    if not from then
      fail('there is no step before step %s to compare it with', nn)
    end
  end
  local context = number(attrs.context, 'context') or 3
  local options = '-U ' .. context .. ' '
  local out, labels
  depend(DIFF_SH)
  if attrs.name then
    local names = split_names(attrs.name)
    if #names > 1 then
      fail('a diff compares one name at a time')
    end
    local new, new_path = definition_text(nn, attrs.file, names[1])
    local old, old_path = definition_text(from, attrs.file, names[1])
    if not new and not old then
      fail('neither step%s nor step%s defines %s', from, nn, names[1])
    end
    if CHECK then
      return nil
    end
    local a, b = write_temp(old or ''), write_temp(new or '')
    local label = function(p, n)
      return p and caption_of(p) or ('step' .. n .. '/' .. (attrs.file or '-'))
    end
    labels = { old = label(old_path, from), new = label(new_path, nn) }
    out = run_diff(options .. '--files ' .. quote(a) .. ' ' .. quote(b))
    os.remove(a)
    os.remove(b)
  elseif attrs.file then
    local a, b = source_path(from, attrs.file), source_path(nn, attrs.file)
    if not exists(a) and not exists(b) then
      fail('neither steps/step%s nor steps/step%s has %s', from, nn,
        attrs.file)
    end
    depend(a)
    depend(b)
    if CHECK then
      return nil
    end
    out = run_diff(options .. from .. ' ' .. nn .. ' ' .. quote(attrs.file))
  else
    -- The whole step, as `make diff` shows it.
    step_sources(from)
    step_sources(nn)
    if CHECK then
      return nil
    end
    out = run_diff(options .. from .. ' ' .. nn)
  end
  local files = parse_diff(out)
  for _, file in ipairs(files) do
    if labels then
      file.old, file.new = labels.old, labels.new
      file.status = nil
    end
  end
  fold_moves(files)
  return { files = files, from = from, nn = nn, named = attrs.name ~= nil }
end

-- One listing per file, captioned with the file and what happened to it.
local function diff_blocks(d, attrs)
  local blocks = {}
  for _, file in ipairs(d.files) do
    local note = 'changed since step' .. d.from
    if d.named then
      note = 'step' .. d.from .. ' → step' .. d.nn
    elseif file.status == 'new' then
      note = 'new in step' .. d.nn
    elseif file.status == 'deleted' then
      note = 'removed in step' .. d.nn
    elseif file.status == 'renamed' then
      note = 'renamed from ' .. file.old
    end
    local caption = attrs.caption
      or (file.status == 'deleted' and file.old or file.new)
    local label = pandoc.Span({ pandoc.Str(note) }, { class = 'note' })
    local head = pandoc.Div({ pandoc.Plain({ pandoc.Str(caption),
      pandoc.Space(), label }) }, { class = 'caption' })
    local body
    if HTML then
      body = pandoc.RawBlock('html', diff_html(file, language(file.new)))
    else
      body = pandoc.CodeBlock(diff_text(file), { class = 'diff' })
    end
    blocks[#blocks + 1] = pandoc.Div({ head, body }, { class = 'listing diff' })
  end
  return blocks
end

-- A whole step's diff repeats what the chapter's listings showed, so it
-- folds away (fold=false keeps it open; fold=true folds any diff).
local function diff(block, attrs)
  local fold = attrs.fold and flag(attrs.fold, 'fold')
  if fold == nil then
    fold = not attrs.file and not attrs.name
  end
  local d = diff_files(attrs)
  if not d then
    return nil
  end
  if #d.files == 0 then
    return pandoc.Para({ pandoc.Emph({ pandoc.Str('(no change from step '
      .. tonumber(d.from) .. ')') }) })
  end
  local blocks = diff_blocks(d, attrs)
  if not fold or not HTML then
    return blocks
  end
  local lines = 0
  for _, file in ipairs(d.files) do
    for _, hunk in ipairs(file.hunks) do
      lines = lines + #hunk.lines
    end
  end
  local what = attrs.name or attrs.file or ('step ' .. tonumber(d.nn))
  local summary = string.format('The whole diff of %s from step %d: %d file%s,'
    .. ' %d line%s', what, tonumber(d.from), #d.files,
    #d.files == 1 and '' or 's', lines, lines == 1 and '' or 's')
  table.insert(blocks, 1, pandoc.RawBlock('html',
    '<details class="whole-diff"><summary>' .. escape_html(summary)
    .. '</summary>'))
  blocks[#blocks + 1] = pandoc.RawBlock('html', '</details>')
  return blocks
end

-- ------------------------------------------------------------ running

local function ensure_dir(p)
  sh('mkdir -p ' .. quote(p))
end

-- Builds the step once per pandoc run (serialised across parallel runs:
-- steps share common/).
local built = {}
local function build_step(nn)
  if built[nn] then
    return
  end
  ensure_dir(BUILD)
  local out, ok = sh('flock ' .. quote(BUILD .. '/.make.lock') .. ' make -s'
    .. ' --no-print-directory -C ' .. quote(step_dir(nn)) .. ' 2>&1')
  if not ok then
    fail('step%s does not build, so its output cannot be shown;'
      .. ' `make -C steps/step%s` says:\n%s', nn, nn, out)
  end
  built[nn] = true
end

-- The exit status tests/golden/steps.tsv expects of the step (0 if none).
local function expected_status(nn)
  local text = read_file(ROOT .. '/tests/golden/steps.tsv') or ''
  for line in text:gmatch('[^\n]+') do
    local step, status = line:match('^step(%d+)\t[^\t]*\t(%d+)')
    if step == nn then
      return tonumber(status)
    end
  end
  return 0
end

-- The environment a seed= asks for: DEZERO_SEED=N, which the steps
-- that draw random numbers read (NumPy's np.random.seed(N)).
local function seed_env(seed)
  if not seed then
    return ''
  end
  if not seed:match('^%d+$') then
    fail('seed=%s: a seed is a number, as DEZERO_SEED takes it', seed)
  end
  return 'DEZERO_SEED=' .. seed .. ' '
end

-- Runs the step's program in a folder of its own under build/run/ (so
-- the files it writes stay out of the sources) and returns that folder.
-- A run is reused while it is newer than the program.
local function run_step(nn, args, status, seed)
  local env = seed_env(seed)
  build_step(nn)
  for _, f in ipairs(step_sources(nn)) do
    depend(source_path(nn, f))
  end
  local program = step_dir(nn) .. '/step' .. nn
  local dir = BUILD .. '/run/step' .. nn
  if args or seed then
    dir = dir .. '-' .. pandoc.utils.sha1(env .. (args or '')):sub(1, 8)
  end
  local stamp = dir .. '/status.txt'
  -- Locked: pages built in parallel may ask for the same run.
  -- The folder is also the program's DeZero cache (DEZERO_CACHE_DIR),
  -- so building the book writes nothing into ~/.dezero.
  local run = 'test status.txt -nt ' .. quote(program) .. ' && exit 0;'
    .. ' find . -mindepth 1 ! -name .lock -exec rm -rf {} +; '
    .. env .. 'DEZERO_CACHE_DIR="$PWD" ' .. quote(program) .. ' '
    .. (args or '')
    .. ' >stdout.txt 2>stderr.txt; echo $? >status.tmp;'
    .. ' mv status.tmp status.txt'
  ensure_dir(dir)
  sh('cd ' .. quote(dir) .. ' && flock .lock sh -c ' .. quote(run))
  local got = tonumber(read_file(stamp) or '')
  local want = status or expected_status(nn)
  if got ~= want then
    fail('step%s%s exited with status %s (expected %d); its stderr:\n%s',
      nn, args and (' ' .. args) or '', tostring(got), want,
      read_file(dir .. '/stderr.txt') or '')
  end
  return dir
end

-- ------------------------------------------------------------ output

local function head_tail(text, head, tail)
  if not head and not tail then
    return text
  end
  local lines = {}
  for line in text:gmatch('[^\n]*\n?') do
    if line ~= '' then
      lines[#lines + 1] = line:gsub('\n$', '')
    end
  end
  head, tail = head or 0, tail or 0
  if head + tail >= #lines then
    return text
  end
  local out = {}
  for i = 1, head do
    out[#out + 1] = lines[i]
  end
  out[#out + 1] = '...'
  for i = #lines - tail + 1, #lines do
    out[#out + 1] = lines[i]
  end
  return table.concat(out, '\n')
end

-- A file kept in the repository (a path from the root), for what the
-- book cannot run or draw itself, such as a step on data it does not
-- have: the caption must say where it comes from. Returns its path.
local function kept_file(attrs, kind)
  if not attrs.caption or attrs.caption:match('^%s*$') then
    fail('a .%s block with file= and no step= shows a file kept in the'
      .. ' repository: give caption= saying when and how it was made', kind)
  end
  local full = ROOT .. '/' .. attrs.file
  if not exists(full) then
    fail('%s does not exist', attrs.file)
  end
  depend(full)
  return full
end

local function output(block, attrs)
  if attrs.file then
    if attrs.step or attrs.run or attrs.args or attrs.stderr
        or attrs.status then
      fail('file= shows a file as it is: it takes no step=, run=, args=,'
        .. ' stderr= or status=')
    end
    local full = kept_file(attrs, 'output')
    if CHECK then
      return nil
    end
    local text = head_tail(read_file(full), number(attrs.head, 'head'),
      number(attrs.tail, 'tail')):gsub('\n$', '')
    return listing(attrs.caption, text, 'output')
  end
  local nn = need_step(attrs)
  local run = flag(attrs.run, 'run')
  local with_stderr = flag(attrs.stderr, 'stderr')
  local head = number(attrs.head, 'head')
  local tail = number(attrs.tail, 'tail')
  local status = number(attrs.status, 'status')
  local golden = ROOT .. '/tests/golden/step' .. nn .. '.txt'
  if not exists(ROOT .. '/steps/step' .. nn .. '/Makefile') then
    fail('steps/step%s has no Makefile to build its program', nn)
  end
  if with_stderr and not run then
    fail('stderr=true needs run=true (the golden file holds stdout only)')
  end
  if attrs.args and not run then
    fail('args= needs run=true')
  end
  if attrs.seed and not run then
    fail('seed= needs run=true')
  end
  seed_env(attrs.seed)
  local text
  if not run and exists(golden) then
    text = read_file(golden)
  elseif CHECK then
    return nil
  else
    local dir = run_step(nn, attrs.args, status, attrs.seed)
    text = read_file(dir .. '/stdout.txt')
    if with_stderr then
      text = text .. read_file(dir .. '/stderr.txt')
    end
  end
  if CHECK then
    return nil
  end
  text = head_tail(text, head, tail):gsub('\n$', '')
  local prompt = '$ ' .. seed_env(attrs.seed) .. './step' .. nn
    .. (attrs.args and (' ' .. attrs.args) or '')
  return listing(attrs.caption or prompt, text, 'output')
end

-- ------------------------------------------------------------ compile

-- What the compiler says of a step's source that must not compile (a
-- type error the chapter shows on purpose): `cc -fsyntax-only` on the
-- file, in the step's folder, with cflags. The check mode compiles too,
-- so the book cannot keep showing an error the code no longer has.
local function compile(block, attrs)
  local nn = need_step(attrs)
  local file = attrs.file or 'main.c'
  local full = source_path(nn, file)
  depend(full)
  local command = 'cc -std=gnu11 -fsyntax-only -I../../common '
    .. (attrs.cflags and (attrs.cflags .. ' ') or '') .. file
  local out, ok = sh('cd ' .. quote(step_dir(nn)) .. ' && LC_ALL=C '
    .. command .. ' 2>&1')
  if ok then
    fail('`%s` in steps/step%s compiles, so there is no error to show',
      command, nn)
  end
  if CHECK then
    return nil
  end
  return listing(attrs.caption or ('$ ' .. command), out:gsub('\n$', ''),
    'output')
end

-- ------------------------------------------------------------ pictures

local function figure(src, attrs)
  local caption = attrs.caption and pandoc.read(attrs.caption, 'markdown')
  local inlines = caption and #caption.blocks > 0
    and caption.blocks[1].content or {}
  local image_attr = {}
  if attrs.width then
    image_attr.width = attrs.width
  end
  return pandoc.Para({ pandoc.Image(inlines, src, 'fig:',
    pandoc.Attr('', {}, image_attr)) })
end

local function need_tool(command, package)
  if not have(command) then
    fail('this picture needs `%s`, which is not installed: install the'
      .. ' Debian package %s (sudo apt-get install %s)', command, package,
      package)
  end
end

-- An SVG as an EPUB may hold it (epubcheck): without a DOCTYPE, whose
-- external DTD EPUB 3 forbids (Graphviz writes SVG 1.1's), and with
-- each id once (gnuplot repeats its plots' ids, once for the key). A
-- repeated id gets a suffix; nothing refers to those ids.
local function clean_svg(text)
  text = text:gsub('<!DOCTYPE[^>%[]*%b[]%s*>%s*', '', 1)
    :gsub('<!DOCTYPE[^>]*>%s*', '', 1)
  local seen = {}
  return (text:gsub('(%sid=")([^"]*)"', function(attr, id)
    if not seen[id] then
      seen[id] = 1
      return nil
    end
    seen[id] = seen[id] + 1
    return attr .. id .. '-' .. seen[id] .. '"'
  end))
end

-- Copies an SVG cleaned, any other picture as it is.
local function copy_picture(from, to)
  if not to:match('%.svg$') then
    sh('cp ' .. quote(from) .. ' ' .. quote(to))
    return
  end
  local f = assert(io.open(from, 'r'))
  local text = f:read('a')
  f:close()
  f = assert(io.open(to, 'w'))
  f:write(clean_svg(text))
  f:close()
end

-- Renders a DOT file to build/img/NAME.svg; what names it in messages.
local function render_dot(input_file, name, what)
  need_tool('dot', 'graphviz')
  ensure_dir(BUILD .. '/img')
  local target = BUILD .. '/img/' .. name .. '.svg'
  local out, ok = sh('dot -Tsvg ' .. quote(input_file) .. ' -o '
    .. quote(target) .. ' 2>&1')
  if not ok then
    fail('dot could not draw %s:\n%s', what, out)
  end
  copy_picture(target, target)
  return 'img/' .. name .. '.svg'
end

local function produced_file(attrs, kind)
  local nn = need_step(attrs)
  if not attrs.file then
    fail('file= is missing: name the file step %s writes', nn)
  end
  seed_env(attrs.seed)
  if CHECK then
    return nil
  end
  local dir = run_step(nn, attrs.args, nil, attrs.seed)
  local full = dir .. '/' .. attrs.file
  if not exists(full) then
    fail('step%s did not write %s (a .%s block needs it)', nn, attrs.file,
      kind)
  end
  return full, nn
end

local function dot(block, attrs)
  if attrs.step then
    local full, nn = produced_file(attrs, 'dot')
    if not full then
      return nil
    end
    local name = 'step' .. nn .. (attrs.seed and ('-seed' .. attrs.seed)
      or '') .. '-' .. attrs.file:gsub('%.dot$', ''):gsub('[^%w_%-]', '_')
    return figure(render_dot(full, name, attrs.file), attrs)
  end
  if attrs.file or attrs.args then
    fail('file= and args= need step= (without it, write DOT in the block)')
  end
  if block.text:match('^%s*$') then
    fail('an empty .dot block: write DOT in it, or give step= and file=')
  end
  local name = 'dot-' .. pandoc.utils.sha1(block.text):sub(1, 12)
  if CHECK then
    if have('dot') then
      local tmp = write_temp(block.text)
      local out, ok = sh('dot -Tsvg ' .. quote(tmp) .. ' -o /dev/null 2>&1')
      os.remove(tmp)
      if not ok then
        fail('dot rejects this graph:\n%s', out)
      end
    end
    return nil
  end
  local tmp = write_temp(block.text)
  local ok, result = pcall(render_dot, tmp, name, 'this graph')
  os.remove(tmp)
  if not ok then
    error(result, 0)
  end
  return figure(result, attrs)
end

local function image(block, attrs)
  if attrs.file and not attrs.step then
    if attrs.args then
      fail('args= needs step= (without it, file= is a picture kept in the'
        .. ' repository)')
    end
    local full = kept_file(attrs, 'image')
    if not attrs.file:match('%.svg$') and not attrs.file:match('%.png$')
      and not attrs.file:match('%.jpe?g$') then
      fail('file=%s: the book shows .svg, .png and .jpg pictures', attrs.file)
    end
    if CHECK then
      return nil
    end
    ensure_dir(BUILD .. '/img')
    local name = 'kept-' .. attrs.file:gsub('[^%w_%-%.]', '_')
    copy_picture(full, BUILD .. '/img/' .. name)
    return figure('img/' .. name, attrs)
  end
  local full, nn = produced_file(attrs, 'image')
  if not full then
    return nil
  end
  if not attrs.file:match('%.svg$') and not attrs.file:match('%.png$')
    and not attrs.file:match('%.jpe?g$') then
    fail('file=%s: the book shows .svg, .png and .jpg pictures', attrs.file)
  end
  ensure_dir(BUILD .. '/img')
  local name = 'step' .. nn .. (attrs.seed and ('-seed' .. attrs.seed)
    or '') .. '-' .. attrs.file:gsub('[^%w_%-%.]', '_')
  copy_picture(full, BUILD .. '/img/' .. name)
  return figure('img/' .. name, attrs)
end

-- ------------------------------------------------------------ scope

-- What the book says about its own size comes from the steps present,
-- so that it stays true as steps arrive: [2]{.fact of=steps} in a
-- chapter, or in book.yaml's description, becomes the number of
-- steps/stepNN folders, and a ```{.stages}``` block the table of the
-- stages (book.yaml's parts) that have begun.

local present_cache
local function present_steps()
  if not present_cache then
    present_cache = {}
    local out = sh('cd ' .. quote(ROOT .. '/steps') .. ' && ls -d'
      .. ' step[0-9][0-9] 2>/dev/null')
    for nn in out:gmatch('step(%d%d)') do
      present_cache[#present_cache + 1] = tonumber(nn)
    end
    table.sort(present_cache)
  end
  return present_cache
end

-- book.yaml, read here rather than from the command line, so that the
-- check (which renders a chapter alone) sees the same parts.
local book_meta
local function book_yaml()
  if not book_meta then
    local text = read_file(DOCS .. '/book.yaml') or ''
    book_meta = pandoc.read('---\n' .. text .. '\n---\n', 'markdown').meta
  end
  return book_meta
end

-- The stages: {title, goal, first, last, present = {numbers}}.
local function stages()
  local list = {}
  for _, part in ipairs(book_yaml().parts or {}) do
    local range = pandoc.utils.stringify(part.steps or '')
    local first, last = range:match('^(%d+)%s*%-%s*(%d+)$')
    local stage = { title = part.title, goal = part.goal,
      first = tonumber(first), last = tonumber(last), present = {} }
    for _, n in ipairs(present_steps()) do
      if stage.first and n >= stage.first and n <= stage.last then
        stage.present[#stage.present + 1] = n
      end
    end
    list[#list + 1] = stage
  end
  return list
end

local WORDS = { 'one', 'two', 'three', 'four', 'five', 'six', 'seven',
                'eight', 'nine', 'ten', 'eleven', 'twelve' }

-- The facts a chapter can state.
local FACTS = {
  -- how many steps there are: "39"
  steps = function()
    return { pandoc.Str(tostring(#present_steps())) }
  end,
  -- the latest step's number: "39"
  last = function()
    local all = present_steps()
    return { pandoc.Str(tostring(all[#all] or 0)) }
  end,
  -- the latest step's folder: `steps/step39`
  latest = function()
    local all = present_steps()
    return { pandoc.Code(string.format('steps/step%02d', all[#all] or 0)) }
  end,
  -- how many stages have begun, in words: "four"
  stages = function()
    local n = 0
    for _, s in ipairs(stages()) do
      n = n + (#s.present > 0 and 1 or 0)
    end
    return { pandoc.Str(WORDS[n] or tostring(n)) }
  end,
  -- how many steps the stages of book.yaml plan: "60"
  planned = function()
    local n = 0
    for _, s in ipairs(stages()) do
      n = math.max(n, s.last or 0)
    end
    return { pandoc.Str(tostring(n)) }
  end,
}

local function fact(span)
  local of = span.attributes.of
  if not FACTS[of] then
    local keys = {}
    for k in pairs(FACTS) do
      keys[#keys + 1] = k
    end
    table.sort(keys)
    fail('[]{.fact of=%s}: of= is one of %s', tostring(of),
      table.concat(keys, ', '))
  end
  return FACTS[of]()
end

-- Whether text holds figure where a number (or a word) starts: 0.44
-- is in "0.4406" (its first digits) but not in "10.44" or "3.0.44".
local function holds_figure(text, figure)
  local at = 1
  while true do
    local i = text:find(figure, at, true)
    if not i then
      return false
    end
    if i == 1 or not text:sub(i - 1, i - 1):match('[%w%.]') then
      return true
    end
    at = i + 1
  end
end

-- A figure the prose quotes from a kept run or a golden output, marked
-- [0.85]{.quote of=docs/runs/times/times.txt}: the file must exist and
-- hold the figure as written, or as the first digits of a number there
-- (0.44 for 0.4406), or the book fails; the page shows the figure.
local function quote_figure(span)
  local of = span.attributes.of
  local figure = pandoc.utils.stringify(span.content)
  if not of or of == '' then
    fail('[%s]{.quote}: of= names the file the figure comes from', figure)
  end
  local full = ROOT .. '/' .. of
  local text = exists(full) and read_file(full)
  if not text then
    fail('[%s]{.quote of=%s}: %s does not exist', figure, of, of)
  end
  depend(full)
  if figure == '' or not holds_figure(text, figure) then
    fail('[%s]{.quote of=%s}: %s does not hold %s', figure, of, of,
      figure == '' and '(an empty figure)' or figure)
  end
  return span.content
end

-- A kept run a chapter names in its prose (`docs/runs/step52/gpu-h200.txt`)
-- must exist, as the file= of a block must.
local function Code(code)
  local cited = code.text:match('^(docs/runs/[%w_%./%-]+)$')
  if cited and not exists(ROOT .. '/' .. cited) then
    errors[#errors + 1] = chapter_name() .. ': `' .. cited
      .. '` does not exist (a kept run the prose names)'
  end
  return nil
end

local function Span(span)
  local handler
  if span.classes:includes('fact') then
    handler = fact
  elseif span.classes:includes('quote') then
    handler = quote_figure
  else
    return nil
  end
  local ok, result = pcall(handler, span)
  if ok then
    return result
  end
  if getmetatable(result) ~= Unresolved then
    error(result, 0)
  end
  errors[#errors + 1] = chapter_name() .. ': ' .. result.message
  return nil
end

-- The table of the stages that have begun: the steps each has so far,
-- and what it builds (book.yaml's goal), marked while it is incomplete.
local function stage_table(block, attrs)
  local rows = { '| stage | steps | what it builds |', '| --- | --- | --- |' }
  for i, s in ipairs(stages()) do
    if #s.present > 0 then
      local have, steps = s.present[#s.present], nil
      local goal = s.goal and pandoc.write(pandoc.Pandoc({
        pandoc.Plain(s.goal) }), 'markdown'):gsub('\n', ' ') or ''
      if have >= s.last then
        steps = s.first .. '--' .. s.last
      else
        steps = s.first .. '--' .. have .. ' (of ' .. s.first .. '--'
          .. s.last .. ')'
        goal = goal .. ' *(in progress: steps ' .. (have + 1) .. ' to '
          .. s.last .. ' are still to come)*'
      end
      local title = pandoc.utils.stringify(s.title or ''):gsub('^Stage %d+: ',
        '')
      rows[#rows + 1] = '| ' .. i .. '. ' .. title .. ' | ' .. steps .. ' | '
        .. goal .. ' |'
    end
  end
  if CHECK then
    return nil
  end
  return pandoc.read(table.concat(rows, '\n'), 'markdown').blocks
end

-- ------------------------------------------------------------ api table

-- The appendix's table of the Python API (a ::: {.api} div): the C names
-- of each row must exist in the step the row links to and in the latest
-- step (their sources, or common/nd.h), so the table cannot go stale.
-- A C name is what a row calls (name followed by "("), a field (after
-- "->" or "."), or a name with "_" or a capital letter; plain lower-case
-- names (x, y, pool) are the example's own variables.

local words_of = {}
local function step_words(nn)
  if not words_of[nn] then
    local words = {}
    local files = { ROOT .. '/common/nd.h' }
    for _, f in ipairs(step_sources(nn)) do
      files[#files + 1] = source_path(nn, f)
    end
    for _, full in ipairs(files) do
      for word in (read_file(full) or ''):gmatch('[%a_][%w_]*') do
        words[word] = true
      end
    end
    words_of[nn] = words
  end
  return words_of[nn]
end

local function c_names(code)
  local names, seen = {}, {}
  local padded = ' ' .. code .. ' '
  for pos, name, after in padded:gmatch('()([%a_][%w_]*)()') do
    local before = padded:sub(1, pos - 1)
    local rest = padded:sub(after)
    local called = rest:match('^%s*%(') ~= nil
    local field = before:match('%->%s*$') or before:match('%.%s*$')
    local quoted = select(2, before:gsub('"', '')) % 2 == 1
    if not quoted and not before:match('#%s*$')
        and (called or field or name:find('[_%u]')) and not seen[name] then
      seen[name] = true
      names[#names + 1] = name
    end
  end
  return names
end

local function check_api(div)
  local all = present_steps()
  local latest = string.format('%02d', all[#all] or 0)
  pandoc.walk_block(div, { Table = function(tbl)
    for _, body in ipairs(tbl.bodies) do
      for _, row in ipairs(body.body) do
        local cells = row.cells
        local codes, step = {}, nil
        if cells[2] then
          pandoc.walk_block(pandoc.Div(cells[2].contents), { Code =
            function(c) codes[#codes + 1] = c.text end })
        end
        if cells[3] then
          pandoc.walk_block(pandoc.Div(cells[3].contents), { Link =
            function(l) step = step or l.target:match('step(%d%d)') end })
        end
        local where = { latest }
        if step and step ~= latest then
          table.insert(where, 1, step)
        end
        for _, code in ipairs(codes) do
          for _, name in ipairs(c_names(code)) do
            for _, nn in ipairs(where) do
              if not step_words(nn)[name] then
                errors[#errors + 1] = chapter_name() .. ': the table of'
                  .. ' the Python API names ' .. name .. ' (in `' .. code
                  .. '`), which steps/step' .. nn .. ' does not have'
              end
            end
          end
        end
      end
    end
  end })
end

local function Div(div)
  if div.classes:includes('api') then
    check_api(div)
  end
  return nil
end

-- ------------------------------------------------------------ python

-- Under the title of each step's chapter, a link to its Python original
-- in the DeZero repository (book.yaml's python: url and special).
local function python_original(nn)
  local python = book_yaml().python
  if not python or not python.url then
    return nil
  end
  local url = pandoc.utils.stringify(python.url)
  local file, note = 'steps/step' .. nn .. '.py', nil
  for _, s in ipairs(python.special or {}) do
    if tonumber(pandoc.utils.stringify(s.step or '')) == tonumber(nn) then
      file = s.file and pandoc.utils.stringify(s.file) or file
      note = s.note and pandoc.utils.stringify(s.note)
    end
  end
  local inlines = { pandoc.Str('Python original:'), pandoc.Space() }
  if file == 'none' then
    inlines[#inlines + 1] = pandoc.Str('none')
  else
    inlines[#inlines + 1] = pandoc.Link({ pandoc.Code(file) }, url .. file)
  end
  if note then
    inlines[#inlines + 1] = pandoc.Space()
    inlines[#inlines + 1] = pandoc.Str('(' .. note .. ')')
  end
  return pandoc.Div({ pandoc.Para(inlines) }, { class = 'python-original' })
end

local function add_python_links(doc)
  if CHECK then
    return nil
  end
  local blocks = {}
  for _, block in ipairs(doc.blocks) do
    blocks[#blocks + 1] = block
    local nn = block.t == 'Header' and block.level == 1
      and block.identifier:match('^step(%d%d)$')
    if nn then
      blocks[#blocks + 1] = python_original(nn)
    end
  end
  doc.blocks = blocks
  return doc
end

-- ------------------------------------------------------------ the filter

-- A plot of outputs the repository keeps (golden files, kept runs),
-- drawn by gnuplot when the book is built: the block is the gnuplot
-- script, and data= names its files (paths from the root, separated by
-- commas), which the script reads as the strings data1, data2, ...:
-- `plot "< awk '/loss/ {print $2}' ".data1`. The terminal (SVG) and the
-- output are the filter's; caption= is required, as for a kept picture.
local function plot(block, attrs)
  if not attrs.caption or attrs.caption:match('^%s*$') then
    fail('a .plot block needs caption= saying what it draws, from which'
      .. ' output')
  end
  if not attrs.data or attrs.data == '' then
    fail('data= is missing: name the files the plot reads')
  end
  if block.text:match('^%s*$') then
    fail('an empty .plot block: write the gnuplot script in it')
  end
  local defs = {}
  local i = 0
  for file in attrs.data:gmatch('[^,]+') do
    i = i + 1
    local full = ROOT .. '/' .. file
    if not exists(full) then
      fail('data=%s: %s does not exist', attrs.data, file)
    end
    depend(full)
    defs[#defs + 1] = string.format('data%d = "%s"', i, full)
  end
  need_tool('gnuplot', 'gnuplot-nox')
  local name = 'plot-' .. pandoc.utils.sha1(attrs.data .. '\n'
    .. block.text):sub(1, 12)
  local target = CHECK and '/dev/null' or (BUILD .. '/img/' .. name
    .. '.svg')
  if not CHECK then
    ensure_dir(BUILD .. '/img')
  end
  local script = write_temp(table.concat(defs, '\n') .. '\n'
    .. 'set terminal svg size 640,400 font "sans,12"\n'
    .. 'set output "' .. target .. '"\n' .. block.text .. '\n')
  local out, ok = sh('gnuplot ' .. quote(script) .. ' 2>&1')
  os.remove(script)
  if not ok or out:match('%S') then
    fail('gnuplot could not draw the plot:\n%s', out)
  end
  if CHECK then
    return nil
  end
  copy_picture(target, target)
  return figure('img/' .. name .. '.svg', attrs)
end

local KINDS = { include = include, diff = diff, output = output, dot = dot,
                image = image, compile = compile, stages = stage_table,
                plot = plot }

local function CodeBlock(block)
  for kind, handler in pairs(KINDS) do
    if block.classes:includes(kind) then
      local ok, result = pcall(function()
        check_attributes(kind, block)
        if kind ~= 'dot' and kind ~= 'plot' and block.text:match('%S') then
          fail('a .%s block stays empty: the book fills it in', kind)
        end
        return handler(block, block.attributes)
      end)
      if ok then
        return result
      end
      if getmetatable(result) ~= Unresolved then
        error(result, 0)
      end
      errors[#errors + 1] = chapter_name() .. ': ```' .. describe(block)
        .. '```: ' .. result.message
      return nil
    end
  end
  return nil
end

-- Chapters link to each other as [step 2](step02.md).
local function Link(link)
  local name, anchor = link.target:match('^([%w_%-]+)%.md(#?.*)$')
  if not name or link.target:match('^%a+:') then
    return nil
  end
  if not exists(DOCS .. '/' .. name .. '.md') then
    errors[#errors + 1] = chapter_name() .. ': a link to ' .. link.target
      .. ': there is no docs/' .. name .. '.md'
    return nil
  end
  if EPUB then
    link.target = anchor ~= '' and anchor or ('#' .. name)
  elseif HTML then
    link.target = name .. '.html' .. anchor
  end
  return link
end

-- Each chapter's title (its one level-1 heading) gets the chapter's file
-- name as its id, so links land on it in the EPUB too.
local titles = 0
local function Header(header)
  if header.level ~= 1 then
    return nil
  end
  titles = titles + 1
  local input = INPUTS[titles]
  if input then
    header.identifier = path.split_extension(path.filename(input))
  end
  return header
end

local function write_depfile()
  local depfile, target = os.getenv('BOOK_DEPFILE'), os.getenv('BOOK_TARGET')
  if CHECK or not depfile or not target then
    return
  end
  local f = io.open(depfile, 'w')
  if not f then
    return
  end
  f:write(target, ':')
  for _, p in ipairs(dep_list) do
    f:write(' \\\n ', p)
  end
  f:write('\n')
  for _, p in ipairs(dep_list) do
    f:write(p, ':\n')
  end
  f:close()
end

local function finish(doc)
  if #INPUTS == 1 and not INPUTS[1]:match('%.md$') then
    -- not a chapter (the cover page is rendered from /dev/null)
  elseif #INPUTS <= 1 then
    local first = doc.blocks[1]
    if not first or first.t ~= 'Header' or first.level ~= 1 then
      errors[#errors + 1] = chapter_name()
        .. ': a chapter starts with its title, a level-1 heading (# ...)'
    elseif titles ~= 1 then
      errors[#errors + 1] = chapter_name() .. ': has ' .. titles
        .. ' level-1 headings; a chapter has one, its title'
    end
  elseif titles ~= #INPUTS then
    errors[#errors + 1] = 'the book has ' .. titles .. ' level-1 headings'
      .. ' for ' .. #INPUTS .. ' chapters; each chapter has one'
  end
  if #errors > 0 then
    for _, message in ipairs(errors) do
      io.stderr:write(message, '\n')
    end
    if not CHECK then
      io.stderr:write('book: ', #errors, ' reference(s) did not resolve;'
        .. ' see docs/README.md\n')
    end
    os.exit(1)
  end
  write_depfile()
  return doc
end

-- book.yaml's description states facts too (the EPUB's metadata).
local INLINE = { Str = true, Space = true, SoftBreak = true, Emph = true,
                 Strong = true, Code = true, Span = true, Link = true }
local function Meta(meta)
  local d = meta.description
  if type(d) == 'table' and d[1] and d[1].t then
    local blocks = INLINE[d[1].t] and { pandoc.Plain(d) } or d
    local doc = pandoc.Pandoc(blocks):walk({ Span = Span })
    meta.description = pandoc.MetaBlocks(doc.blocks)
  end
  return meta
end

return {
  { Meta = Meta },
  { CodeBlock = CodeBlock, Link = Link, Header = Header, Span = Span,
    Div = Div, Code = Code },
  { Pandoc = add_python_links },
  { Pandoc = finish },
}
