/**
 * Words no SQL we read or write takes as a bare name: Postgres's reserved keywords, those SQLite refuses after a dot
 * (`"order".from`), and those the query parser refuses as a table or an alias (`partition`, `set`, `show`). A cube,
 * member or column named by one (`order`, `group`, `from`, `user`) is written quoted; quoting a few words more than
 * one database needs changes nothing.
 */
const RESERVED = new Set(
  `abort add all alter analyse analyze and any array as asc asymmetric authorization autoincrement between binary both
  case cast check collate collation column commit concurrently constraint create cross current_catalog current_date
  current_role current_schema current_time current_timestamp current_user default deferrable delete desc distinct do
  drop else end escape except exists false fetch for foreign freeze from full grant group having ilike in index
  initially inner insert intersect into is isnull join lateral leading left like limit localtime localtimestamp natural
  not nothing notnull null offset on only or order outer overlaps partition placing primary references returning right
  select session_user set show similar some symmetric system_user table tablesample then to trailing transaction true
  union unique update user using values variadic verbose when where window with`.split(/\s+/),
)

/** Whether `name` is a word SQL reserves (in any case). */
export function isReservedWord(name: string): boolean {
  return RESERVED.has(name.toLowerCase())
}

/** A name as semantic SQL reads it: bare when it is a plain identifier and no reserved word, else double-quoted. */
export function sqlName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !isReservedWord(name) ? name : `"${name.replace(/"/g, '""')}"`
}

/** A member path (`order.group`) as semantic SQL reads it: `"order"."group"`; the member's name is after the first dot. */
export function sqlMember(path: string): string {
  const dot = path.indexOf('.')
  return dot < 0 ? sqlName(path) : `${sqlName(path.slice(0, dot))}.${sqlName(path.slice(dot + 1))}`
}
