-- Source versions (docs/platform.md §5, docs/design.md "Builders at platform scale"): the change
-- trigger now also advances the organization's row in marquee_source_versions (one of Marquee's
-- own relations, records/schema/, migrated before this script), so a scheduled run finds what changed
-- with one query, including changes whose notification nobody heard. The triggers of 001 call
-- this function by name and need no change.
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
    INSERT INTO marquee_source_versions (organization_id, version, changed_at)
    VALUES (owning_organization, nextval('marquee_source_version'), now())
    ON CONFLICT (organization_id) DO UPDATE SET version = excluded.version, changed_at = excluded.changed_at;
    PERFORM pg_notify('marquee_changes', owning_organization::text);
  END LOOP;
  RETURN NULL;
END
$$;
