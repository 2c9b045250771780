// The sample dataset's rows (`marquee db seed --sample`, `marquee start`): four organizations with
// every case the API must get right — hidden people, unpublished events, a full event, open and
// closed registration windows, an unscheduled session, a session across a clock change, zones on
// both sides of UTC, and an event slug two organizations share. Ids are fixed; times follow `now`.

/** `a0000000-0000-4000-8000-000000000001`: the first hex digit says the kind, the tail counts. */
function sampleId(kind: string, n: number): string {
  return `${kind}0000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

const organization = (n: number) => sampleId('a', n);
const teamMember = (n: number) => sampleId('b', n);
const speaker = (n: number) => sampleId('c', n);
const sponsor = (n: number) => sampleId('d', n);
const event = (n: number) => sampleId('e', n);
const file = (n: number) => sampleId('f', n);
const session = (n: number) => sampleId('5', n);
const registration = (n: number) => sampleId('7', n);

/** The sample's well-known ids and slugs, for tests and the demo. */
export const SAMPLE = {
  /** Two organizations (and the suspended one) each have a published event with this slug. */
  sharedEventSlug: 'summit-2027',
  organizations: {
    nordic: { id: organization(1), slug: 'nordic-dev', status: 'active' },
    pacific: { id: organization(2), slug: 'pacific-oss', status: 'active' },
    harbor: { id: organization(3), slug: 'harbor-games', status: 'suspended' },
    oldTown: { id: organization(4), slug: 'old-town-meetups', status: 'closed' },
  },
  events: {
    /** nordic, published, ongoing at `now`; registration window already closed. */
    stockholmDevDays: { id: event(1), slug: 'stockholm-dev-days' },
    /** nordic, published, past (Europe/Berlin); registration disabled. */
    berlinCloudSummit: { id: event(2), slug: 'berlin-cloud-summit' },
    /** nordic, published, upcoming; registration window open; an unscheduled session; invited and declined speakers. */
    nordicSummit: { id: event(3), slug: 'summit-2027' },
    /** nordic, published, upcoming; capacity reached by its registrations. */
    rustWorkshop: { id: event(4), slug: 'rust-workshop' },
    /** nordic, published, upcoming (Asia/Tokyo); no programme yet. */
    tokyoMeetup: { id: event(5), slug: 'tokyo-meetup' },
    /** nordic, published, upcoming (Europe/Berlin); spans the next European clock change. */
    nightHackathon: { id: event(6), slug: 'night-hackathon' },
    /** nordic, draft. */
    springDraft: { id: event(7), slug: 'spring-meetup' },
    /** nordic, cancelled. */
    cancelledMeetup: { id: event(8), slug: 'winter-social' },
    /** pacific, published, upcoming (America/Los_Angeles). */
    pacificSummit: { id: event(9), slug: 'summit-2027' },
    /** pacific, published, past (America/New_York). */
    nycNight: { id: event(10), slug: 'nyc-open-source-night' },
    /** pacific, suspended by the platform. */
    suspendedRetreat: { id: event(11), slug: 'portland-retreat' },
    /** harbor (a suspended organization), published. */
    harborSummit: { id: event(12), slug: 'summit-2027' },
    /** oldTown (a closed organization), published, past. */
    oldTownWinter: { id: event(13), slug: 'winter-meetup' },
  },
  speakers: {
    /** nordic, accepted, speaks at the ongoing, past and upcoming events. */
    ada: speaker(1),
    /** nordic, invited only: attached to a scheduled session, never published. */
    invited: speaker(5),
    /** nordic, declined: attached to a scheduled session, never published. */
    declined: speaker(6),
    /** pacific, invited only. */
    pacificInvited: speaker(9),
  },
  teamMembers: {
    /** nordic, not shown on the website. */
    hidden: teamMember(4),
    /** pacific, not shown on the website. */
    pacificHidden: teamMember(7),
  },
  sessions: {
    /** In nordicSummit, without times: not scheduled, so not published. */
    unscheduled: session(15),
    /** In nightHackathon, across the clock change. */
    acrossClockChange: session(18),
  },
} as const;

export type SampleRows = Record<SampleTable, Array<Record<string, unknown>>>;

/** Tables in foreign-key order: inserting them in this order never references a missing row. */
export const SAMPLE_TABLES = [
  'files',
  'organizations',
  'team_members',
  'speakers',
  'sponsors',
  'events',
  'sessions',
  'session_speakers',
  'event_sponsors',
  'registrations',
] as const;
type SampleTable = (typeof SAMPLE_TABLES)[number];

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/**
 * The sample relative to `now`. Event times sit on whole hours of UTC days counted from `now`'s
 * day, so one `now` always gives the same rows and "ongoing" always contains `now`.
 * `filesBaseUrl` prefixes the image urls (absolute, as docs/platform.md requires for files.url).
 */
export function sampleRows(now: Date, filesBaseUrl: string): SampleRows {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  /** A UTC instant `days` after today's midnight (UTC) plus `hour` hours. */
  const at = (days: number, hour: number) => new Date(today + days * DAY + hour * HOUR).toISOString();
  const clockChange = nextEuropeanClockChange(new Date(today + 14 * DAY));
  const around = (hours: number) => new Date(clockChange.getTime() + hours * HOUR).toISOString();
  const base = filesBaseUrl.replace(/\/+$/, '');
  const image = (n: number, name: string) => ({ id: file(n), url: `${base}/files/${file(n)}/${name}` });

  const images = [
    image(1, 'nordic-dev-logo.png'),
    image(2, 'nordic-dev-cover.jpg'),
    image(3, 'pacific-oss-logo.svg'),
    image(4, 'harbor-games-logo.png'),
    image(5, 'astrid-lindqvist.jpg'),
    image(6, 'mikko-virtanen.jpg'),
    image(7, 'maya-thompson.jpg'),
    image(8, 'ada-sorensen.jpg'),
    image(9, 'lars-eriksson.jpg'),
    image(10, 'yuki-tanaka.jpg'),
    image(11, 'grace-liu.jpg'),
    image(12, 'fjord-cloud.svg'),
    image(13, 'aurora-analytics.png'),
    image(14, 'redwood-hosting.png'),
    image(15, 'stockholm-dev-days-cover.jpg'),
    image(16, 'summit-2027-cover.jpg'),
    image(17, 'summit-2027-logo.svg'),
    image(18, 'pacific-summit-cover.jpg'),
    image(19, 'night-hackathon-cover.jpg'),
    image(20, 'oskar-invited.jpg'),
  ];

  const organizations = [
    {
      id: SAMPLE.organizations.nordic.id,
      name: 'Nordic Developer Community',
      slug: SAMPLE.organizations.nordic.slug,
      description:
        'A volunteer-run community for software developers across the Nordics. We organise conferences, ' +
        'hands-on workshops and evening meetups in Stockholm, Copenhagen, Berlin and beyond.',
      logo_file_id: file(1),
      cover_file_id: file(2),
      website: 'https://nordicdev.example.org',
      email: 'hello@nordicdev.example.org',
      phone: '+46 8 123 456 78',
      address: 'Sveavägen 44',
      city: 'Stockholm',
      country: 'Sweden',
      latitude: 59.3389,
      longitude: 18.0586,
      status: 'active',
    },
    {
      id: SAMPLE.organizations.pacific.id,
      name: 'Pacific Open Source Guild',
      slug: SAMPLE.organizations.pacific.slug,
      description: 'Maintainers and users of open-source software on the US West Coast, meeting since 2014.',
      logo_file_id: file(3),
      cover_file_id: null,
      website: 'https://pacificoss.example.org',
      email: 'contact@pacificoss.example.org',
      phone: null,
      address: '1 Market Street',
      city: 'San Francisco',
      country: 'United States',
      latitude: 37.7936,
      longitude: -122.3958,
      status: 'active',
    },
    {
      id: SAMPLE.organizations.harbor.id,
      name: 'Harbor Game Makers',
      slug: SAMPLE.organizations.harbor.slug,
      description: 'Indie game developers from Hamburg.',
      logo_file_id: file(4),
      cover_file_id: null,
      website: 'https://harborgames.example.org',
      email: 'team@harborgames.example.org',
      phone: '+49 40 555 0100',
      address: 'Am Sandtorkai 1',
      city: 'Hamburg',
      country: 'Germany',
      latitude: 53.5434,
      longitude: 9.9882,
      status: 'suspended',
    },
    {
      id: SAMPLE.organizations.oldTown.id,
      name: 'Old Town Meetups',
      slug: SAMPLE.organizations.oldTown.slug,
      description: null,
      logo_file_id: null,
      cover_file_id: null,
      website: null,
      email: null,
      phone: null,
      address: null,
      city: 'Tallinn',
      country: 'Estonia',
      latitude: null,
      longitude: null,
      status: 'closed',
    },
  ];

  const nordic = SAMPLE.organizations.nordic.id;
  const pacific = SAMPLE.organizations.pacific.id;
  const harbor = SAMPLE.organizations.harbor.id;
  const oldTown = SAMPLE.organizations.oldTown.id;

  const member = (n: number, organizationId: string, fullName: string, title: string | null, showOnWebsite: boolean, sortOrder: number, photo: number | null) => ({
    id: teamMember(n),
    organization_id: organizationId,
    full_name: fullName,
    email: `${fullName.split(' ')[0]!.toLowerCase()}@team.example.org`,
    title,
    bio: title ? `${fullName} is ${title.toLowerCase()} and has volunteered with the community for years.` : null,
    photo_file_id: photo === null ? null : file(photo),
    linkedin_url: photo === null ? null : `https://www.linkedin.com/in/sample-member-${n}`,
    website_url: null,
    show_on_website: showOnWebsite,
    sort_order: sortOrder,
  });
  const teamMembers = [
    member(1, nordic, 'Astrid Lindqvist', 'Head of Community', true, 1, 5),
    member(2, nordic, 'Mikko Virtanen', 'Programme Lead', true, 2, 6),
    member(3, nordic, 'Zoë Ødegaard', 'Volunteer Coordinator', true, 3, null),
    member(4, nordic, 'Henrik Holm', 'Treasurer', false, 0, null),
    member(5, pacific, 'Maya Thompson', 'Organizer', true, 10, 7),
    member(6, pacific, 'Daniel Kim', null, true, 20, null),
    member(7, pacific, 'Priya Raman', 'Sponsorship', false, 5, null),
    member(8, harbor, 'Jonas Weber', 'Founder', true, 1, null),
    member(9, oldTown, 'Kadri Tamm', 'Host', true, 1, null),
  ];

  const person = (
    n: number,
    organizationId: string,
    name: string,
    invitationStatus: 'invited' | 'accepted' | 'declined',
    jobTitle: string | null,
    company: string | null,
    photo: number | null,
  ) => {
    const handle = name
      .toLowerCase()
      .replaceAll('ø', 'o')
      .normalize('NFD')
      .replace(/[^a-z ]/g, '')
      .replaceAll(' ', '-');
    return {
      id: speaker(n),
      organization_id: organizationId,
      name,
      email: `${handle}@speakers.example.com`,
      job_title: jobTitle,
      company,
      bio: jobTitle
        ? `${name} works as ${jobTitle} at ${company}. Before that, ${name.split(' ')[0]} spent a decade building ` +
          'distributed systems and now speaks about reliability, developer experience and sustainable pace.'
        : null,
      photo_file_id: photo === null ? null : file(photo),
      linkedin_url: photo === null ? null : `https://www.linkedin.com/in/${handle}`,
      github_url: photo === null ? null : `https://github.com/${handle}`,
      website_url: n % 2 === 1 ? `https://${handle}.example.net` : null,
      invitation_status: invitationStatus,
    };
  };
  const speakers = [
    person(1, nordic, 'Ada Sørensen', 'accepted', 'Staff Engineer', 'Fjord Systems', 8),
    person(2, nordic, 'Lars Eriksson', 'accepted', 'CTO', 'Polar Bytes', 9),
    person(3, nordic, 'Yuki Tanaka', 'accepted', 'Developer Advocate', 'Sakura Labs', 10),
    person(4, nordic, 'Fatima Al-Sayed', 'accepted', null, null, null),
    person(5, nordic, 'Oskar Berg', 'invited', 'Security Researcher', 'Northwind', 20),
    person(6, nordic, 'Nora Declan', 'declined', 'Principal Engineer', 'Elsewhere Inc.', null),
    person(7, pacific, 'Grace Liu', 'accepted', 'Maintainer', 'Redwood Hosting', 11),
    person(8, pacific, 'Carlos Mendoza', 'accepted', 'Engineering Manager', 'Golden Gate Devices', null),
    person(9, pacific, 'Hannah Park', 'invited', 'Researcher', 'Bay Institute', null),
    person(10, harbor, 'Felix Bauer', 'accepted', 'Game Designer', 'Elbe Pixel', null),
  ];

  const company = (n: number, organizationId: string, name: string, isOrganizationSponsor: boolean, logo: number | null, description: string | null) => ({
    id: sponsor(n),
    organization_id: organizationId,
    name,
    description,
    logo_file_id: logo === null ? null : file(logo),
    website_url: `https://${name.toLowerCase().replace(/[^a-z]+/g, '')}.example.com`,
    is_organization_sponsor: isOrganizationSponsor,
  });
  const sponsors = [
    company(1, nordic, 'Fjord Cloud', true, 12, 'Managed Kubernetes from data centres in Norway, running on hydropower.'),
    company(2, nordic, 'Aurora Analytics', false, 13, 'Dashboards for teams who would rather ask questions than write SQL.'),
    company(3, nordic, 'Midnight Sun Coffee', false, null, null),
    company(4, nordic, 'Polar Bytes', false, null, 'A Helsinki consultancy for embedded Rust.'),
    company(5, pacific, 'Redwood Hosting', true, 14, 'Static hosting for open-source documentation, free for maintainers.'),
    company(6, pacific, 'Golden Gate Devices', false, null, 'Hardware for makers.'),
    company(7, harbor, 'Elbe Pixel', true, null, null),
  ];

  const happening = (
    n: number,
    organizationId: string,
    slug: string,
    name: string,
    status: 'draft' | 'published' | 'cancelled' | 'suspended',
    timeZone: string,
    startsAt: string,
    endsAt: string,
    venue: { venueName: string; address: string; city: string; country: string; latitude: number; longitude: number } | null,
    more: Partial<{
      description: string;
      cover: number;
      logo: number;
      capacity: number;
      registrationEnabled: boolean;
      registrationStartsAt: string;
      registrationEndsAt: string;
    }> = {},
  ) => ({
    id: event(n),
    organization_id: organizationId,
    name,
    slug,
    description: more.description ?? null,
    cover_file_id: more.cover === undefined ? null : file(more.cover),
    logo_file_id: more.logo === undefined ? null : file(more.logo),
    status,
    time_zone: timeZone,
    starts_at: startsAt,
    ends_at: endsAt,
    venue_name: venue?.venueName ?? null,
    address: venue?.address ?? null,
    city: venue?.city ?? null,
    country: venue?.country ?? null,
    latitude: venue?.latitude ?? null,
    longitude: venue?.longitude ?? null,
    capacity: more.capacity ?? null,
    registration_enabled: more.registrationEnabled ?? true,
    registration_starts_at: more.registrationStartsAt ?? null,
    registration_ends_at: more.registrationEndsAt ?? null,
  });
  const e = SAMPLE.events;
  const stockholmVenue = {
    venueName: 'Münchenbryggeriet',
    address: 'Torkel Knutssonsgatan 2',
    city: 'Stockholm',
    country: 'Sweden',
    latitude: 59.3193,
    longitude: 18.0599,
  };
  const berlinVenue = {
    venueName: 'Kulturbrauerei',
    address: 'Schönhauser Allee 36',
    city: 'Berlin',
    country: 'Germany',
    latitude: 52.5391,
    longitude: 13.4128,
  };
  const events = [
    happening(1, nordic, e.stockholmDevDays.slug, 'Stockholm Dev Days', 'published', 'Europe/Stockholm', at(-1, 7), at(2, 15), stockholmVenue, {
      description: 'Three days of talks and workshops on building software that lasts.',
      cover: 15,
      capacity: 300,
      registrationStartsAt: at(-60, 8),
      registrationEndsAt: at(-2, 22),
    }),
    happening(2, nordic, e.berlinCloudSummit.slug, 'Berlin Cloud Summit', 'published', 'Europe/Berlin', at(-45, 8), at(-44, 16), berlinVenue, {
      description: 'Operating cloud platforms in Europe: sovereignty, cost and reliability.',
      registrationEnabled: false,
    }),
    happening(
      3,
      nordic,
      e.nordicSummit.slug,
      'Nordic Summit 2027',
      'published',
      'Europe/Copenhagen',
      at(90, 7),
      at(92, 15),
      { venueName: 'Bella Center', address: 'Center Blvd. 5', city: 'Copenhagen', country: 'Denmark', latitude: 55.6377, longitude: 12.5779 },
      {
        description:
          'Our flagship conference: two days, three tracks, and the best coffee north of Hamburg. ' +
          'Talks on languages, platforms, security and the craft of software engineering.',
        cover: 16,
        logo: 17,
        capacity: 500,
        registrationStartsAt: at(-10, 8),
        registrationEndsAt: at(80, 22),
      },
    ),
    happening(4, nordic, e.rustWorkshop.slug, 'Hands-on Rust Workshop', 'published', 'Europe/Stockholm', at(20, 12), at(20, 16), stockholmVenue, {
      description: 'Small-group workshop: ownership, lifetimes and fearless concurrency.',
      capacity: 3,
    }),
    happening(
      5,
      nordic,
      e.tokyoMeetup.slug,
      'Nordic × Tokyo Meetup',
      'published',
      'Asia/Tokyo',
      at(40, 9),
      at(40, 12),
      { venueName: 'Shibuya Stream Hall', address: '3-21-3 Shibuya', city: 'Tokyo', country: 'Japan', latitude: 35.6569, longitude: 139.7029 },
      { description: 'An evening of lightning talks with our friends in Tokyo. Programme to be announced.' },
    ),
    happening(6, nordic, e.nightHackathon.slug, 'Berlin Night Hackathon', 'published', 'Europe/Berlin', around(-16), around(10), berlinVenue, {
      description: 'Hack through the night the clocks change: the programme lasts one hour more (or less) than it looks.',
      cover: 19,
      capacity: 120,
    }),
    happening(7, nordic, e.springDraft.slug, 'Spring Meetup (draft)', 'draft', 'Europe/Stockholm', at(150, 16), at(150, 19), stockholmVenue),
    happening(8, nordic, e.cancelledMeetup.slug, 'Winter Social', 'cancelled', 'Europe/Stockholm', at(10, 17), at(10, 21), stockholmVenue, {
      description: 'Cancelled: the venue closed.',
    }),
    happening(
      9,
      pacific,
      e.pacificSummit.slug,
      'Pacific Summit 2027',
      'published',
      'America/Los_Angeles',
      at(60, 16),
      at(61, 24),
      { venueName: 'Moscone West', address: '800 Howard St', city: 'San Francisco', country: 'United States', latitude: 37.7834, longitude: -122.4015 },
      { description: 'Two days of open-source talks by the people who maintain the code.', cover: 18 },
    ),
    happening(10, pacific, e.nycNight.slug, 'NYC Open Source Night', 'published', 'America/New_York', at(-20, 22), at(-19, 2), {
      venueName: 'The Foundry',
      address: '42-38 9th St',
      city: 'New York',
      country: 'United States',
      latitude: 40.7505,
      longitude: -73.9481,
    }),
    happening(11, pacific, e.suspendedRetreat.slug, 'Portland Maintainers Retreat', 'suspended', 'America/Los_Angeles', at(30, 17), at(32, 23), null),
    happening(12, harbor, e.harborSummit.slug, 'Harbor Summit 2027', 'published', 'Europe/Berlin', at(30, 8), at(30, 17), null, {
      description: 'The yearly get-together of Hamburg game makers.',
    }),
    happening(13, oldTown, e.oldTownWinter.slug, 'Winter Meetup', 'published', 'Europe/Tallinn', at(-100, 16), at(-100, 19), null),
  ];

  const talk = (n: number, eventId: string, name: string, startsAt: string | null, endsAt: string | null, room: string | null, capacity: number | null = null) => ({
    id: session(n),
    event_id: eventId,
    name,
    description: `${name}: what we learned, what we would do differently, and what you can use on Monday morning.`,
    room,
    starts_at: startsAt,
    ends_at: endsAt,
    capacity,
  });
  const sessions = [
    talk(1, e.stockholmDevDays.id, 'Opening keynote: software that lasts', at(-1, 8), at(-1, 9), 'Main hall'),
    talk(2, e.stockholmDevDays.id, 'Observability without the bill', at(0, 9), at(0, 10), 'Room B', 80),
    talk(3, e.stockholmDevDays.id, 'Rust in production at scale', at(2, 12), at(2, 13), 'Main hall'),
    talk(4, e.berlinCloudSummit.id, 'Sovereign cloud, practically', at(-45, 9), at(-45, 10), 'Saal 1'),
    talk(5, e.berlinCloudSummit.id, 'Cost is a reliability metric', at(-44, 13), at(-44, 14), 'Saal 2'),
    talk(10, e.nordicSummit.id, 'Keynote: the next ten years of the web', at(90, 8), at(90, 9), 'Hall A', 500),
    talk(11, e.nordicSummit.id, 'Threat modelling for busy teams', at(90, 10), at(90, 11), 'Hall B', 150),
    talk(12, e.nordicSummit.id, 'Panel: hiring and growing engineers', at(91, 13), at(91, 14), 'Hall A'),
    talk(13, e.nordicSummit.id, 'Workshop: property-based testing', at(91, 10), at(91, 12), 'Room 3', 30),
    talk(14, e.nordicSummit.id, 'Closing remarks', at(92, 14), at(92, 15), 'Hall A'),
    talk(15, e.nordicSummit.id, 'Lightning talks (times to be announced)', null, null, null),
    talk(16, e.rustWorkshop.id, 'Rust workshop', at(20, 12), at(20, 16), 'Lab', 3),
    talk(17, e.nightHackathon.id, 'Kick-off and team forming', around(-15), around(-14), 'Main floor'),
    talk(18, e.nightHackathon.id, 'Hacking through the clock change', around(-3), around(3), 'Main floor'),
    talk(19, e.nightHackathon.id, 'Demos and breakfast', around(7), around(9), 'Main floor'),
    talk(20, e.springDraft.id, 'Draft talk', at(150, 16), at(150, 17), null),
    talk(21, e.cancelledMeetup.id, 'Cancelled talk', at(10, 17), at(10, 18), null),
    talk(22, e.pacificSummit.id, 'Keynote: sustaining open source', at(60, 17), at(60, 18), 'Ballroom'),
    talk(23, e.pacificSummit.id, 'Supply-chain security for maintainers', at(60, 19), at(60, 20), 'Room 2'),
    talk(24, e.pacificSummit.id, 'Hardware hacking hour', at(61, 18), at(61, 19), 'Room 3', 40),
    talk(25, e.nycNight.id, 'Open source in New York', at(-20, 23), at(-19, 0), 'Stage'),
    talk(26, e.nycNight.id, 'Maintainer mixer', at(-19, 0), at(-19, 2), 'Bar'),
    talk(27, e.suspendedRetreat.id, 'Retreat session', at(30, 18), at(30, 19), null),
    talk(28, e.harborSummit.id, 'Designing cozy games', at(30, 9), at(30, 10), 'Dock 1'),
    talk(29, e.oldTownWinter.id, 'Winter talk', at(-100, 16), at(-100, 17), null),
  ];

  const billing = (sessionN: number, speakerN: number, billingOrder: number) => ({
    session_id: session(sessionN),
    speaker_id: speaker(speakerN),
    billing_order: billingOrder,
  });
  const sessionSpeakers = [
    billing(1, 1, 1),
    billing(2, 2, 1),
    billing(2, 4, 2),
    billing(3, 1, 1),
    billing(3, 2, 2),
    billing(4, 1, 1),
    billing(5, 3, 1),
    billing(10, 1, 1),
    billing(11, 5, 1), // invited: dropped, the session keeps its accepted speaker
    billing(11, 4, 2),
    billing(12, 3, 3),
    billing(12, 2, 1),
    billing(12, 6, 2), // declined: dropped
    billing(13, 1, 1),
    billing(15, 3, 1), // unscheduled session: dropped with it
    billing(16, 2, 1),
    billing(18, 4, 1),
    billing(18, 3, 2),
    billing(20, 1, 1),
    billing(21, 2, 1),
    billing(22, 7, 1),
    billing(23, 8, 1),
    billing(23, 9, 2), // invited: dropped
    billing(25, 7, 1),
    billing(27, 8, 1),
    billing(28, 10, 1),
  ];
  // Session 14 (closing remarks), 17, 19, 24 and 26 have no confirmed speaker.

  const onEvent = (eventId: string, sponsorN: number, tier: string | null, sortOrder: number) => ({
    event_id: eventId,
    sponsor_id: sponsor(sponsorN),
    tier,
    sort_order: sortOrder,
  });
  const eventSponsors = [
    onEvent(e.nordicSummit.id, 1, 'Platinum', 1),
    onEvent(e.nordicSummit.id, 2, 'Gold ✨', 2),
    onEvent(e.nordicSummit.id, 4, 'Community partner', 3),
    onEvent(e.stockholmDevDays.id, 4, 'Coffee & Wi-Fi', 1),
    onEvent(e.stockholmDevDays.id, 1, null, 2),
    onEvent(e.berlinCloudSummit.id, 1, 'Host', 0),
    onEvent(e.cancelledMeetup.id, 2, 'Gold', 1),
    onEvent(e.pacificSummit.id, 6, 'Silver', 2),
    onEvent(e.pacificSummit.id, 5, 'Presenting sponsor', 1),
    onEvent(e.harborSummit.id, 7, 'Main', 1),
  ];

  let registrationN = 0;
  const attendees = (eventId: string, count: number, registeredAt: string) =>
    Array.from({ length: count }, () => {
      registrationN += 1;
      return {
        id: registration(registrationN),
        event_id: eventId,
        full_name: `Attendee ${registrationN}`,
        email: `attendee${registrationN}@mail.example.com`,
        created_at: registeredAt,
      };
    });
  const registrations = [
    ...attendees(e.stockholmDevDays.id, 4, at(-30, 10)),
    ...attendees(e.berlinCloudSummit.id, 3, at(-60, 10)),
    ...attendees(e.nordicSummit.id, 5, at(-5, 10)),
    ...attendees(e.rustWorkshop.id, 3, at(-3, 10)), // capacity 3: full
    ...attendees(e.pacificSummit.id, 2, at(-2, 18)),
    ...attendees(e.cancelledMeetup.id, 1, at(-7, 10)),
    ...attendees(e.harborSummit.id, 1, at(-1, 10)),
  ];

  return {
    files: images,
    organizations,
    team_members: teamMembers,
    speakers,
    sponsors,
    events,
    sessions,
    session_speakers: sessionSpeakers,
    event_sponsors: eventSponsors,
    registrations,
  };
}

/**
 * The first European clock change (last Sunday of March or October, 01:00 UTC: the rule of
 * Europe/Berlin, Stockholm, Copenhagen) at or after `after`.
 */
export function nextEuropeanClockChange(after: Date): Date {
  for (let year = after.getUTCFullYear(); ; year += 1) {
    for (const month of [2, 9]) {
      const lastDay = new Date(Date.UTC(year, month + 1, 0));
      const lastSunday = Date.UTC(year, month, lastDay.getUTCDate() - lastDay.getUTCDay(), 1);
      if (lastSunday >= after.getTime()) return new Date(lastSunday);
    }
  }
}
