// The query as SQL for the SQL port (docs/sql-port.md): schema "strata", one table per entity,
// its dimensions as columns, joined dimensions as <path>__<member>, measures and metrics through
// MEASURE(). What the port cannot say (another entity's measure, fiscal grains, an offset
// without order) is named in a comment at the top; the rest is still written.

const SQL_GRAINS = new Set(['hour', 'day', 'week', 'month', 'quarter', 'year']);
const COMPARE = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

export function quoteIdent(name) {
  return `"${String(name).replace(/"/g, '""')}"`;
}

export function quoteLiteral(value) {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  return `'${String(value).replace(/'/g, "''")}'`;
}

// The column of `name` ("Order.status", "Order.customer.region" or "Customer.region") in the
// table of entity `base`, or null when no many_to_one/one_to_one path leads there.
function columnOf(catalogue, base, name) {
  const parts = String(name).split('.');
  if (parts.length < 2) return null;
  if (parts[0] === base) return parts.slice(1).join('__');
  const target = parts[0];
  const queue = [[base, []]];
  const seen = new Set([base]);
  while (queue.length) {
    const [entity, path] = queue.shift();
    for (const r of catalogue.relationships.get(entity) || []) {
      if (r.type !== 'many_to_one' && r.type !== 'one_to_one') continue;
      if (seen.has(r.entity)) continue;
      const next = [...path, r.name];
      if (r.entity === target) return [...next, ...parts.slice(1)].join('__');
      seen.add(r.entity);
      queue.push([r.entity, next]);
    }
  }
  return null;
}

export function toSql(query, catalogue) {
  const notes = [];
  const measures = Array.isArray(query.measures) ? query.measures : [];
  const dimensions = Array.isArray(query.dimensions) ? query.dimensions : [];
  const times = (Array.isArray(query.time_dimensions) ? query.time_dimensions : []).filter((t) => t && t.dimension);
  const first = measures[0] || dimensions[0] || (times[0] && times[0].dimension) || '';
  const base = String(first).split('.')[0];
  if (!base) return '-- Choose a measure or a dimension first.\n';
  const column = (name) => {
    const found = columnOf(catalogue, base, name);
    if (found === null) notes.push(`${name} is not a column of strata.${quoteIdent(base)}`);
    return quoteIdent(found === null ? name : found);
  };
  const select = [];
  const groupBy = [];
  const aliases = new Map();
  for (const name of dimensions) {
    const col = column(name);
    select.push(col);
    aliases.set(name, col);
    groupBy.push(select.length);
  }
  const where = [];
  for (const t of times) {
    const col = column(t.dimension);
    if (t.grain && !SQL_GRAINS.has(t.grain)) notes.push(`the grain ${t.grain} has no DATE_TRUNC on the SQL port`);
    const expr = t.grain ? `DATE_TRUNC(${quoteLiteral(t.grain)}, ${col}) AS ${col}` : col;
    select.push(expr);
    aliases.set(t.grain ? `${t.dimension}.${t.grain}` : t.dimension, col);
    aliases.set(t.dimension, col);
    groupBy.push(select.length);
    if (Array.isArray(t.range) && t.range.length === 2) {
      where.push(`${col} >= ${quoteLiteral(t.range[0])} AND ${col} < ${quoteLiteral(t.range[1])}`);
    }
  }
  for (const name of measures) {
    if (String(name).split('.')[0] !== base) notes.push(`${name} belongs to another entity than ${base}`);
    const col = quoteIdent(String(name).split('.').slice(1).join('.'));
    select.push(`MEASURE(${col}) AS ${col}`);
    aliases.set(name, col);
  }
  const having = [];
  for (const filter of Array.isArray(query.filters) ? query.filters : []) {
    const text = condition(filter, (name) => (catalogue.isAggregate(name)
      ? `MEASURE(${quoteIdent(String(name).split('.').slice(1).join('.'))})` : column(name)));
    (readsAggregate(filter, catalogue) ? having : where).push(text);
  }
  const lines = [`SELECT ${select.join(',\n       ')}`, `FROM strata.${quoteIdent(base)}`];
  if (where.length) lines.push(`WHERE ${where.join('\n  AND ')}`);
  if (groupBy.length) lines.push(`GROUP BY ${groupBy.join(', ')}`);
  if (having.length) lines.push(`HAVING ${having.join('\n   AND ')}`);
  const order = (Array.isArray(query.order) ? query.order : []).filter((o) => o && o.member);
  if (order.length) {
    lines.push(`ORDER BY ${order.map((o) => `${aliases.get(o.member) || column(o.member)}${o.desc ? ' DESC' : ' ASC'}`).join(', ')}`);
  }
  if (Number.isInteger(query.limit)) lines.push(`LIMIT ${query.limit}`);
  if (Number.isInteger(query.offset) && query.offset > 0) lines.push(`OFFSET ${query.offset}`);
  const head = [...new Set(notes)].map((note) => `-- Not expressible on the SQL port: ${note}`);
  if (typeof query.timezone === 'string' && query.timezone) head.push(`SET TimeZone = ${quoteLiteral(query.timezone)};`);
  return `${[...head, lines.join('\n')].join('\n')};\n`;
}

function readsAggregate(item, catalogue) {
  if (!item || typeof item !== 'object') return false;
  if (typeof item.member === 'string') return catalogue.isAggregate(item.member);
  const children = [...(item.or || []), ...(item.and || []), ...(item.not ? [item.not] : [])];
  return children.some((child) => readsAggregate(child, catalogue));
}

function condition(item, column) {
  if (Array.isArray(item.or)) return `(${item.or.map((c) => condition(c, column)).join(' OR ')})`;
  if (Array.isArray(item.and)) return `(${item.and.map((c) => condition(c, column)).join(' AND ')})`;
  if (item.not) return `NOT (${condition(item.not, column)})`;
  const col = column(item.member);
  const values = Array.isArray(item.values) ? item.values : [];
  const list = values.map(quoteLiteral).join(', ');
  switch (item.op) {
    case 'equals': return values.length === 1 ? `${col} = ${list}` : `${col} IN (${list})`;
    case 'not_equals': return `(${col} ${values.length === 1 ? `<> ${list}` : `NOT IN (${list})`} OR ${col} IS NULL)`;
    case 'gt': case 'gte': case 'lt': case 'lte': return `${col} ${COMPARE[item.op]} ${quoteLiteral(values[0])}`;
    case 'contains': return `${col} LIKE ${quoteLiteral(`%${values[0]}%`)}`;
    case 'starts_with': return `${col} LIKE ${quoteLiteral(`${values[0]}%`)}`;
    case 'set': return `${col} IS NOT NULL`;
    case 'not_set': return `${col} IS NULL`;
    default: return `/* unknown op ${String(item.op).replace(/\*\//g, '')} */ TRUE`;
  }
}

// The curl command for POST /v1/query: the token is the variable $STRATA_TOKEN, never its value.
export function toCurl(query, origin) {
  const body = JSON.stringify(query).replace(/'/g, "'\\''");
  return `curl -sS -X POST ${origin}/v1/query -H "Authorization: Bearer $STRATA_TOKEN" -H 'Content-Type: application/json' -d '${body}'\n`;
}
