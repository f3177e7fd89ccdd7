/**
 * The SQL store's layout: every table of every project in one `store_rows` table, each row a JSON document,
 * and the registry of projects. One generic table keeps the store ignorant of the domain: a new domain table
 * needs no migration, only its declared indexes do (each a partial index on `tbl`, see sql/indexes.ts).
 *
 * A fixed file: once released it never changes; a later change of layout is a later migration.
 */
import type { Migration } from './migration.js';

export const rows: Migration = {
  name: '0001-rows',
  up: (sql) =>
    sql.exec(`
      -- "C" collation: IDs compare byte for byte, which is also faster than a language's rules.
      CREATE TABLE store_projects (
        id text COLLATE "C" PRIMARY KEY,
        -- Creation order, in which projectIds() lists them (the memory store's Map order).
        seq bigint GENERATED ALWAYS AS IDENTITY
      );

      CREATE TABLE store_rows (
        project_id text COLLATE "C" NOT NULL,
        tbl text COLLATE "C" NOT NULL,
        id text COLLATE "C" NOT NULL,
        -- Insertion order: the order of findBy and of a list without orderBy, and the tie-break of every sort.
        -- An update keeps it; a delete undone by a rollback gets it back with the row.
        seq bigint GENERATED ALWAYS AS IDENTITY,
        doc jsonb NOT NULL,
        PRIMARY KEY (project_id, tbl, id)
      );
      CREATE INDEX store_rows_inserted ON store_rows (project_id, tbl, seq);

      -- The start of a unit of work: waits for the project's lock, then says whether the project exists.
      -- PL/pgSQL because each statement of a volatile function takes a fresh snapshot: the existence check
      -- must see what the lock's previous holder committed (a dropProject), and one round trip does both.
      --
      -- A transaction-scoped advisory lock per project serialises units of work on one project across every
      -- server process, as the memory store's per-project mutex does in one process. The domain's invariants
      -- (no over-redemption, no double publication, no negative balance, no lost counter update) are
      -- read-check-write sequences over several rows and tables, so:
      -- - row locks would need every unit of work to know up front which rows it will read;
      -- - serializable isolation would abort and retry whole units of work, whose side effects (events,
      --   outbox rows, IDs handed out) are not written to be replayed, and would retry often on a hot counter;
      -- - an advisory lock costs no write and no WAL (a read-only unit of work stays read-only, with no commit
      --   flush), and READ COMMITTED is then enough, since each statement after the lock sees everything the
      --   previous holder committed.
      -- The price is one writer at a time per project, which is the memory store's model too.
      CREATE FUNCTION store_enter(project text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
      BEGIN
        PERFORM pg_advisory_xact_lock(hashtextextended(project, 0));
        RETURN EXISTS (SELECT 1 FROM store_projects WHERE id = project);
      END $$;

      -- A condition's \`as: 'number'\` reading (conditions.ts): a number, or a string holding a decimal number
      -- as JavaScript's Number() reads it. Never raises: float8's input refuses values past its range where
      -- JavaScript gives Infinity or 0, so at most 300 significant integer digits are read (more reads as
      -- ±Infinity; JavaScript is finite up to 308) and at most 300 decimals (later ones change nothing above
      -- 1e-283).
      CREATE FUNCTION store_number(v jsonb) RETURNS double precision LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
      DECLARE
        s text;
        m text[];
      BEGIN
        IF jsonb_typeof(v) = 'number' THEN RETURN v::double precision; END IF;
        IF jsonb_typeof(v) <> 'string' THEN RETURN NULL; END IF;
        s := v #>> '{}';
        -- [0-9], not \\d: PostgreSQL's \\d may take other scripts' digits, JavaScript's does not.
        IF s !~ '^-?[0-9]+(\\.[0-9]+)?$' THEN RETURN NULL; END IF;
        m := regexp_match(s, '^(-?)0*([0-9]*)(?:\\.([0-9]*))?$');
        IF length(m[2]) > 300 THEN RETURN (m[1] || 'Infinity')::double precision; END IF;
        RETURN (m[1] || '0' || m[2] || '.' || left(coalesce(m[3], ''), 300) || '0')::double precision;
      END $$;

      -- The zone's offset from UTC at an instant, both in milliseconds.
      CREATE FUNCTION store_zone_offset(instant bigint, zone text) RETURNS bigint LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
        SELECT round(extract(epoch FROM to_timestamp(instant / 1000.0) AT TIME ZONE zone) * 1000)::bigint - instant
      $$;

      -- A condition's \`as: 'time'\` reading: JavaScript's Date.parse, in milliseconds, of an ISO-8601 date or
      -- date-time (the forms V8 reads as ISO: 'T', 't' or ' ' between, minutes required, seconds and any
      -- number of decimals optional, 'Z' or ±hh:mm or ±hhmm), and a number as is. Like V8, a day up to 31
      -- runs on into the next month (2026-02-30 is 2026-03-02), 24:00 is the next midnight, a date alone is
      -- UTC and a date-time without an offset is local time, here in \`zone\` (the server process's zone).
      -- Strings only V8's lenient fallback parser reads ('2026-11-24 junk', '2026-11-24 10:00+01') do not read
      -- here; that parser also takes a space-separated date-time, reading years before 0100 as later ones. Computed with
      -- arithmetic rather than a cast, which would raise on what V8 accepts or refuses.
      CREATE FUNCTION store_time_ms(v jsonb, zone text) RETURNS double precision LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE AS $$
      DECLARE
        p text[];
        y int; mo int; d int; h int; mi int; s int; ms int;
        era int; yoe int; doy int;
        days bigint;
        in_day bigint;
        offset_minutes int;
        local_ms bigint;
        before bigint;
        after bigint;
      BEGIN
        IF jsonb_typeof(v) = 'number' THEN RETURN v::double precision; END IF;
        IF jsonb_typeof(v) <> 'string' THEN RETURN NULL; END IF;
        p := regexp_match(v #>> '{}',
          '^([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\\.([0-9]+))?)?(?:([Zz])|([+-])([0-9]{2}):?([0-9]{2}))?)?$');
        IF p IS NULL THEN RETURN NULL; END IF;
        y := p[1]::int; mo := p[2]::int; d := p[3]::int;
        h := coalesce(p[4]::int, 0); mi := coalesce(p[5]::int, 0); s := coalesce(p[6]::int, 0);
        -- Milliseconds are the first three decimals; later ones are dropped, as V8 drops them.
        ms := coalesce(rpad(left(p[7], 3), 3, '0')::int, 0);
        IF mo NOT BETWEEN 1 AND 12 OR d NOT BETWEEN 1 AND 31 OR h > 24 OR mi > 59 OR s > 59
          OR (h = 24 AND (mi > 0 OR s > 0 OR ms > 0)) OR p[10]::int > 23 OR p[11]::int > 59 THEN
          RETURN NULL;
        END IF;
        -- Days from 1970-01-01 to the first of the month (H. Hinnant's days_from_civil), plus the day.
        IF mo <= 2 THEN y := y - 1; END IF;
        era := (CASE WHEN y >= 0 THEN y ELSE y - 399 END) / 400;
        yoe := y - era * 400;
        doy := (153 * (mo + CASE WHEN mo > 2 THEN -3 ELSE 9 END) + 2) / 5 + d - 1;
        days := era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
        in_day := h * 3600000 + mi * 60000 + s * 1000 + ms;
        IF p[4] IS NULL OR p[8] IS NOT NULL THEN RETURN days * 86400000 + in_day; END IF;
        IF p[9] IS NOT NULL THEN
          offset_minutes := (p[10]::int * 60 + p[11]::int) * CASE WHEN p[9] = '-' THEN -1 ELSE 1 END;
          RETURN days * 86400000 + in_day - offset_minutes * 60000;
        END IF;
        -- Local time as ECMAScript reads it: of the instants whose wall-clock time in the zone this is, the
        -- earliest (an hour repeated when clocks go back); in a gap (clocks going forward), the offset from
        -- before it. The offsets a day either side stand for those around any transition.
        local_ms := days * 86400000 + in_day;
        before := store_zone_offset(local_ms - 86400000, zone);
        after := store_zone_offset(local_ms + 86400000, zone);
        IF store_zone_offset(local_ms - after, zone) <> after THEN RETURN local_ms - before; END IF;
        IF store_zone_offset(local_ms - before, zone) <> before THEN RETURN local_ms - after; END IF;
        RETURN local_ms - greatest(before, after);
      END $$;
    `),
};
