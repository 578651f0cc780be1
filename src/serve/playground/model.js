// What the role may read (from GET /v1/meta) and the query object the builder edits. The query is
// plain JSON, the body of POST /v1/query: keys the builder does not know (filter groups, offset,
// a second time dimension) are kept as they are.

export const GRAINS = ['hour', 'day', 'week', 'month', 'quarter', 'year', 'fiscal_quarter',
  'fiscal_year'];
export const OPS = ['equals', 'not_equals', 'gt', 'gte', 'lt', 'lte', 'contains', 'starts_with',
  'set', 'not_set'];
export const VALUELESS_OPS = new Set(['set', 'not_set']);
const KEY_ORDER = ['measures', 'dimensions', 'time_dimensions', 'filters', 'order', 'limit',
  'offset', 'timezone'];

// Every member the role may read, by full name ("Order.revenue").
export class Catalogue {
  constructor(meta) {
    this.entities = [];
    this.members = new Map();
    this.relationships = new Map();
    for (const entity of (meta && meta.entities) || []) {
      const group = { name: entity.name, measures: [], metrics: [], dimensions: [], time: [] };
      for (const d of entity.dimensions || []) {
        const member = { name: `${entity.name}.${d.name}`, short: d.name, entity: entity.name,
          kind: d.type === 'time' ? 'time' : 'dimension', type: d.type };
        (member.kind === 'time' ? group.time : group.dimensions).push(member);
        this.members.set(member.name, member);
      }
      for (const m of entity.measures || []) {
        const member = { name: `${entity.name}.${m.name}`, short: m.name, entity: entity.name,
          kind: 'measure', type: 'number', agg: m.agg };
        group.measures.push(member);
        this.members.set(member.name, member);
      }
      for (const m of entity.metrics || []) {
        const member = { name: `${entity.name}.${m.name}`, short: m.name, entity: entity.name,
          kind: 'metric', type: 'number', expr: m.expr };
        group.metrics.push(member);
        this.members.set(member.name, member);
      }
      this.relationships.set(entity.name, entity.relationships || []);
      this.entities.push(group);
    }
    this.rollups = (meta && meta.rollups) || [];
    this.roles = (meta && meta.data_roles) || [];
    this.defaultTimezone = (meta && meta.default_timezone) || 'UTC';
  }

  // The member a name refers to: "Order.revenue", or a path "Order.customer.region".
  find(name) {
    if (this.members.has(name)) return this.members.get(name);
    const parts = String(name).split('.');
    if (parts.length > 2) {
      let entity = parts[0];
      for (const hop of parts.slice(1, -1)) {
        const next = (this.relationships.get(entity) || []).find((r) => r.name === hop);
        if (!next) return undefined;
        entity = next.entity;
      }
      return this.members.get(`${entity}.${parts[parts.length - 1]}`);
    }
    return undefined;
  }

  isAggregate(name) {
    const member = this.find(name);
    return !!member && (member.kind === 'measure' || member.kind === 'metric');
  }
}

// The query with its keys in the usual order and empty parts left out.
export function tidy(query) {
  const out = {};
  for (const key of KEY_ORDER) {
    const value = query[key];
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value) && value.length === 0) continue;
    out[key] = value;
  }
  for (const [key, value] of Object.entries(query)) {
    if (!(key in out) && !KEY_ORDER.includes(key)) out[key] = value;
  }
  return out;
}

export function list(query, key) {
  return Array.isArray(query[key]) ? query[key] : [];
}

export function toggle(query, key, name, on) {
  const rest = list(query, key).filter((each) => each !== name);
  return tidy({ ...query, [key]: on ? [...rest, name] : rest });
}

// A filter the builder edits (member/op/values); groups (or/and/not) are shown, not edited.
export function isPlainFilter(filter) {
  return !!filter && typeof filter === 'object' && typeof filter.member === 'string';
}

// "12, north, 3.5" → [12, "north", 3.5] for number members, strings otherwise.
export function parseValues(text, type) {
  const parts = String(text).split(',').map((each) => each.trim()).filter((each) => each !== '');
  if (type === 'number') return parts.map((each) => (Number.isFinite(Number(each)) ? Number(each) : each));
  if (type === 'boolean') return parts.map((each) => (each === 'true' ? true : each === 'false' ? false : each));
  return parts;
}

export function formatValues(values) {
  return (Array.isArray(values) ? values : []).map((each) => String(each)).join(', ');
}

// Every member a query names, with where (measures, filters, ...), for error highlighting.
export function membersOf(query) {
  const names = new Set([...list(query, 'measures'), ...list(query, 'dimensions')]);
  for (const t of list(query, 'time_dimensions')) if (t && t.dimension) names.add(t.dimension);
  const walk = (item) => {
    if (!item || typeof item !== 'object') return;
    if (typeof item.member === 'string') names.add(item.member);
    for (const key of ['or', 'and']) if (Array.isArray(item[key])) item[key].forEach(walk);
    if (item.not) walk(item.not);
  };
  list(query, 'filters').forEach(walk);
  for (const o of list(query, 'order')) if (o && o.member) names.add(o.member);
  return names;
}
