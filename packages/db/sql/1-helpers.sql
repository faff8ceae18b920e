-- Helpers the counter triggers call. Current definitions: lms_user_course_lock is 0003's
-- (0002's plain lock plus the READ COMMITTED check); the participant helpers are 0003's.

-- A chapter completion and an enrollment of the same (user, course) take this transaction-scoped
-- advisory lock, so the two cannot race past each other. The counters rely on READ COMMITTED (a
-- write's trigger must see enrollments committed while it waited for the lock): other isolation
-- levels are refused rather than silently miscounted.
CREATE FUNCTION lms_user_course_lock(p_user_id text, p_course_id integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  IF current_setting('transaction_isolation') <> 'read committed' THEN
    RAISE EXCEPTION 'enrollments and chapter completions must be written under READ COMMITTED, not %',
      upper(current_setting('transaction_isolation'))
      USING ERRCODE = 'feature_not_supported';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended(p_user_id || ':' || p_course_id::text, 727));
END $$;

-- participant_tallies splits each scope's count into 16 stripes, so concurrent enrollments of
-- different users rarely wait on the same tally row.
CREATE FUNCTION lms_participant_stripe(p_user_id text) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT (hashtext(p_user_id) & 15)::smallint $$;

-- Adds p_delta (+1 or -1) per occurrence of each user in p_user_ids to that user's row in
-- (p_kind, p_scope_id); a user entering (row created) or leaving (row_count reaching 0) the scope
-- moves the scope's tally. A NULL scope (a course without category, or a deleted course) is a no-op.
-- Scopes: a category id, or 0 for overall.
CREATE FUNCTION lms_adjust_participants(p_kind participant_kind, p_scope_id integer, p_user_ids text[], p_delta integer)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_changed text[];
BEGIN
  IF p_scope_id IS NULL OR coalesce(cardinality(p_user_ids), 0) = 0 THEN
    RETURN;
  END IF;
  IF p_delta > 0 THEN
    WITH wanted AS (
      SELECT user_id, count(*)::int AS n FROM unnest(p_user_ids) AS user_id GROUP BY user_id
    ), upserted AS (
      INSERT INTO participants AS p (kind, scope_id, user_id, row_count)
      SELECT p_kind, p_scope_id, user_id, n FROM wanted ORDER BY user_id
      ON CONFLICT (kind, scope_id, user_id) DO UPDATE SET row_count = p.row_count + excluded.row_count
      RETURNING p.user_id, p.row_count
    )
    -- A row whose count equals what was added did not exist before (an existing row has >= 1).
    SELECT array_agg(u.user_id) INTO v_changed
    FROM upserted u JOIN wanted w USING (user_id) WHERE u.row_count = w.n;
  ELSE
    WITH wanted AS (
      SELECT user_id, count(*)::int AS n FROM unnest(p_user_ids) AS user_id GROUP BY user_id
    ), updated AS (
      UPDATE participants p SET row_count = p.row_count - w.n
      FROM wanted w
      WHERE p.kind = p_kind AND p.scope_id = p_scope_id AND p.user_id = w.user_id
      RETURNING p.user_id, p.row_count
    )
    SELECT array_agg(user_id) FILTER (WHERE row_count <= 0) INTO v_changed FROM updated;
    IF v_changed IS NOT NULL THEN
      DELETE FROM participants WHERE kind = p_kind AND scope_id = p_scope_id AND user_id = ANY (v_changed);
    END IF;
  END IF;
  IF v_changed IS NOT NULL THEN
    INSERT INTO participant_tallies AS t (kind, scope_id, stripe, participants)
    SELECT p_kind, p_scope_id, lms_participant_stripe(user_id), sign(p_delta)::int * count(*)::int
    FROM unnest(v_changed) AS user_id GROUP BY 3 ORDER BY 3
    ON CONFLICT (kind, scope_id, stripe) DO UPDATE SET participants = t.participants + excluded.participants;
  END IF;
END $$;

-- A row's identity columns never change (moving a completion or an enrollment is a delete and an
-- insert), so the counters need not follow moves. TG_ARGV[0] names the columns in the message.
CREATE FUNCTION lms_forbid_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% rows cannot change their %', TG_TABLE_NAME, TG_ARGV[0];
END $$;
