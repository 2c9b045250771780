// docs/api.md §2 TeamMember and Speaker; docs/api.md §4 GET /team and GET /speakers; docs/api.md §1 rules 5–7.
import { describe, expect, it } from 'vitest';
import { PlatformFixture } from '../../../support/platform-fixture.ts';
import { project, withExtraColumns } from '../../../support/projection.ts';

describe('/team', () => {
  it('lists only members shown on the website', () => {
    const fixture = new PlatformFixture();
    const shown = fixture.teamMember({ fullName: 'Shown', showOnWebsite: true });
    fixture.teamMember({ fullName: 'Hidden', showOnWebsite: false });
    expect(project(fixture).team.map((member) => member.id)).toEqual([shown.id]);
  });

  it('orders by sortOrder, then fullName by code units, then id', () => {
    const fixture = new PlatformFixture();
    const twinB = fixture.teamMember({ fullName: 'Twin', sortOrder: 1 });
    const twinA = fixture.teamMember({ fullName: 'Twin', sortOrder: 1 });
    const lower = fixture.teamMember({ fullName: 'ada', sortOrder: 1 });
    const upper = fixture.teamMember({ fullName: 'Zed', sortOrder: 1 });
    const last = fixture.teamMember({ fullName: 'Aaron', sortOrder: 5 });
    const first = fixture.teamMember({ fullName: 'Zoe', sortOrder: -2 });
    // Ids were issued in creation order, so twinB's id is smaller than twinA's.
    expect(project(fixture).team.map((member) => member.id)).toEqual([first.id, twinB.id, twinA.id, upper.id, lower.id, last.id]);
  });

  it('builds each member field by field, without e-mail or account data', () => {
    const fixture = new PlatformFixture();
    const photo = fixture.image();
    const row = fixture.teamMember({
      fullName: 'Grace Hopper',
      title: 'Head of Programme',
      bio: 'Compilers.',
      photo,
      linkedInUrl: 'https://linkedin.example/grace',
      websiteUrl: 'https://grace.example',
      sortOrder: 3,
    });
    withExtraColumns(row, { email: 'grace@private.example', accountId: 'acct-1' });

    expect(project(fixture).team).toEqual([
      {
        id: row.id,
        fullName: 'Grace Hopper',
        title: 'Head of Programme',
        bio: 'Compilers.',
        photo,
        linkedInUrl: 'https://linkedin.example/grace',
        websiteUrl: 'https://grace.example',
        sortOrder: 3,
      },
    ]);
  });

  it('gives null for every absent value', () => {
    const fixture = new PlatformFixture();
    fixture.teamMember({ fullName: 'Plain' });
    expect(project(fixture).team[0]).toMatchObject({ title: null, bio: null, photo: null, linkedInUrl: null, websiteUrl: null });
  });
});

describe('/speakers', () => {
  it('lists every accepted speaker, tied to an event or not, and nobody invited or declined', () => {
    const fixture = new PlatformFixture();
    const accepted = fixture.speaker({ name: 'Accepted' });
    fixture.speaker({ name: 'Invited', invitationStatus: 'invited' });
    fixture.speaker({ name: 'Declined', invitationStatus: 'declined' });
    expect(project(fixture).speakers.map((speaker) => speaker.id)).toEqual([accepted.id]);
  });

  it('orders by name by code units, ties by id', () => {
    const fixture = new PlatformFixture();
    const bTwin = fixture.speaker({ name: 'Sam' });
    const aTwin = fixture.speaker({ name: 'Sam' });
    const lower = fixture.speaker({ name: 'adam' });
    const accent = fixture.speaker({ name: 'Émile' });
    const upper = fixture.speaker({ name: 'Zoe' });
    expect(project(fixture).speakers.map((speaker) => speaker.id)).toEqual([bTwin.id, aTwin.id, upper.id, lower.id, accent.id]);
  });

  it('builds each speaker field by field, renaming to the API spelling', () => {
    const fixture = new PlatformFixture();
    const photo = fixture.image();
    const row = fixture.speaker({
      name: 'Ada Lovelace',
      jobTitle: 'Analyst',
      company: 'Engines Ltd',
      bio: 'Notes.',
      photo,
      linkedInUrl: 'https://linkedin.example/ada',
      gitHubUrl: 'https://github.example/ada',
      websiteUrl: 'https://ada.example',
    });
    withExtraColumns(row, { email: 'ada@private.example', phoneNumber: '+44 1' });

    expect(project(fixture).speakers).toEqual([
      {
        id: row.id,
        name: 'Ada Lovelace',
        jobTitle: 'Analyst',
        company: 'Engines Ltd',
        bio: 'Notes.',
        photo,
        linkedInUrl: 'https://linkedin.example/ada',
        gitHubUrl: 'https://github.example/ada',
        websiteUrl: 'https://ada.example',
      },
    ]);
  });

  it('gives null for every absent value', () => {
    const fixture = new PlatformFixture();
    fixture.speaker();
    expect(project(fixture).speakers[0]).toMatchObject({
      jobTitle: null,
      company: null,
      bio: null,
      photo: null,
      linkedInUrl: null,
      gitHubUrl: null,
      websiteUrl: null,
    });
  });
});
