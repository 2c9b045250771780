// The events' schema.org JSON-LD (elements/marquee-elements.js, eventJsonLd): what a search engine
// reads of an event, from the API's event as it is.
import { describe, expect, it } from 'vitest';
import { eventJsonLd } from '../../../elements/marquee-elements.js';

const at = (utc: string, local: string) => ({ utc, local, timeZoneId: 'Europe/Berlin' });
const organization = { name: 'Nordic Events', website: 'https://nordic.example.org', publicUrl: 'https://events.example.com/nordic' };
const hackathon = {
  name: 'Berlin Night Hackathon',
  description: 'All night.',
  start: at('2027-03-27T10:00:00Z', '2027-03-27T11:00:00+01:00'),
  end: at('2027-03-28T10:00:00Z', '2027-03-28T12:00:00+02:00'),
  venueName: 'c-base',
  address: 'Rungestraße 20',
  city: 'Berlin',
  country: 'DE',
  publicUrl: 'https://events.example.com/night-hackathon',
  speakers: [{ name: 'Ada' }, { name: 'Linus' }],
};

describe('eventJsonLd', () => {
  it('gives an Event on the venue’s clock with its offset, at a Place with its PostalAddress', () => {
    expect(eventJsonLd(hackathon, organization)).toEqual({
      '@context': 'https://schema.org',
      '@type': 'Event',
      name: 'Berlin Night Hackathon',
      description: 'All night.',
      startDate: '2027-03-27T11:00:00+01:00',
      endDate: '2027-03-28T12:00:00+02:00',
      eventStatus: 'https://schema.org/EventScheduled',
      eventAttendanceMode: 'https://schema.org/OfflineEventAttendanceMode',
      location: {
        '@type': 'Place',
        name: 'c-base',
        address: { '@type': 'PostalAddress', streetAddress: 'Rungestraße 20', addressLocality: 'Berlin', addressCountry: 'DE' },
      },
      performer: [
        { '@type': 'Person', name: 'Ada' },
        { '@type': 'Person', name: 'Linus' },
      ],
      organizer: { '@type': 'Organization', name: 'Nordic Events', url: 'https://nordic.example.org' },
      url: 'https://events.example.com/night-hackathon',
    });
  });

  it('places an event without a venue online, at its page; no speakers, no performer; no website, the public page', () => {
    const online = { ...hackathon, venueName: null, address: null, city: null, country: null, speakers: [], description: null };
    const data = eventJsonLd(online, { ...organization, website: null });
    expect(data).toMatchObject({
      eventAttendanceMode: 'https://schema.org/OnlineEventAttendanceMode',
      location: { '@type': 'VirtualLocation', url: online.publicUrl },
      organizer: { url: organization.publicUrl },
    });
    expect(data).not.toHaveProperty('performer');
    expect(data).not.toHaveProperty('description');
  });

  it('names a Place by its city when the venue has no name, and gives only the address parts it has', () => {
    const data = eventJsonLd({ ...hackathon, venueName: null, address: null }, organization);
    expect(data.location).toEqual({ '@type': 'Place', name: 'Berlin', address: { '@type': 'PostalAddress', addressLocality: 'Berlin', addressCountry: 'DE' } });
  });
});
