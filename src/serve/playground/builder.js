// The click-built query: member checkboxes, the time dimension, filters, order, limit and time
// zone. The builder never owns the query: it renders one and reports each edit through
// onChange(query, {structural}); a structural edit (a row added or removed) re-renders the
// sections, a typed value does not (the focus stays where the user is typing).

import { h, byId, clear } from './dom.js';
import { GRAINS, OPS, VALUELESS_OPS, isPlainFilter, list, parseValues, formatValues, tidy,
  toggle } from './model.js';

export class Builder {
  constructor(onChange) {
    this.onChange = onChange;
    this.catalogue = null;
    this.query = {};
    byId('member-search').addEventListener('input', () => this.applySearch());
    byId('limit-input').addEventListener('input', (event) => {
      const limit = event.target.value === '' ? undefined : Number(event.target.value);
      this.emit({ ...this.query, limit: Number.isInteger(limit) ? limit : undefined });
    });
    byId('timezone-input').addEventListener('input', (event) => {
      this.emit({ ...this.query, timezone: event.target.value.trim() || undefined });
    });
    fillTimezones();
  }

  emit(query, structural = false) {
    this.query = tidy(query);
    this.onChange(this.query, { structural });
    if (structural) this.renderSections();
  }

  setCatalogue(catalogue) {
    this.catalogue = catalogue;
    this.renderMembers();
    this.render(this.query);
  }

  // Shows `query` (from the JSON editor or a reset) in every control.
  render(query) {
    this.query = query;
    for (const box of byId('members').querySelectorAll('input[type=checkbox]')) {
      box.checked = list(query, box.dataset.key).includes(box.dataset.member);
    }
    byId('limit-input').value = query.limit === undefined ? '' : String(query.limit);
    byId('timezone-input').value = typeof query.timezone === 'string' ? query.timezone : '';
    this.renderSections();
  }

  renderSections() {
    if (!this.catalogue) return;
    this.renderTime();
    this.renderFilters();
    this.renderOrder();
  }

  renderMembers() {
    const root = clear(byId('members'));
    for (const entity of this.catalogue.entities) {
      const groups = [['Measures', entity.measures, 'measures'], ['Metrics', entity.metrics, 'measures'],
        ['Dimensions', entity.dimensions, 'dimensions'], ['Time', entity.time, 'dimensions']];
      const body = [];
      for (const [title, members, key] of groups) {
        if (members.length === 0) continue;
        body.push(h('div', { class: 'kind-group' }, [h('p', { class: 'kind', text: title }),
          h('ul', { class: 'member-list' }, members.map((member) => h('li', {}, [
          h('label', { class: `member member-${member.kind}`, 'data-name': member.name }, [
            h('input', { type: 'checkbox', 'data-member': member.name, 'data-key': key,
              onchange: (event) => this.emit(toggle(this.query, key, member.name, event.target.checked), true) }),
            h('span', { text: member.short }),
          ]),
        ])))]));
      }
      root.append(h('section', { class: 'entity', 'data-entity': entity.name }, [
        h('h3', { class: 'entity-name', text: entity.name }), ...body]));
    }
    if (this.catalogue.entities.length === 0) {
      root.append(h('p', { class: 'empty', text: 'This role may read no entity.' }));
    }
    this.applySearch();
  }

  applySearch() {
    const needle = byId('member-search').value.trim().toLowerCase();
    for (const label of byId('members').querySelectorAll('label.member')) {
      label.parentElement.hidden = needle !== '' && !label.dataset.name.toLowerCase().includes(needle);
    }
    for (const group of byId('members').querySelectorAll('.kind-group, .entity')) {
      group.hidden = !group.querySelector('li:not([hidden])');
    }
  }

  allMembers(kinds) {
    return [...this.catalogue.members.values()].filter((m) => kinds.includes(m.kind)).map((m) => m.name);
  }

  renderTime() {
    const root = clear(byId('time-section'));
    const times = list(this.query, 'time_dimensions');
    const first = times[0] && typeof times[0] === 'object' ? times[0] : null;
    const update = (patch) => {
      const now = list(this.query, 'time_dimensions');
      const next = { ...(now[0] && typeof now[0] === 'object' ? now[0] : {}), ...patch };
      for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
      const rest = now.slice(1);
      this.emit({ ...this.query, time_dimensions: next.dimension ? [next, ...rest] : rest },
        'dimension' in patch);
      if ('dimension' in patch) focusLater('#time-dimension');
    };
    const dimension = select('time-dimension', [['', 'none'], ...this.allMembers(['time']).map((n) => [n, n])],
      first ? first.dimension : '', (value) => update({ dimension: value || undefined }));
    dimension.dataset.member = first ? first.dimension : '';
    root.append(h('h3', { class: 'section-title', text: 'Time dimension' }),
      h('div', { class: 'row-inline' }, [h('label', { for: 'time-dimension', class: 'visually-hidden', text: 'Time dimension' }), dimension]));
    if (!first) return;
    const range = Array.isArray(first.range) ? first.range : ['', ''];
    const grain = select('time-grain', [['', 'raw values'], ...GRAINS.map((g) => [g, g])], first.grain || '',
      (value) => update({ grain: value || undefined }));
    const from = h('input', { id: 'time-from', placeholder: 'YYYY-MM-DD', value: range[0] || '', spellcheck: 'false' });
    const to = h('input', { id: 'time-to', placeholder: 'YYYY-MM-DD', value: range[1] || '', spellcheck: 'false' });
    const onRange = () => {
      const both = from.value.trim() && to.value.trim();
      update({ range: both ? [from.value.trim(), to.value.trim()] : undefined });
    };
    from.addEventListener('input', onRange);
    to.addEventListener('input', onRange);
    root.append(h('div', { class: 'row-inline' }, [h('label', { for: 'time-grain', text: 'Grain' }), grain]),
      h('div', { class: 'row-inline' }, [h('label', { for: 'time-from', text: 'Range' }), from,
        h('label', { for: 'time-to', text: 'to' }), to]));
  }

  renderFilters() {
    const root = clear(byId('filter-section'));
    const filters = list(this.query, 'filters');
    const members = this.allMembers(['dimension', 'time', 'measure', 'metric']);
    root.append(h('h3', { class: 'section-title', text: 'Filters' }));
    filters.forEach((filter, index) => {
      const remove = h('button', { type: 'button', class: 'icon', 'aria-label': `Remove filter ${index + 1}`, text: '×',
        onclick: () => {
          this.emit({ ...this.query, filters: list(this.query, 'filters').filter((_, i) => i !== index) }, true);
          focusLater('#filter-add');
        } });
      if (!isPlainFilter(filter)) {
        root.append(h('div', { class: 'filter-row group' }, [
          h('code', { class: 'group-text', text: JSON.stringify(filter) }),
          h('span', { class: 'help', text: 'group: edit it in the JSON' }), remove]));
        return;
      }
      const replace = (patch) => {
        const next = list(this.query, 'filters').map((each, i) => (i === index ? { ...each, ...patch } : each));
        if (VALUELESS_OPS.has(next[index].op)) delete next[index].values;
        else if (!next[index].values) next[index].values = [];
        this.emit({ ...this.query, filters: next });
      };
      const member = this.catalogue.find(filter.member);
      const memberSelect = select(`filter-member-${index}`, optionsWith(members, filter.member),
        filter.member, (value) => {
          row.dataset.member = value;
          memberSelect.dataset.member = value;
          replace({ member: value });
        });
      memberSelect.dataset.member = filter.member;
      const values = h('input', { id: `filter-values-${index}`, class: 'filter-values', value: formatValues(filter.values),
        placeholder: 'values, comma separated', spellcheck: 'false', disabled: VALUELESS_OPS.has(filter.op),
        'aria-label': `Filter ${index + 1} values` });
      values.addEventListener('input', () => {
        const type = (this.catalogue.find(memberSelect.value) || member || {}).type;
        replace({ values: parseValues(values.value, type) });
      });
      const op = select(`filter-op-${index}`, optionsWith(OPS, filter.op), filter.op, (value) => {
        values.disabled = VALUELESS_OPS.has(value);
        replace({ op: value });
      });
      memberSelect.setAttribute('aria-label', `Filter ${index + 1} member`);
      op.setAttribute('aria-label', `Filter ${index + 1} operator`);
      const row = h('div', { class: 'filter-row', 'data-member': filter.member }, [memberSelect, op, values, remove]);
      root.append(row);
    });
    root.append(h('button', { type: 'button', id: 'filter-add', class: 'link', text: '+ Add filter',
      disabled: members.length === 0,
      onclick: () => {
        const first = list(this.query, 'dimensions')[0] || members[0];
        this.emit({ ...this.query, filters: [...list(this.query, 'filters'), { member: first, op: 'equals', values: [] }] }, true);
        focusLater(`#filter-values-${filters.length}`);
      } }));
  }

  renderOrder() {
    const root = clear(byId('order-section'));
    const order = list(this.query, 'order');
    const chosen = [...list(this.query, 'measures'), ...list(this.query, 'dimensions'),
      ...list(this.query, 'time_dimensions').map((t) => t && t.dimension).filter(Boolean)];
    root.append(h('h3', { class: 'section-title', text: 'Order' }));
    order.forEach((item, index) => {
      const replace = (patch) => this.emit({ ...this.query,
        order: list(this.query, 'order').map((each, i) => (i === index ? { ...each, ...patch } : each)) });
      const member = select(`order-member-${index}`, optionsWith(chosen, item.member), item.member,
        (value) => { member.dataset.member = value; replace({ member: value }); });
      member.dataset.member = item.member;
      member.setAttribute('aria-label', `Order ${index + 1} member`);
      const direction = select(`order-dir-${index}`, [['asc', 'ascending'], ['desc', 'descending']],
        item.desc ? 'desc' : 'asc', (value) => replace({ desc: value === 'desc' }));
      direction.setAttribute('aria-label', `Order ${index + 1} direction`);
      root.append(h('div', { class: 'order-row', 'data-member': item.member }, [member, direction,
        h('button', { type: 'button', class: 'icon', 'aria-label': `Remove order ${index + 1}`, text: '×',
          onclick: () => {
            this.emit({ ...this.query, order: list(this.query, 'order').filter((_, i) => i !== index) }, true);
            focusLater('#order-add');
          } })]));
    });
    root.append(h('button', { type: 'button', id: 'order-add', class: 'link', text: '+ Add order',
      disabled: chosen.length === 0,
      onclick: () => {
        this.emit({ ...this.query, order: [...list(this.query, 'order'), { member: chosen[0], desc: true }] }, true);
        focusLater(`#order-member-${order.length}`);
      } }));
  }

  // Marks the controls of `member` as the ones an error concerns; returns the first one.
  markError(member) {
    const targets = [];
    for (const node of document.querySelectorAll('#builder [data-member]')) {
      if (node.dataset.member !== member) continue;
      const target = node.closest('label, .filter-row, .order-row, .row-inline, .limits') || node;
      target.classList.add('invalid');
      if (node.matches('input, select')) node.setAttribute('aria-invalid', 'true');
      targets.push(target);
    }
    // Where the member is used (a filter, the order, the time dimension) before its checkbox.
    return targets.find((target) => !target.closest('#members')) || targets[0] || null;
  }

  clearErrors() {
    for (const node of document.querySelectorAll('#builder .invalid')) node.classList.remove('invalid');
    for (const node of document.querySelectorAll('#builder [aria-invalid]')) node.removeAttribute('aria-invalid');
    for (const node of document.querySelectorAll('#builder .inline-error')) node.remove();
  }
}

function select(id, options, value, onchange) {
  const node = h('select', { id }, options.map(([v, label]) => h('option', { value: v, text: label })));
  node.value = value === undefined ? '' : value;
  node.addEventListener('change', () => onchange(node.value));
  return node;
}

function optionsWith(values, current) {
  const all = current && !values.includes(current) ? [current, ...values] : values;
  return all.map((v) => [v, v]);
}

function focusLater(selector) {
  queueMicrotask(() => {
    const node = document.querySelector(selector);
    if (node) node.focus();
  });
}

function fillTimezones() {
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  byId('timezones').replaceChildren(...['UTC', ...zones.filter((z) => z !== 'UTC')]
    .map((zone) => h('option', { value: zone })));
}
