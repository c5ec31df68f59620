-- nav.lua - the navigation of one HTML page of the book: its title, the
-- previous and next chapters, the book's contents grouped by stage (the
-- parts of book.yaml, each with its introduction, stageN.md, first; the
-- appendices last) and the current chapter's sections.
-- BOOK_CHAPTERS lists the chapters' files in reading order.

local path = pandoc.path
local stringify = pandoc.utils.stringify

local function absolute(p)
  if path.is_absolute(p) then
    return path.normalize(p)
  end
  return path.normalize(path.join({ pandoc.system.get_working_directory(), p }))
end

local DOCS = path.directory(path.directory(absolute(PANDOC_SCRIPT_FILE)))

local chapters = {}
for file in (os.getenv('BOOK_CHAPTERS') or ''):gmatch('%S+') do
  chapters[#chapters + 1] = file
end

-- The title of a chapter: its first "# " line, as inlines.
local function title_of(file)
  local f = io.open(DOCS .. '/' .. file, 'r')
  if f then
    for line in f:lines() do
      local text = line:match('^#%s+(.-)%s*$')
      if text then
        f:close()
        text = text:gsub('%s*{[^}]*}$', '')
        local doc = pandoc.read(text, 'markdown')
        if doc.blocks[1] then
          return doc.blocks[1].content
        end
      end
    end
    f:close()
  end
  return { pandoc.Str(file) }
end

local function href(file)
  return (file:gsub('%.md$', '.html'))
end

local function step_of(file)
  return tonumber(file:match('^step(%d+)%.md$') or '')
end

-- stageN.md introduces the Nth part of book.yaml.
local function stage_of(file)
  return tonumber(file:match('^stage(%d+)%.md$') or '')
end

-- The chapters grouped by part: {{title, files}}, chapters that are not
-- steps (the introduction) first, in a group without a title, then the
-- parts, the chapter after the book (examples.md) in a group of its own,
-- and the appendices (appendix-*.md) last, in a group of their own.
local function groups(meta)
  local list, loose = {}, { files = {} }
  local appendices = { title = { pandoc.Str('Appendices') }, files = {} }
  local after = { title = { pandoc.Str('After'), pandoc.Space(),
    pandoc.Str('the'), pandoc.Space(), pandoc.Str('book') }, files = {} }
  list[1] = loose
  for _, part in ipairs(meta.parts or {}) do
    local range = stringify(part.steps or '')
    local first, last = range:match('^(%d+)%s*%-%s*(%d+)$')
    list[#list + 1] = { title = part.title, files = {},
      first = tonumber(first), last = tonumber(last) }
  end
  list[#list + 1] = after
  list[#list + 1] = appendices
  for _, file in ipairs(chapters) do
    local n, stage, home = step_of(file), stage_of(file), loose
    for _, g in ipairs(list) do
      if n and g.first and n >= g.first and n <= g.last then
        home = g
      end
    end
    if stage and list[stage + 1] and list[stage + 1] ~= appendices then
      home = list[stage + 1]
    elseif file:match('^appendix%-') then
      home = appendices
    elseif file == 'examples.md' then
      home = after
    end
    home.files[#home.files + 1] = file
  end
  return list
end

-- The level-2 headings of the page, as a list of links.
local function sections(blocks)
  local items = {}
  for _, block in ipairs(blocks) do
    if block.t == 'Header' and block.level == 2 and block.identifier ~= '' then
      items[#items + 1] = { pandoc.Plain({ pandoc.Link(block.content,
        '#' .. block.identifier) }) }
    end
  end
  return items
end

-- The book's contents; the current chapter is marked and lists its
-- sections when with_sections.
local function contents(meta, current, section_items)
  local blocks = {}
  for _, g in ipairs(groups(meta)) do
    if #g.files > 0 then
      local items, intro = {}, nil
      for _, file in ipairs(g.files) do
        local attr = file == current
          and pandoc.Attr('', { 'current' }, { ['aria-current'] = 'page' })
          or pandoc.Attr()
        if stage_of(file) and g.title then
          -- The stage's introduction is its title, as a link.
          intro = pandoc.Link(g.title, href(file), '', attr)
        else
          local item = { pandoc.Plain({ pandoc.Link(title_of(file),
            href(file), '', attr) }) }
          if file == current and section_items and #section_items > 0 then
            item[2] = pandoc.BulletList(section_items)
          end
          items[#items + 1] = item
        end
      end
      local part = {}
      if g.title then
        part[1] = pandoc.Div({ pandoc.Plain(intro and { intro } or g.title) },
          { class = 'part-title' })
      end
      if #items > 0 then
        part[#part + 1] = pandoc.BulletList(items)
      end
      blocks[#blocks + 1] = pandoc.Div(part, { class = 'part' })
    end
  end
  return blocks
end

local function neighbour(i)
  local file = chapters[i]
  if not file then
    return nil
  end
  return pandoc.MetaMap({ href = pandoc.MetaString(href(file)),
    title = pandoc.MetaInlines(title_of(file)) })
end

function Pandoc(doc)
  local meta = doc.meta
  local input = PANDOC_STATE.input_files[1]
  local current = input and path.filename(input)
  local index = nil
  for i, file in ipairs(chapters) do
    if file == current then
      index = i
    end
  end
  local book = stringify(meta.title or 'The book')
  if index then
    meta.pagetitle = stringify(title_of(current)) .. ' · ' .. book
    meta.prev = neighbour(index - 1)
    meta.next = neighbour(index + 1)
    meta.sidebar = pandoc.MetaBlocks(contents(meta, current,
      sections(doc.blocks)))
  else
    -- The cover page: the contents, and the first chapter as next.
    meta.pagetitle = book
    meta.next = neighbour(1)
    meta.contents = pandoc.MetaBlocks(contents(meta, nil, nil))
  end
  doc.meta = meta
  return doc
end
