-- The platform relations of docs/platform.md, as tables, for the embedded default, development and
-- tests (a real platform may expose the same names as views). Names and columns are the contract.
-- Written to be safe to run twice; migrations.ts also records it in marquee_schema_version.

CREATE TABLE IF NOT EXISTS files (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  url text NOT NULL -- absolute
);

CREATE TABLE IF NOT EXISTS organizations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  slug text NOT NULL UNIQUE,
  description text,
  logo_file_id uuid REFERENCES files (id) ON DELETE SET NULL,
  cover_file_id uuid REFERENCES files (id) ON DELETE SET NULL,
  website text,
  email text, -- the public contact e-mail: the one e-mail that is published
  phone text,
  address text,
  city text,
  country text,
  latitude double precision,
  longitude double precision,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'closed'))
);

CREATE TABLE IF NOT EXISTS team_members (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  full_name text NOT NULL,
  email text, -- never published
  title text,
  bio text,
  photo_file_id uuid REFERENCES files (id) ON DELETE SET NULL,
  linkedin_url text,
  website_url text,
  show_on_website boolean NOT NULL DEFAULT false,
  sort_order int NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS team_members_organization_id ON team_members (organization_id);

CREATE TABLE IF NOT EXISTS speakers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  email text, -- never published
  job_title text,
  company text,
  bio text,
  photo_file_id uuid REFERENCES files (id) ON DELETE SET NULL,
  linkedin_url text,
  github_url text,
  website_url text,
  invitation_status text NOT NULL CHECK (invitation_status IN ('invited', 'accepted', 'declined'))
);
CREATE INDEX IF NOT EXISTS speakers_organization_id ON speakers (organization_id);

CREATE TABLE IF NOT EXISTS sponsors (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  logo_file_id uuid REFERENCES files (id) ON DELETE SET NULL,
  website_url text,
  is_organization_sponsor boolean NOT NULL DEFAULT false
);
CREATE INDEX IF NOT EXISTS sponsors_organization_id ON sponsors (organization_id);

CREATE TABLE IF NOT EXISTS events (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  name text NOT NULL,
  slug text NOT NULL,
  description text,
  cover_file_id uuid REFERENCES files (id) ON DELETE SET NULL,
  logo_file_id uuid REFERENCES files (id) ON DELETE SET NULL,
  status text NOT NULL CHECK (status IN ('draft', 'published', 'cancelled', 'suspended')),
  time_zone text NOT NULL, -- IANA
  starts_at timestamptz NOT NULL,
  ends_at timestamptz NOT NULL,
  venue_name text,
  address text,
  city text,
  country text,
  latitude double precision,
  longitude double precision,
  capacity int, -- null: no limit
  registration_enabled boolean NOT NULL DEFAULT true,
  registration_starts_at timestamptz, -- both null: no registration period
  registration_ends_at timestamptz,
  -- "unique per organization"; the unique index also serves lookups by organization_id.
  UNIQUE (organization_id, slug)
);

CREATE TABLE IF NOT EXISTS sessions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_id uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  name text NOT NULL,
  description text,
  room text,
  starts_at timestamptz, -- both null: not scheduled, so not published
  ends_at timestamptz,
  capacity int
);
CREATE INDEX IF NOT EXISTS sessions_event_id ON sessions (event_id);

CREATE TABLE IF NOT EXISTS session_speakers (
  session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  speaker_id uuid NOT NULL REFERENCES speakers (id) ON DELETE CASCADE,
  billing_order int NOT NULL,
  PRIMARY KEY (session_id, speaker_id)
);
CREATE INDEX IF NOT EXISTS session_speakers_speaker_id ON session_speakers (speaker_id);

CREATE TABLE IF NOT EXISTS event_sponsors (
  event_id uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  sponsor_id uuid NOT NULL REFERENCES sponsors (id) ON DELETE CASCADE,
  tier text, -- free text, exactly as the organizer typed it
  sort_order int NOT NULL DEFAULT 0,
  PRIMARY KEY (event_id, sponsor_id)
);
CREATE INDEX IF NOT EXISTS event_sponsors_sponsor_id ON event_sponsors (sponsor_id);

CREATE TABLE IF NOT EXISTS registrations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  event_id uuid NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  full_name text,
  email text NOT NULL, -- never published; only the count per event is read
  created_at timestamptz DEFAULT now()
);
CREATE INDEX IF NOT EXISTS registrations_event_id ON registrations (event_id);

-- Image lookups: which organizations reference a file (the files trigger below asks this).
CREATE INDEX IF NOT EXISTS organizations_logo_file_id ON organizations (logo_file_id);
CREATE INDEX IF NOT EXISTS organizations_cover_file_id ON organizations (cover_file_id);
CREATE INDEX IF NOT EXISTS team_members_photo_file_id ON team_members (photo_file_id);
CREATE INDEX IF NOT EXISTS speakers_photo_file_id ON speakers (photo_file_id);
CREATE INDEX IF NOT EXISTS sponsors_logo_file_id ON sponsors (logo_file_id);
CREATE INDEX IF NOT EXISTS events_cover_file_id ON events (cover_file_id);
CREATE INDEX IF NOT EXISTS events_logo_file_id ON events (logo_file_id);

-- Change notification (docs/platform.md, docs/design.md "on change"): every insert, update or delete
-- runs pg_notify('marquee_changes', <organization id>) for each organization the old or the new
-- row belongs to, so a row moved between organizations rebuilds both. Row-level triggers work
-- the same on PostgreSQL and PGlite; PostgreSQL folds identical notifications of one transaction
-- into one, so a bulk change still wakes the builder once per organization.

-- The organizations that rows keyed by `keys` belong to; `owner` says what the keys are.
-- search_path is pinned at creation (PLATFORM_SCHEMA) because triggers fire in the platform's
-- own sessions, whose search_path may differ.
CREATE OR REPLACE FUNCTION marquee_owning_organizations(owner text, keys uuid[])
RETURNS SETOF uuid LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
  SELECT key FROM unnest(keys) AS key WHERE owner = 'organization' AND key IS NOT NULL
  UNION
  SELECT organization_id FROM events WHERE owner = 'event' AND id = ANY (keys)
  UNION
  SELECT e.organization_id FROM sessions s JOIN events e ON e.id = s.event_id
  WHERE owner = 'session' AND s.id = ANY (keys)
  UNION
  -- A file belongs to every organization whose page shows it (docs/platform.md: logos, covers, photos).
  SELECT id FROM organizations
  WHERE owner = 'file' AND (logo_file_id = ANY (keys) OR cover_file_id = ANY (keys))
  UNION
  SELECT organization_id FROM events
  WHERE owner = 'file' AND (logo_file_id = ANY (keys) OR cover_file_id = ANY (keys))
  UNION
  SELECT organization_id FROM team_members WHERE owner = 'file' AND photo_file_id = ANY (keys)
  UNION
  SELECT organization_id FROM speakers WHERE owner = 'file' AND photo_file_id = ANY (keys)
  UNION
  SELECT organization_id FROM sponsors WHERE owner = 'file' AND logo_file_id = ANY (keys)
$$;

-- Trigger arguments: the owner kind (see above) and the column of the row that holds its key.
CREATE OR REPLACE FUNCTION marquee_notify_change()
RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  owner text := TG_ARGV[0];
  key_column text := TG_ARGV[1];
  keys uuid[] := ARRAY[]::uuid[];
  owning_organization uuid;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    keys := keys || (to_jsonb(OLD) ->> key_column)::uuid;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    keys := keys || (to_jsonb(NEW) ->> key_column)::uuid;
  END IF;
  FOR owning_organization IN SELECT * FROM marquee_owning_organizations(owner, keys) LOOP
    PERFORM pg_notify('marquee_changes', owning_organization::text);
  END LOOP;
  RETURN NULL;
END
$$;

DROP TRIGGER IF EXISTS marquee_changes ON files;
CREATE TRIGGER marquee_changes AFTER INSERT OR UPDATE OR DELETE ON files
  FOR EACH ROW EXECUTE FUNCTION marquee_notify_change('file', 'id');
DROP TRIGGER IF EXISTS marquee_changes ON organizations;
CREATE TRIGGER marquee_changes AFTER INSERT OR UPDATE OR DELETE ON organizations
  FOR EACH ROW EXECUTE FUNCTION marquee_notify_change('organization', 'id');
DROP TRIGGER IF EXISTS marquee_changes ON team_members;
CREATE TRIGGER marquee_changes AFTER INSERT OR UPDATE OR DELETE ON team_members
  FOR EACH ROW EXECUTE FUNCTION marquee_notify_change('organization', 'organization_id');
DROP TRIGGER IF EXISTS marquee_changes ON speakers;
CREATE TRIGGER marquee_changes AFTER INSERT OR UPDATE OR DELETE ON speakers
  FOR EACH ROW EXECUTE FUNCTION marquee_notify_change('organization', 'organization_id');
DROP TRIGGER IF EXISTS marquee_changes ON sponsors;
CREATE TRIGGER marquee_changes AFTER INSERT OR UPDATE OR DELETE ON sponsors
  FOR EACH ROW EXECUTE FUNCTION marquee_notify_change('organization', 'organization_id');
DROP TRIGGER IF EXISTS marquee_changes ON events;
CREATE TRIGGER marquee_changes AFTER INSERT OR UPDATE OR DELETE ON events
  FOR EACH ROW EXECUTE FUNCTION marquee_notify_change('organization', 'organization_id');
DROP TRIGGER IF EXISTS marquee_changes ON sessions;
CREATE TRIGGER marquee_changes AFTER INSERT OR UPDATE OR DELETE ON sessions
  FOR EACH ROW EXECUTE FUNCTION marquee_notify_change('event', 'event_id');
DROP TRIGGER IF EXISTS marquee_changes ON session_speakers;
CREATE TRIGGER marquee_changes AFTER INSERT OR UPDATE OR DELETE ON session_speakers
  FOR EACH ROW EXECUTE FUNCTION marquee_notify_change('session', 'session_id');
DROP TRIGGER IF EXISTS marquee_changes ON event_sponsors;
CREATE TRIGGER marquee_changes AFTER INSERT OR UPDATE OR DELETE ON event_sponsors
  FOR EACH ROW EXECUTE FUNCTION marquee_notify_change('event', 'event_id');
DROP TRIGGER IF EXISTS marquee_changes ON registrations;
CREATE TRIGGER marquee_changes AFTER INSERT OR UPDATE OR DELETE ON registrations
  FOR EACH ROW EXECUTE FUNCTION marquee_notify_change('event', 'event_id');
