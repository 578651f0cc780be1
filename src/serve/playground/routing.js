// The routing panel (which rollup answered, or why none did) and the rollup advisor's answer.

import { h, clear } from './dom.js';
import { formatMs } from './format.js';

// Each stable miss reason (spec/semantic.md, docs/semantic-layer.md) in words.
export const REASONS = {
  measure_not_stored: 'It does not store a measure the query asks for.',
  dimension_not_stored: 'It does not store a dimension the query groups by.',
  filter_not_stored: 'A filter reads a member it does not store (or a time filter off its buckets\u2019 edges).',
  grain_not_derivable: 'The query\u2019s time grain cannot be derived from its stored grain.',
  range_not_aligned: 'The time range does not start and end on its stored buckets\u2019 edges.',
  outside_build_range: 'The query reads time outside its build range (a query without a range reads all time).',
  partition_missing: 'A period the query needs has not been built.',
  not_built: 'It has not been built yet (or its definition changed since the last build).',
  not_additive: 'A measure cannot be re-aggregated from it (exact distinct counts, unsketched percentiles).',
  row_security: 'The role\u2019s row filter reads a member it does not store.',
  fanout_join: 'Joining it would multiply rows (a one-to-many path).',
  join_rollup_incomplete: 'The query needs several entities and not every one has a rollup that answers.',
  live_tail_in_join: 'A live tail cannot be joined with another entity\u2019s rollup.',
  distinct_across_entities: 'A distinct count across entities cannot be answered from stored groups.',
  store_error: 'Its files could not be read; the query was answered live instead.',
  costlier: 'It could answer, but another rollup reads fewer rows.',
  timezone_mismatch: 'Its time zone cannot serve the query\u2019s grains in the query\u2019s zone.',
};

export function reasonText(reason) {
  return REASONS[reason] || 'No description for this reason.';
}

function fact(term, value, className) {
  return [h('dt', { text: term }), h('dd', { class: className || '', text: value })];
}

// meta.rollup, meta.duration_ms and the X-Strata-Cache header of one answer.
export function drawRouting(container, meta, cacheHeader) {
  clear(container);
  const rollup = (meta && meta.rollup) || {};
  const used = rollup.used;
  const facts = h('dl', { class: 'facts' }, [
    ...fact('Answered by', used ? `rollup ${used}` : 'live (the warehouse)', used ? 'used' : 'live'),
    ...fact('Live tail', rollup.live_tail ? 'yes: the open period was read live' : 'no'),
    ...(Array.isArray(rollup.joined) ? fact('Joined', rollup.joined.join(', ')) : []),
    ...fact('Duration', meta && meta.duration_ms !== undefined ? formatMs(meta.duration_ms) : 'n/a'),
    ...fact('Cache', cacheHeader || 'n/a'),
  ]);
  facts.dataset.used = used || '';
  container.append(facts);
  const missed = Array.isArray(rollup.missed) ? rollup.missed : [];
  if (missed.length === 0) {
    container.append(h('p', { class: 'help', text: 'No other rollup of these entities.' }));
    return;
  }
  container.append(h('p', { class: 'kind', text: used ? 'Other rollups' : 'Rollups that did not answer' }),
    h('ul', { class: 'missed' }, missed.map((miss) => h('li', { 'data-rollup': miss.rollup, 'data-reason': miss.reason }, [
      h('span', { class: 'rollup-name', text: miss.rollup }), ' ',
      h('code', { class: 'reason-code', text: miss.reason }),
      h('p', { class: 'reason-text', text: reasonText(miss.reason) })]))));
}

function describeDimension(d) {
  return typeof d === 'string' ? d : `${d.name} (${d.grain})`;
}

// The answer of POST /v1/rollups/advise: proposed rollups, unanswerable members, the YAML.
export function drawAdvice(container, advice, onCopy) {
  clear(container);
  const rollups = Array.isArray(advice.rollups) ? advice.rollups : [];
  const unanswerable = Array.isArray(advice.unanswerable) ? advice.unanswerable : [];
  if (rollups.length === 0) container.append(h('p', { class: 'help', text: 'No rollup can answer this query.' }));
  else if (advice.answers === true) container.append(h('p', { class: 'help', text: 'Once built, these answer this query (checked by planning it over them).' }));
  else if (advice.answers === false) container.append(h('p', { class: 'help', text: 'Even built, these would not answer the whole query: see below.' }));
  for (const rollup of rollups) {
    const rows = [
      ...fact('Entity', rollup.entity),
      ...fact('Dimensions', (rollup.dimensions || []).map(describeDimension).join(', ') || 'none'),
      ...fact('Measures', (rollup.measures || []).join(', ') || 'none'),
    ];
    if (Array.isArray(rollup.sketches) && rollup.sketches.length) rows.push(...fact('Sketches', rollup.sketches.join(', ')));
    if (rollup.partition && rollup.partition.by) rows.push(...fact('Partition', `by ${rollup.partition.by}`));
    if (rollup.build_range) rows.push(...fact('Build range', `${rollup.build_range.dimension}, last ${rollup.build_range.days} days`));
    container.append(h('div', { class: 'advice', 'data-rollup': rollup.name }, [
      h('p', { class: 'advice-name', text: rollup.name }), h('dl', { class: 'facts' }, rows)]));
  }
  if (unanswerable.length) {
    container.append(h('p', { class: 'kind', text: 'No rollup can store' }),
      h('ul', { class: 'missed' }, unanswerable.map((item) => h('li', { 'data-member': item.member, 'data-reason': item.reason }, [
        h('span', { class: 'rollup-name', text: item.member }), ' ',
        h('code', { class: 'reason-code', text: item.reason }),
        h('p', { class: 'reason-text', text: reasonText(item.reason) }),
        item.detail ? h('p', { class: 'help', text: item.detail }) : null]))));
  }
  if (typeof advice.yaml === 'string' && advice.yaml) {
    container.append(h('div', { class: 'yaml-head' }, [
      h('p', { class: 'kind', text: 'YAML for semantic/*.yml' }),
      h('button', { type: 'button', id: 'copy-yaml', text: 'Copy YAML', onclick: () => onCopy(advice.yaml) })]),
    h('pre', { class: 'yaml', id: 'advice-yaml', text: advice.yaml }));
  }
}
