// Marquee's embeddable custom elements (docs/elements.md): one dependency-free ES module that a site
// without a developer pastes with a browser key. Each element reads the integration API
// (docs/api.md) pinned to the snapshot of its first answer (§10), lets the browser's own HTTP cache
// revalidate with ETags (plain fetch, §6.1), and renders into an open shadow root: the host page's
// CSS cannot break it, yet the page themes it through custom properties and ::part().
// The pure parts (grouping, grids, messages) are exported for the unit tests; nothing else is API.

const API = '/api/integration/v1';

/** The refusals a site's owner can act on, in words; every other code gets the generic line. */
const MESSAGES = {
  API_KEY_ORIGIN_NOT_ALLOWED: "This site's address is not on the list of origins its key allows, so the events cannot be shown here.",
  ORGANIZATION_SUSPENDED: 'These events are not available at the moment.',
  EVENT_NOT_FOUND: 'This event is not published.',
  API_KEY_INVALID: 'The key given to this element is not valid.',
};

/** The short readable line for a refusal (a problem body's errorCode) or a failed request. */
export function messageFor(errorCode, retryAfterSeconds) {
  if (errorCode === 'RATE_LIMITED') {
    const seconds = Number(retryAfterSeconds);
    return `Too many requests right now${seconds > 0 ? `: try again in ${seconds} s` : ''}.`;
  }
  return MESSAGES[errorCode] ?? `The events could not be loaded${errorCode ? ` (${errorCode})` : ''}. Try again later.`;
}

/** The venue's calendar day of an Instant: `local` carries the venue's date and offset (docs/api.md §2.1). */
export const localDay = (instant) => instant.local.slice(0, 10);

/** Sessions (in programme order) grouped by the venue's day they start on, in order. */
export function byDay(sessions) {
  const days = new Map();
  for (const session of sessions) {
    const day = localDay(session.start);
    if (!days.has(day)) days.set(day, []);
    days.get(day).push(session);
  }
  return [...days].map(([day, items]) => ({ day, sessions: items }));
}

/** Sponsors (in the organizer's order) grouped by tier, tiers in the order their first sponsor comes. */
export function byTier(sponsors) {
  const tiers = new Map();
  for (const sponsor of sponsors) {
    const tier = sponsor.tier ?? null;
    if (!tiers.has(tier)) tiers.set(tier, []);
    tiers.get(tier).push(sponsor);
  }
  return [...tiers].map(([tier, items]) => ({ tier, sponsors: items }));
}

/**
 * One day's sessions as a grid: a column per room (a second one where a room's sessions overlap),
 * rooms in order of first use; a row per interval between consecutive start or end instants. Each
 * placed session names its column, first row and the rows it spans.
 */
export function scheduleGrid(sessions) {
  const times = [...new Set(sessions.flatMap((s) => [s.start.utc, s.end.utc]))].sort();
  const row = (utc) => times.indexOf(utc);
  const columns = [];
  const placed = sessions.map((session) => {
    const first = row(session.start.utc);
    let column = columns.findIndex((c) => c.room === session.room && c.freeFrom <= first);
    if (column < 0) column = columns.push({ room: session.room, freeFrom: 0 }) - 1;
    const span = Math.max(1, row(session.end.utc) - first);
    columns[column].freeFrom = first + span;
    return { session, column, row: first, span };
  });
  return { rooms: columns.map((c) => c.room), rows: times.slice(0, -1), placed };
}

/** Where an event takes place, in one line: venue, street, city, country (the parts it has). */
export const placeLine = (event) => [event.venueName, event.address, event.city, event.country].filter(Boolean).join(', ');

/**
 * The schema.org Event a search engine reads (https://schema.org/Event): dates on the venue's clock
 * with its offset, the venue as a Place, or a VirtualLocation at the event's page when there is
 * none. The API serves published events only and names no cancellation, so each is EventScheduled.
 */
export function eventJsonLd(event, organization) {
  const onSite = Boolean(event.venueName || event.address || event.city);
  const address = { '@type': 'PostalAddress', streetAddress: event.address, addressLocality: event.city, addressCountry: event.country };
  return {
    '@context': 'https://schema.org',
    '@type': 'Event',
    name: event.name,
    ...(event.description && { description: event.description }),
    startDate: event.start.local,
    endDate: event.end.local,
    eventStatus: 'https://schema.org/EventScheduled',
    eventAttendanceMode: `https://schema.org/${onSite ? 'Offline' : 'Online'}EventAttendanceMode`,
    location: onSite
      ? { '@type': 'Place', name: event.venueName || event.city, address: Object.fromEntries(Object.entries(address).filter(([, v]) => v)) }
      : { '@type': 'VirtualLocation', url: event.publicUrl },
    ...(event.speakers?.length && { performer: event.speakers.map((s) => ({ '@type': 'Person', name: s.name })) }),
    organizer: { '@type': 'Organization', name: organization.name, url: organization.website || organization.publicUrl },
    url: event.publicUrl,
  };
}

/** An instant as iCalendar's UTC DATE-TIME (RFC 5545 §3.3.5, form 2): 20270327T100000Z. */
const icsTime = (instant) => new Date(instant).toISOString().replace(/[-:]|\.\d+/g, '');

/** TEXT escaped (RFC 5545 §3.3.11): backslash, semicolon, comma, and newlines as \n. */
const icsText = (text) => text.replace(/[\\;,]/g, '\\$&').replace(/\r?\n|\r/g, '\\n');

/** A content line folded at 75 octets of UTF-8, never inside a character (RFC 5545 §3.1). */
function fold(line) {
  let folded = '';
  let octets = 0;
  for (const char of line) {
    const code = char.codePointAt(0);
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (octets + size > 75) {
      folded += '\r\n ';
      octets = 1;
    }
    folded += char;
    octets += size;
  }
  return folded;
}

/**
 * An RFC 5545 calendar of one event, for "add to calendar": UID stable across downloads and sites
 * (the item's id at the gateway's host), times in UTC, text escaped, lines folded and ended by CRLF.
 */
export function calendarFile({ id, name, description, location, start, end, url }, { host, now }) {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Marquee//Elements//EN',
    'BEGIN:VEVENT',
    `UID:${id}@${host}`,
    `DTSTAMP:${icsTime(now)}`,
    `DTSTART:${icsTime(start.utc)}`,
    `DTEND:${icsTime(end.utc)}`,
    `SUMMARY:${icsText(name)}`,
    location && `LOCATION:${icsText(location)}`,
    description && `DESCRIPTION:${icsText(description)}`,
    url && `URL:${url}`,
    'END:VEVENT',
    'END:VCALENDAR',
  ];
  return `${lines.filter(Boolean).map(fold).join('\r\n')}\r\n`;
}

// Everything below touches the DOM; a page (or a test in Node) without one gets the functions only.
const Element = globalThis.HTMLElement ?? class {};

const STYLE = `
:host{display:block;container-type:inline-size;font:var(--marquee-font,inherit);color:var(--marquee-color,inherit)}
:host([hidden]){display:none}
*{box-sizing:border-box}
h2,h3,h4{font-family:var(--marquee-heading-font,inherit);margin:var(--marquee-heading-margin,1em 0 .4em)}
ul{list-style:none;margin:0;padding:0;display:grid;gap:var(--marquee-gap,.75rem)}
a{color:var(--marquee-accent,#0b57d0)}
.meta{color:var(--marquee-muted,#4a4a4a);margin:.2em 0}
.card{border:1px solid var(--marquee-border,#ccc);border-radius:var(--marquee-radius,6px);padding:var(--marquee-padding,.75rem);background:var(--marquee-surface,transparent)}
.logos{grid-template-columns:repeat(auto-fill,minmax(9rem,1fr))}
img{max-width:100%;height:auto;display:block}
.logo{max-height:4rem;object-fit:contain}
.photo{width:4rem;height:4rem;border-radius:50%;object-fit:cover}
nav{display:flex;gap:.5rem;align-items:center;margin-top:var(--marquee-gap,.75rem)}
button{font:inherit;padding:.3em .9em;border-radius:var(--marquee-radius,6px);border:1px solid var(--marquee-accent,#0b57d0);background:var(--marquee-surface,#fff);color:var(--marquee-accent,#0b57d0);cursor:pointer}
button:disabled{opacity:.55;cursor:default}
:focus-visible{outline:3px solid var(--marquee-focus,#0b57d0);outline-offset:2px}
table{border-collapse:collapse;width:100%}
th,td{border:1px solid var(--marquee-border,#ccc);padding:.4rem;text-align:start;vertical-align:top}
caption{text-align:start;font-weight:bold;padding:.4rem 0}
.list{display:none}
@container (max-width:40rem){table{display:none}.list{display:grid}}
.message{border-inline-start:4px solid var(--marquee-accent,#0b57d0);padding:.5rem .75rem}
`;

/** A DOM node: `h('a', { href, part: 'link' }, 'text', child)`; text is always text, never markup. */
function h(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value === true ? '' : value);
  node.append(...children.flat(Number.POSITIVE_INFINITY).filter((c) => c !== null && c !== undefined && c !== false));
  return node;
}

/** A refusal or a failed request, as the element's content. */
class Refusal extends Error {
  constructor(errorCode, retryAfter) {
    super(messageFor(errorCode, retryAfter));
    this.errorCode = errorCode;
  }
}

/** The base of every element: attributes, the pinned reader, the shadow root and its states. */
class MarqueeElement extends Element {
  static observedAttributes = ['key', 'base', 'event', 'timing', 'locale', 'page-size'];
  #pin = null;
  #queued = false;
  #generation = 0;
  #calendarUrls = [];

  constructor() {
    super();
    this.attachShadow({ mode: 'open' });
  }

  connectedCallback() {
    this.refresh();
  }

  attributeChangedCallback(name) {
    if (name === 'key' || name === 'base') this.#pin = null;
    if (this.isConnected) this.refresh();
  }

  get locale() {
    return this.getAttribute('locale') || document.documentElement.lang || navigator.language;
  }

  /** Renders again once, however many attributes changed in this task. */
  refresh() {
    if (this.#queued) return;
    this.#queued = true;
    queueMicrotask(() => {
      this.#queued = false;
      void this.#show();
    });
  }

  async #show() {
    const generation = ++this.#generation;
    const root = h('div', { part: 'root', lang: this.locale, 'aria-busy': 'true' }, h('p', { part: 'loading' }, '…'));
    if (!this.shadowRoot.querySelector('style')) this.shadowRoot.append(h('style', null, STYLE));
    this.shadowRoot.querySelector('[part=root]')?.remove();
    this.shadowRoot.append(root);
    for (const url of this.#calendarUrls.splice(0)) URL.revokeObjectURL(url);
    let content;
    try {
      content = await this.render();
    } catch (error) {
      this.describe(null);
      content = h('p', { part: 'message', class: 'message', role: 'status', lang: 'en' }, error instanceof Refusal ? error.message : messageFor(undefined));
    }
    if (generation !== this.#generation) return;
    root.replaceChildren(...[content].flat(Number.POSITIVE_INFINITY).filter((c) => c !== null && c !== undefined && c !== false));
    root.removeAttribute('aria-busy');
  }

  /**
   * GET `path` of the API, pinned to the snapshot of the element's first answer. The browser's cache
   * keeps answers with their ETag and revalidates them; an answer cached before the pin (from
   * another snapshot) is revalidated at once. A pin past its window (409) is dropped and the
   * whole element read again from the current snapshot.
   */
  async read(path, retried = false) {
    const base = (this.getAttribute('base') || '').replace(/\/+$/, '');
    const headers = { 'X-Api-Key': this.getAttribute('key') || '' };
    if (this.#pin) headers['Marquee-Snapshot-Id'] = this.#pin;
    let response;
    try {
      response = await fetch(`${base}${API}${path}`, { headers, cache: retried ? 'no-cache' : 'default' });
    } catch {
      throw new Refusal(undefined);
    }
    const snapshot = response.headers.get('Marquee-Snapshot-Id');
    if (response.ok && this.#pin && snapshot !== this.#pin && !retried) return this.read(path, true);
    if (response.ok) {
      this.#pin ??= snapshot;
      return response.json();
    }
    const problem = await response.json().catch(() => ({}));
    if (problem.errorCode === 'SNAPSHOT_NOT_CURRENT' && !retried) {
      this.#pin = null;
      this.refresh();
      return new Promise(() => {});
    }
    throw new Refusal(problem.errorCode, response.headers.get('Retry-After'));
  }

  /** The organization's name and site, for the events' `organizer`. */
  organization() {
    return this.read('/organization');
  }

  /**
   * The events' schema.org JSON-LD, in the host's light DOM: search engines read the document, not
   * a shadow root. `<` is escaped so that the script's text cannot end it if the page is serialized.
   */
  describe(data) {
    let script = [...this.children].find((c) => c.localName === 'script' && c.type === 'application/ld+json');
    if (data === null) return script?.remove();
    script ??= this.appendChild(h('script', { type: 'application/ld+json' }));
    script.textContent = JSON.stringify(data).replace(/</g, '\\u003c');
  }

  /** A link that saves `item` as an .ics file, made in the browser (a Blob URL, revoked at the next render). */
  calendarLink(item) {
    const host = new URL(this.getAttribute('base') || location.href, location.href).host;
    const file = calendarFile(item, { host, now: Date.now() });
    const url = URL.createObjectURL(new Blob([file], { type: 'text/calendar' }));
    this.#calendarUrls.push(url);
    return h('a', { href: url, download: `${item.id}.ics`, part: 'calendar' }, 'Add to calendar');
  }

  eventPath() {
    const event = this.getAttribute('event');
    if (!event) throw new Refusal('EVENT_NOT_FOUND');
    return `/events/${encodeURIComponent(event)}`;
  }

  /** `Intl.DateTimeFormat` in the element's locale and the instant's own zone, zone named when asked. */
  format(instant, options) {
    return new Intl.DateTimeFormat(this.locale, { timeZone: instant.timeZoneId, ...options });
  }

  /** A time on the venue's clock with its zone: "23:00 CET". */
  time(instant) {
    return h('time', { datetime: instant.utc }, this.format(instant, { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }).format(new Date(instant.utc)));
  }

  /** From start to end, both on the venue's clock, zone named. */
  span(start, end) {
    const format = this.format(start, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });
    return h('time', { datetime: start.utc }, format.formatRange(new Date(start.utc), new Date(end.utc)));
  }

  /** A venue day's heading text: `day` is the venue's YYYY-MM-DD, printed as that calendar date. */
  dayName(day) {
    return new Intl.DateTimeFormat(this.locale, { timeZone: 'UTC', weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(new Date(`${day}T12:00:00Z`));
  }

  sessionTimes(session) {
    return h('p', { class: 'meta', part: 'time' }, this.time(session.start), ' – ', this.time(session.end));
  }

  /** Speakers as cards, each name a heading of `level` (2 alone on a page, 4 inside an event's section). */
  speakerList(speakers, level) {
    return h(
      'ul',
      { part: 'list speakers' },
      speakers.map((s) =>
        h(
          'li',
          { part: 'item speaker', class: 'card' },
          s.photo && h('img', { class: 'photo', part: 'photo', src: s.photo.url, alt: '' }),
          h(`h${level}`, { part: 'name' }, s.name),
          (s.jobTitle || s.company) && h('p', { class: 'meta' }, [s.jobTitle, s.company].filter(Boolean).join(', ')),
        ),
      ),
    );
  }

  /** Sponsors by tier, each tier named by a heading of `level`. */
  sponsorList(sponsors, level) {
    return byTier(sponsors).map(({ tier, sponsors: items }) => [
      tier !== null && h(`h${level}`, { part: 'tier' }, tier),
      h(
        'ul',
        { part: 'list sponsors', class: 'logos' },
        items.map((s) => {
          const face = s.logo ? h('img', { class: 'logo', part: 'logo', src: s.logo.url, alt: s.name }) : s.name;
          return h('li', { part: 'item sponsor', class: 'card' }, s.websiteUrl ? h('a', { href: s.websiteUrl, part: 'link' }, face) : face);
        }),
      ),
    ]);
  }
}

/** `<marquee-events timing="upcoming|ongoing|past|all" page-size="10">`: the event list, paged. */
class MarqueeEvents extends MarqueeElement {
  #page = 1;

  attributeChangedCallback(name) {
    if (name === 'timing' || name === 'page-size') this.#page = 1;
    super.attributeChangedCallback(name);
  }

  async render() {
    const timing = this.getAttribute('timing') || 'upcoming';
    const pageSize = Math.min(100, Math.max(1, Number.parseInt(this.getAttribute('page-size'), 10) || 10));
    const list = await this.read(`/events?timing=${encodeURIComponent(timing)}&page=${this.#page}&pageSize=${pageSize}`);
    const organization = await this.organization();
    this.describe(list.items.map((e) => eventJsonLd(e, organization)));
    const pages = Math.max(1, Math.ceil(list.totalCount / pageSize));
    const items = list.items.map((e) =>
      h(
        'li',
        { part: 'item event', class: 'card' },
        h('h2', { part: 'name' }, h('a', { href: e.publicUrl, part: 'link' }, e.name)),
        h('p', { class: 'meta', part: 'time' }, this.span(e.start, e.end)),
        (e.venueName || e.city) && h('p', { class: 'meta', part: 'venue' }, [e.venueName, e.city, e.country].filter(Boolean).join(', ')),
      ),
    );
    const turn = (label, page, enabled) => {
      const button = h('button', { type: 'button', part: 'button', disabled: !enabled, 'data-page': String(page) }, label);
      button.addEventListener('click', () => this.#go(page));
      return button;
    };
    return [
      list.items.length ? h('ul', { part: 'list events' }, items) : h('p', { part: 'empty' }, 'No events.'),
      pages > 1 &&
        h(
          'nav',
          { part: 'pages', 'aria-label': 'Pages' },
          turn('Previous', this.#page - 1, this.#page > 1),
          h('span', { 'aria-live': 'polite' }, `${this.#page} / ${pages}`),
          turn('Next', this.#page + 1, list.hasMore),
        ),
    ];
  }

  /** Turns the page and keeps the keyboard where it was: on the same button, or its neighbour when that one is now disabled. */
  async #go(page) {
    const which = page > this.#page ? 'Next' : 'Previous';
    this.#page = page;
    this.refresh();
    await new Promise((resolve) => {
      const observer = new MutationObserver(() => {
        if (this.shadowRoot.querySelector('[part=root]:not([aria-busy])')) {
          observer.disconnect();
          resolve();
        }
      });
      observer.observe(this.shadowRoot, { subtree: true, childList: true, attributes: true });
    });
    const buttons = [...this.shadowRoot.querySelectorAll('button')];
    (buttons.find((b) => b.textContent === which && !b.disabled) ?? buttons.find((b) => !b.disabled))?.focus();
  }
}

/** `<marquee-event event="slug">`: one event with its programme by day, speakers and sponsors by tier. */
class MarqueeEvent extends MarqueeElement {
  async render() {
    const e = await this.read(this.eventPath());
    this.describe(eventJsonLd(e, await this.organization()));
    const calendarItem = { ...e, location: placeLine(e), url: e.publicUrl };
    return h(
      'article',
      { part: 'event' },
      h('h2', { part: 'name' }, h('a', { href: e.publicUrl, part: 'link' }, e.name)),
      h('p', { class: 'meta', part: 'time' }, this.span(e.start, e.end)),
      placeLine(e) && h('p', { class: 'meta', part: 'venue' }, placeLine(e)),
      h('p', null, this.calendarLink(calendarItem)),
      e.description && h('p', { part: 'description' }, e.description),
      e.sessions.length > 0 && [
        h('h3', { part: 'heading' }, 'Programme'),
        byDay(e.sessions).map(({ day, sessions }) => [
          h('h4', { part: 'day' }, this.dayName(day)),
          h(
            'ul',
            { part: 'list sessions' },
            sessions.map((s) =>
              h(
                'li',
                { part: 'item session', class: 'card' },
                this.sessionTimes(s),
                h('strong', { part: 'name' }, s.name),
                (s.room || s.speakerNames) && h('p', { class: 'meta' }, [s.room, s.speakerNames].filter(Boolean).join(' · ')),
              ),
            ),
          ),
        ]),
      ],
      e.speakers.length > 0 && [h('h3', { part: 'heading' }, 'Speakers'), this.speakerList(e.speakers, 4)],
      e.sponsors.length > 0 && [h('h3', { part: 'heading' }, 'Sponsors'), this.sponsorList(e.sponsors, 4)],
    );
  }
}

/** `<marquee-schedule event="slug">`: the programme as a grid of rooms by time, per day; a list on narrow screens. */
class MarqueeSchedule extends MarqueeElement {
  async render() {
    // The event's detail holds its sessions: one read gives the grid and the event's JSON-LD.
    const event = await this.read(this.eventPath());
    this.describe(eventJsonLd(event, await this.organization()));
    const sessions = event.sessions;
    const addToCalendar = (s) => this.calendarLink({ ...s, location: [s.room, placeLine(event)].filter(Boolean).join(', '), url: event.publicUrl });
    if (sessions.length === 0) return h('p', { part: 'empty' }, 'No programme yet.');
    return byDay(sessions).map(({ day, sessions: daySessions }) => {
      const grid = scheduleGrid(daySessions);
      const at = new Map(grid.placed.map((p) => [`${p.row}/${p.column}`, p]));
      const covered = new Set(grid.placed.flatMap((p) => Array.from({ length: p.span - 1 }, (_, i) => `${p.row + i + 1}/${p.column}`)));
      const instantAt = (utc) => daySessions.flatMap((s) => [s.start, s.end]).find((i) => i.utc === utc);
      const cell = (p) =>
        h(
          'td',
          { part: 'cell session', rowspan: p.span > 1 ? String(p.span) : null },
          h('strong', null, p.session.name),
          this.sessionTimes(p.session),
          p.session.speakerNames && h('p', { class: 'meta' }, p.session.speakerNames),
          addToCalendar(p.session),
        );
      const table = h(
        'table',
        { part: 'grid' },
        h('caption', { part: 'day' }, this.dayName(day)),
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            h('th', { scope: 'col' }, 'Time'),
            grid.rooms.map((room) => h('th', { scope: 'col', part: 'room' }, room ?? '—')),
          ),
        ),
        h(
          'tbody',
          null,
          grid.rows.map((utc, r) =>
            h(
              'tr',
              null,
              h('th', { scope: 'row', part: 'slot' }, this.time(instantAt(utc))),
              grid.rooms.map((_, c) => (at.has(`${r}/${c}`) ? cell(at.get(`${r}/${c}`)) : covered.has(`${r}/${c}`) ? null : h('td', null))),
            ),
          ),
        ),
      );
      const list = h(
        'div',
        { class: 'list' },
        h('h2', { part: 'day' }, this.dayName(day)),
        h(
          'ul',
          { part: 'list sessions' },
          daySessions.map((s) =>
            h(
              'li',
              { part: 'item session', class: 'card' },
              this.sessionTimes(s),
              h('strong', null, s.name),
              h('p', { class: 'meta' }, [s.room, s.speakerNames].filter(Boolean).join(' · ')),
              addToCalendar(s),
            ),
          ),
        ),
      );
      return h('section', { part: 'schedule-day' }, table, list);
    });
  }
}

/** `<marquee-speakers>` (the organization's) or `<marquee-speakers event="slug">` (one event's). */
class MarqueeSpeakers extends MarqueeElement {
  async render() {
    const speakers = await this.read(this.hasAttribute('event') ? `${this.eventPath()}/speakers` : '/speakers');
    return speakers.length ? this.speakerList(speakers, 2) : h('p', { part: 'empty' }, 'No speakers yet.');
  }
}

/** `<marquee-sponsors>` (the organization's pool) or `<marquee-sponsors event="slug">` (one event's, by tier). */
class MarqueeSponsors extends MarqueeElement {
  async render() {
    const sponsors = await this.read(this.hasAttribute('event') ? `${this.eventPath()}/sponsors` : '/sponsors');
    return sponsors.length ? this.sponsorList(sponsors, 2) : h('p', { part: 'empty' }, 'No sponsors yet.');
  }
}

const ELEMENTS = {
  'marquee-events': MarqueeEvents,
  'marquee-event': MarqueeEvent,
  'marquee-schedule': MarqueeSchedule,
  'marquee-speakers': MarqueeSpeakers,
  'marquee-sponsors': MarqueeSponsors,
};
// A page may load the module twice (two versions pasted): the first definition stays.
for (const [name, element] of Object.entries(ELEMENTS)) if (globalThis.customElements && !customElements.get(name)) customElements.define(name, element);
